package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// pollItem is what these tests read of a polled item.
type pollItem struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	ModifiedOn         string `json:"modifiedOn"`
	VersionState       string `json:"versionState"`
	HasArchiveRelation bool   `json:"hasArchiveRelation"`
}

type pollPage struct {
	Items     []pollItem `json:"items"`
	NextToken *string    `json:"nextToken"`
}

// poll pages through GET /api/v1/items with query (plus size and
// nextToken), checking each page's shape, and returns the items in the
// order served.
func poll(t *testing.T, c *loupetest.Client, query url.Values, size int) []pollItem {
	t.Helper()
	var all []pollItem
	var token string
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatalf("polling does not end: %d pages", n)
		}
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if size > 0 {
			q.Set("size", fmt.Sprint(size))
		}
		if token != "" {
			q.Set("nextToken", token)
		}
		var p pollPage
		r := c.Get(t, "/api/v1/items?"+q.Encode()).Status(http.StatusOK)
		sameKeys(t, "poll page", r.Object(), []string{"items", "nextToken"})
		r.JSON(&p)
		if p.Items == nil {
			t.Fatalf("page %d: items is null, want an array", n)
		}
		if size > 0 && len(p.Items) > size {
			t.Fatalf("page %d: %d items, more than size %d", n, len(p.Items), size)
		}
		all = append(all, p.Items...)
		if p.NextToken == nil {
			break
		}
		// A page may end short of size only to stay within its memory
		// budget (TestPollPageMemoryBudget), never empty.
		if len(p.Items) == 0 {
			t.Fatalf("page %d: a nextToken on an empty page", n)
		}
		token = *p.NextToken
	}
	return all
}

func idsOf(items []pollItem) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// pauseClock makes sure the clock moves on, so that a time taken between two
// writes falls strictly between their modifiedOn.
func pauseClock() time.Time {
	time.Sleep(3 * time.Millisecond)
	at := time.Now().UTC()
	time.Sleep(3 * time.Millisecond)
	return at
}

func TestPollServesEveryChangeOnceOldestFirst(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	start := pauseClock()
	var ids []string
	for i := 0; i < 7; i++ {
		ids = append(ids, a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"}))
		b.CreateItem(t, map[string]any{"title": fmt.Sprintf("B's clip %d", i), "itemType": "video"})
	}
	mid := pauseClock()
	a.Delete(t, "/api/v1/items/"+ids[1]).Status(http.StatusOK)
	a.Put(t, "/api/v1/items/"+ids[3]+"/archive", nil).Status(http.StatusOK)
	a.Delete(t, "/api/v1/items/"+ids[5]).Status(http.StatusOK)
	a.Post(t, "/api/v1/items/"+ids[5]+"/undelete", nil).Status(http.StatusOK)
	end := pauseClock()

	// A change moves an item to the end: 1 deleted, 3 archived, 5 restored.
	changed := []string{ids[0], ids[2], ids[4], ids[6], ids[1], ids[3], ids[5]}
	ts := func(at time.Time) url.Values { return url.Values{"since": {at.Format(time.RFC3339Nano)}} }
	cases := []struct {
		name  string
		query url.Values
		size  int
		want  []string
	}{
		{"everything, default size", nil, 0, append([]string{a.ArchiveFolderID}, changed...)},
		{"everything in pages of 1", nil, 1, append([]string{a.ArchiveFolderID}, changed...)},
		{"since start, pages of 2", ts(start), 2, changed},
		{"since start, pages of 3", ts(start), 3, changed},
		{"since start, one exact page", ts(start), 7, changed},
		{"since start, size 100", ts(start), 100, changed},
		{"since mid", ts(mid), 2, changed[4:]},
		{"since mid with an offset", url.Values{"since": {mid.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano)}}, 2, changed[4:]},
		{"since end", ts(end), 2, []string{}},
		{"since the future", ts(end.Add(time.Hour)), 0, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := poll(t, a, c.query, c.size)
			if g := idsOf(got); !slices.Equal(g, c.want) {
				t.Fatalf("polled\n got %v\nwant %v", g, c.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].ModifiedOn < got[i-1].ModifiedOn {
					t.Fatalf("item %d modifiedOn %s before item %d's %s", i, got[i].ModifiedOn, i-1, got[i-1].ModifiedOn)
				}
			}
		})
	}

	// Deleted items come with IN_RECYCLE_BIN so that integrations learn of
	// the deletion; the rest with EXISTS, as a get-item record.
	got := poll(t, a, ts(start), 0)
	states := map[string]string{}
	for _, it := range got {
		states[it.ID] = it.VersionState
	}
	for _, id := range ids {
		want := "EXISTS"
		if id == ids[1] {
			want = "IN_RECYCLE_BIN"
		}
		if states[id] != want {
			t.Errorf("%s: versionState %q, want %q", id, states[id], want)
		}
	}
	if !got[5].HasArchiveRelation || got[5].ID != ids[3] {
		t.Errorf("archived item %+v, want %s with hasArchiveRelation", got[5], ids[3])
	}
	page := a.Get(t, "/api/v1/items?size=1&since="+url.QueryEscape(start.Format(time.RFC3339Nano))).Status(http.StatusOK).Object()
	rec := page["items"].([]any)[0].(map[string]any)
	sameKeys(t, "polled item", rec, append(slices.Clone(itemRecordKeys), "versionState"))
}

// An item that changes while a client pages moves to the end: it is served
// again with its new state after the items it now follows, and nothing is
// skipped.
func TestPollSeesChangesMadeWhilePaging(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	start := pauseClock()
	var ids []string
	for i := 0; i < 6; i++ {
		ids = append(ids, a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"}))
	}
	since := "since=" + url.QueryEscape(start.Format(time.RFC3339Nano))
	var p pollPage
	a.Get(t, "/api/v1/items?size=2&"+since).Status(http.StatusOK).JSON(&p)
	if g := idsOf(p.Items); !slices.Equal(g, ids[:2]) || p.NextToken == nil {
		t.Fatalf("first page %v (nextToken %v), want %v and a token", g, p.NextToken, ids[:2])
	}
	// One item already served and one not yet served change.
	a.Delete(t, "/api/v1/items/"+ids[0]).Status(http.StatusOK)
	a.Put(t, "/api/v1/items/"+ids[3]+"/archive", nil).Status(http.StatusOK)

	var rest []pollItem
	token := *p.NextToken
	for token != "" {
		var p pollPage
		a.Get(t, "/api/v1/items?size=2&"+since+"&nextToken="+url.QueryEscape(token)).Status(http.StatusOK).JSON(&p)
		rest = append(rest, p.Items...)
		token = ""
		if p.NextToken != nil {
			token = *p.NextToken
		}
	}
	want := []string{ids[2], ids[4], ids[5], ids[0], ids[3]}
	if g := idsOf(rest); !slices.Equal(g, want) {
		t.Fatalf("after the first page\n got %v\nwant %v", g, want)
	}
	if rest[3].VersionState != "IN_RECYCLE_BIN" || !rest[4].HasArchiveRelation {
		t.Fatalf("changed items served as %+v and %+v", rest[3], rest[4])
	}
}

func TestPollRefusesBadParameters(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for i := 0; i < 3; i++ {
		a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"})
	}
	var p pollPage
	a.Get(t, "/api/v1/items?size=1").Status(http.StatusOK).JSON(&p)
	if p.NextToken == nil {
		t.Fatal("no nextToken on a full first page")
	}
	// A cursor of the items connection (an id alone) is not a poll cursor.
	var list struct {
		Data struct {
			Items struct {
				PageInfo struct{ EndCursor string } `json:"pageInfo"`
			} `json:"items"`
		} `json:"data"`
	}
	a.Post(t, "/graphql", map[string]any{"query": `{ items(first: 1) { pageInfo { endCursor } } }`}).
		Status(http.StatusOK).JSON(&list)

	cases := []struct {
		name    string
		query   string
		message string
	}{
		{"size 0", "size=0", "first (size) must be between 1 and 100"},
		{"size 101", "size=101", "first (size) must be between 1 and 100"},
		{"size negative", "size=-1", "first (size) must be between 1 and 100"},
		{"size not a number", "size=ten", `query parameter size must be an integer, got "ten"`},
		{"nextToken not base64", "nextToken=%25%25%25", "after (nextToken) is not a valid cursor"},
		{"nextToken garbage", "nextToken=Z2FyYmFnZQ", "after (nextToken) is not a valid cursor"},
		{"nextToken with a bad id", "nextToken=MjAyNi0wMS0wMVQwMDowMDowMFp8bm9wZQ", "after (nextToken) is not a valid cursor"},
		{"nextToken of the items list", "nextToken=" + url.QueryEscape(list.Data.Items.PageInfo.EndCursor), "after (nextToken) is not a valid cursor"},
		{"since not a time", "since=yesterday", ""},
		{"since without zone", "since=2026-01-02T03:04:05", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Get(t, "/api/v1/items?"+c.query).Envelope(http.StatusBadRequest, c.message)
		})
	}
	t.Run("the token served works", func(t *testing.T) {
		a.Get(t, "/api/v1/items?size=1&nextToken="+url.QueryEscape(*p.NextToken)).Status(http.StatusOK)
	})
	t.Run("without a credential", func(t *testing.T) {
		api.Anonymous().Get(t, "/api/v1/items").Status(http.StatusUnauthorized)
	})
}

// A page of the poll stays within its memory budget whatever was stored:
// documents larger than today's input limits (written before them, or by a
// pipeline) end the page early, and the cursor goes on from there, so every
// item is still served once.
func TestPollPageMemoryBudget(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var ids []string
	for i := range 10 {
		ids = append(ids, a.CreateItem(t, map[string]any{"title": fmt.Sprint("big ", i), "itemType": "video"}))
	}
	// 3 MiB of icons each, past any input limit: written behind the API's back.
	big := fmt.Sprintf(`{"pos1": %q}`, strings.Repeat("x", 3<<20))
	if _, err := api.DB.Exec(`UPDATE items SET custom_icons = $1::jsonb WHERE id = ANY($2::uuid[])`, big, pq.Array(ids)); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"since": {"2000-01-01T00:00:00Z"}}
	first, size := c0(t, a, q)
	// The budget (8 MiB) may be passed by the one item read last.
	if n := len(first.Items); n == 0 || size > 12<<20 {
		t.Fatalf("first page of 10 items of 3 MiB: %d items in %d bytes, want at most 8 MiB and one item", n, size)
	}
	if first.NextToken == nil {
		t.Fatal("the page ended early without a nextToken")
	}
	seen := map[string]int{}
	for _, it := range poll(t, a, q, 10) {
		seen[it.ID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Fatalf("item %s polled %d times, want once", id, seen[id])
		}
	}
}

// c0 reads the first poll page of size 10 and its size in bytes.
func c0(t *testing.T, c *loupetest.Client, q url.Values) (pollPage, int) {
	t.Helper()
	var p pollPage
	r := c.Get(t, "/api/v1/items?size=10&"+q.Encode()).Status(http.StatusOK).JSON(&p)
	return p, len(r.Body)
}
