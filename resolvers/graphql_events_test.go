package resolvers_test

import (
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

type eventPage struct {
	Events struct {
		Events []struct {
			ID     string
			Type   string
			ItemID *string
			Item   *struct{ Title string }
			Data   map[string]any
		}
		NextSince string
		HasMore   bool
	}
}

const eventsQuery = `query($since: String, $types: [EventType!], $itemId: ID, $first: Int) {
  events(since: $since, types: $types, itemId: $itemId, first: $first) {
    events { id type itemId item { title } data } nextSince hasMore } }`

// readEvents pages through events until none are left, first at a time,
// and answers "type title" for each (title "-" when the item is null).
func readEvents(t *testing.T, c *loupetest.Client, since string, first int, vars map[string]any) ([]string, string) {
	t.Helper()
	var out []string
	for pages := 0; ; pages++ {
		v := map[string]any{"since": since, "first": first}
		for k, x := range vars {
			v[k] = x
		}
		var p eventPage
		c.GraphQL(t, eventsQuery, v).OK(&p)
		for _, e := range p.Events.Events {
			title := "-"
			if e.Item != nil {
				title = e.Item.Title
			}
			out = append(out, e.Type+" "+title)
		}
		since = p.Events.NextSince
		if !p.Events.HasMore {
			return out, since
		}
		if pages > 100 {
			t.Fatal("paging does not end")
		}
	}
}

// events(since, types, itemId, first) is any client's catch-up: an admin
// reads every event of the tenant; a user only those about items they may
// see now, paging moving past the hidden ones; since resumes exactly
// after an event; another tenant's events never show.
func TestGraphQLEvents(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	other := api.Tenant(t, "b")
	other.CreateItem(t, map[string]any{"title": "Elsewhere", "itemType": "video"})

	api.AwaitEvents(t)
	_, start := readEvents(t, a, "", 100, nil) // the tenant's archive folder
	private := a.CreateItem(t, map[string]any{"title": "Private", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+private, map[string]any{
		"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{a.TenantID + ":nobody"}}}).Status(200)
	hidden := a.CreateItem(t, map[string]any{"title": "Hidden", "itemType": "video", "folderParents": []string{private}})
	open := a.CreateItem(t, map[string]any{"title": "Open", "itemType": "video"})
	a.Patch(t, "/api/v1/itemMetadata/"+hidden, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"notes": "x"}}}).Status(200)
	a.Patch(t, "/api/v1/itemMetadata/"+open, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"notes": "y"}}}).Status(200)

	api.AwaitEvents(t)
	all, end := readEvents(t, a, start, 2, nil)
	want := []string{"itemCreation Private", "itemChange Private", "itemCreation Hidden", "itemCreation Open",
		"itemChange Hidden", "itemChange Open"}
	if !slices.Equal(all, want) {
		t.Fatalf("admin, 2 a page:\n got %v\nwant %v", all, want)
	}
	seen, edEnd := readEvents(t, ed, start, 2, nil)
	if want := []string{"itemCreation Open", "itemChange Open"}; !slices.Equal(seen, want) {
		t.Fatalf("ed, 2 a page: %v, want %v", seen, want)
	}
	if edEnd != end {
		t.Fatalf("ed's paging ends at %s, the admin's at %s", edEnd, end)
	}
	if got, _ := readEvents(t, a, start, 100, map[string]any{"types": []string{"itemChange"}}); len(got) != 3 {
		t.Fatalf("itemChange only: %v", got)
	}
	if got, _ := readEvents(t, ed, "", 100, map[string]any{"itemId": open}); !slices.Equal(got,
		[]string{"itemCreation Open", "itemChange Open"}) {
		t.Fatalf("ed, Open's events: %v", got)
	}
	// Nothing new: an empty page that keeps the place.
	if got, again := readEvents(t, a, end, 100, nil); len(got) != 0 || again != end {
		t.Fatalf("after the end: %v, next %s", got, again)
	}

	// A hidden item answers as a missing one; a bad cursor or type is bad input.
	if msg := ed.GraphQL(t, eventsQuery, map[string]any{"itemId": hidden}).ErrorCode("NOT_FOUND"); msg == "" {
		t.Fatal("ed read a hidden item's events")
	}
	a.GraphQL(t, eventsQuery, map[string]any{"since": "yesterday"}).ErrorCode("BAD_USER_INPUT")
	a.GraphQL(t, eventsQuery, map[string]any{"first": 0}).ErrorCode("BAD_USER_INPUT")
	a.GraphQL(t, eventsQuery, map[string]any{"types": []string{"itemDestruction"}}).ErrorCode("GRAPHQL_VALIDATION_FAILED")
}
