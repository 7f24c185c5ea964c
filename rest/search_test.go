package rest_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of a search hit (rest/operations/search.graphql).
var searchHitKeys = strings.Fields(`id title itemType originalFileName createdBy createdOn modifiedOn mediaType
metadata metadataVersion folderParents thumbnail transcodingState`)

type searchAnswer struct {
	Total    int `json:"total"`
	Embedded struct {
		Collection []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"collection"`
	} `json:"_embedded"`
}

func (s searchAnswer) ids() []string {
	ids := []string{}
	for _, h := range s.Embedded.Collection {
		ids = append(ids, h.ID)
	}
	return ids
}

// search runs GET /api/v1/search and checks the answer's shape.
func search(t *testing.T, c *loupetest.Client, q url.Values) searchAnswer {
	t.Helper()
	r := c.Get(t, "/api/v1/search?"+q.Encode()).Status(http.StatusOK)
	top := r.Object()
	sameKeys(t, "search answer", top, []string{"total", "_embedded"})
	emb, _ := top["_embedded"].(map[string]any)
	sameKeys(t, "search _embedded", emb, []string{"collection"})
	coll, ok := emb["collection"].([]any)
	if !ok {
		t.Fatalf("collection is %v, want an array", emb["collection"])
	}
	for _, h := range coll {
		sameKeys(t, "search hit", h.(map[string]any), searchHitKeys)
	}
	var s searchAnswer
	r.JSON(&s)
	return s
}

// library is a small tenant to search in: folders Projects > Interviews >
// Raw, items in each, one binned item, and another tenant's look-alikes.
type library struct {
	a, b                    *loupetest.Client
	projects, interviews    string
	raw, foreignFolder      string
	sunset, mayor, footage  string
	portrait, binned, zebra string
	zebraNote               string
}

func newLibrary(t *testing.T) *library {
	api := loupetest.New(t)
	l := &library{a: api.Tenant(t, "a"), b: api.Tenant(t, "b")}
	a := l.a
	l.projects = a.CreateItem(t, map[string]any{"title": "Projects", "itemType": "folder"})
	l.interviews = a.CreateItem(t, map[string]any{"title": "Interviews", "itemType": "folder", "folderParents": []string{l.projects}})
	l.raw = a.CreateItem(t, map[string]any{"title": "Raw", "itemType": "folder", "folderParents": []string{l.interviews}})
	l.sunset = a.CreateItem(t, map[string]any{"title": "Sunset over the harbour", "itemType": "video",
		"originalFileName": "harbour_sunset.mov", "folderParents": []string{l.projects}})
	l.mayor = a.CreateItem(t, map[string]any{"title": "Interview with the mayor", "itemType": "video",
		"originalFileName": "clip.mov", "folderParents": []string{l.interviews},
		"metadata": map[string]any{"formData": map[string]any{"default_description": "City hall, spring"}}})
	l.footage = a.CreateItem(t, map[string]any{"title": "Raw footage", "itemType": "video",
		"originalFileName": "B-roll.mp4", "folderParents": []string{l.raw},
		"metadata": map[string]any{"formData": map[string]any{"default_description": "sunset timelapse",
			"keywords": "harbour", "reel": 4711}}})
	l.portrait = a.CreateItem(t, map[string]any{"title": "Harbourmaster portrait", "itemType": "image"})
	l.binned = a.CreateItem(t, map[string]any{"title": "Sunset binned", "itemType": "video", "folderParents": []string{l.projects}})
	a.Delete(t, "/api/v1/items/"+l.binned).Status(http.StatusOK)
	l.foreignFolder = l.b.CreateItem(t, map[string]any{"title": "Projects", "itemType": "folder"})
	l.b.CreateItem(t, map[string]any{"title": "Sunset over the harbour", "itemType": "video",
		"originalFileName": "harbour_sunset.mov", "folderParents": []string{l.foreignFolder}})
	return l
}

func TestSearchFindsByWordPrefixFileNameAndMetadata(t *testing.T) {
	l := newLibrary(t)
	// The zebras test ranking: the title match is older than the
	// description match, so newest-first alone would put it second.
	l.zebra = l.a.CreateItem(t, map[string]any{"title": "Zebra crossing", "itemType": "video"})
	l.zebraNote = l.a.CreateItem(t, map[string]any{"title": "Street scene", "itemType": "video",
		"metadata": map[string]any{"formData": map[string]any{"default_description": "a zebra crossing the street"}}})
	all := []string{l.zebraNote, l.zebra, l.portrait, l.footage, l.mayor, l.sunset}

	cases := []struct {
		name string
		q    url.Values
		want []string
	}{
		{"empty lists everything newest first", url.Values{}, all},
		{"blank lists everything", url.Values{"searchString": {"   "}}, all},
		{"title word", url.Values{"searchString": {"mayor"}}, []string{l.mayor}},
		{"case does not matter", url.Values{"searchString": {"MAYOR"}}, []string{l.mayor}},
		{"prefix", url.Values{"searchString": {"interv"}}, []string{l.mayor}},
		{"prefix of a longer word", url.Values{"searchString": {"harbourm"}}, []string{l.portrait}},
		{"title before file name before metadata", url.Values{"searchString": {"harb"}}, []string{l.sunset, l.portrait, l.footage}},
		{"title match before description match", url.Values{"searchString": {"zebra"}}, []string{l.zebra, l.zebraNote}},
		{"title before description, older first", url.Values{"searchString": {"sunset"}}, []string{l.sunset, l.footage}},
		{"file name", url.Values{"searchString": {"clip.mov"}}, []string{l.mayor}},
		{"file name part", url.Values{"searchString": {"roll"}}, []string{l.footage}},
		{"file extension", url.Values{"searchString": {"mov"}}, []string{l.mayor, l.sunset}},
		{"metadata string", url.Values{"searchString": {"timelapse"}}, []string{l.footage}},
		{"metadata custom field", url.Values{"searchString": {"keywords harbour"}}, []string{}},
		{"metadata number", url.Values{"searchString": {"4711"}}, []string{l.footage}},
		{"all words must match", url.Values{"searchString": {"city mayor"}}, []string{l.mayor}},
		{"words in any order and field", url.Values{"searchString": {"spring interview"}}, []string{l.mayor}},
		{"words that never meet", url.Values{"searchString": {"sunset mayor"}}, []string{}},
		{"punctuation between words", url.Values{"searchString": {"city, (hall)!"}}, []string{l.mayor}},
		{"no such word", url.Values{"searchString": {"nothing"}}, []string{}},
		{"binned items never match", url.Values{"searchString": {"binned"}}, []string{}},
		{"folders are left out", url.Values{"searchString": {"projects"}}, []string{}},
		{"includeFolders", url.Values{"searchString": {"projects"}, "includeFolders": {"true"}}, []string{l.projects}},
		{"includeFolders with words", url.Values{"searchString": {"interview"}, "includeFolders": {"true"}}, []string{l.mayor, l.interviews}},
		{"includeFolders false", url.Values{"searchString": {"raw"}, "includeFolders": {"false"}}, []string{l.footage}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search(t, l.a, c.q)
			if !slices.Equal(got.ids(), c.want) {
				t.Fatalf("hits\n got %v\nwant %v", got.ids(), c.want)
			}
			if got.Total != len(c.want) {
				t.Fatalf("total %d, want %d", got.Total, len(c.want))
			}
		})
	}
}

func TestSearchScopesToFolders(t *testing.T) {
	l := newLibrary(t)
	const missing = "01a20242-9dca-771b-bd4e-ca31c13a56ec"
	cases := []struct {
		name string
		q    url.Values
		want []string
	}{
		{"folder", url.Values{"folderId": {l.projects}}, []string{l.sunset}},
		{"folder and subfolders", url.Values{"folderId": {l.projects}, "includeSubfolders": {"true"}},
			[]string{l.footage, l.mayor, l.sunset}},
		{"subfolders with folders", url.Values{"folderId": {l.projects}, "includeSubfolders": {"true"}, "includeFolders": {"true"}},
			[]string{l.footage, l.mayor, l.sunset, l.raw, l.interviews}},
		{"middle folder and below", url.Values{"folderId": {l.interviews}, "includeSubfolders": {"true"}},
			[]string{l.footage, l.mayor}},
		{"subfolders and words", url.Values{"folderId": {l.projects}, "includeSubfolders": {"true"}, "searchString": {"sunset"}},
			[]string{l.sunset, l.footage}},
		{"folder and words", url.Values{"folderId": {l.interviews}, "searchString": {"sunset"}}, []string{}},
		{"folder with folders", url.Values{"folderId": {l.interviews}, "includeFolders": {"true"}}, []string{l.mayor, l.raw}},
		{"leaf folder", url.Values{"folderId": {l.raw}, "includeSubfolders": {"true"}}, []string{l.footage}},
		{"archive folder", url.Values{"folderId": {l.a.ArchiveFolderID}}, []string{}},
		{"unknown folder", url.Values{"folderId": {missing}, "includeSubfolders": {"true"}}, []string{}},
		{"another tenant's folder", url.Values{"folderId": {l.foreignFolder}}, []string{}},
		{"another tenant's folder and below", url.Values{"folderId": {l.foreignFolder}, "includeSubfolders": {"true"}}, []string{}},
		{"an item that is no folder", url.Values{"folderId": {l.sunset}, "includeSubfolders": {"true"}}, []string{}},
		{"not an id", url.Values{"folderId": {"nope"}}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search(t, l.a, c.q)
			if !slices.Equal(got.ids(), c.want) || got.Total != len(c.want) {
				t.Fatalf("hits (total %d)\n got %v\nwant %v", got.Total, got.ids(), c.want)
			}
		})
	}

	t.Run("a binned subfolder hides what is below it", func(t *testing.T) {
		l.a.Delete(t, "/api/v1/items/"+l.raw).Status(http.StatusOK)
		got := search(t, l.a, url.Values{"folderId": {l.projects}, "includeSubfolders": {"true"}})
		if want := []string{l.mayor, l.sunset}; !slices.Equal(got.ids(), want) {
			t.Fatalf("hits %v, want %v", got.ids(), want)
		}
	})
}

func TestSearchPagesWithFromAndTotal(t *testing.T) {
	l := newLibrary(t)
	all := []string{l.portrait, l.footage, l.mayor, l.sunset}
	cases := []struct {
		from, size string
		want       []string
	}{
		{"", "", all},
		{"0", "2", all[:2]},
		{"2", "2", all[2:]},
		{"3", "2", all[3:]},
		{"1", "1", all[1:2]},
		{"4", "2", []string{}},
		{"10000", "100", []string{}},
		{"0", "100", all},
	}
	for _, c := range cases {
		t.Run("from "+c.from+" size "+c.size, func(t *testing.T) {
			q := url.Values{}
			if c.from != "" {
				q.Set("from", c.from)
			}
			if c.size != "" {
				q.Set("itemsPerPage", c.size)
			}
			got := search(t, l.a, q)
			if !slices.Equal(got.ids(), c.want) || got.Total != len(all) {
				t.Fatalf("hits (total %d)\n got %v\nwant %v (total %d)", got.Total, got.ids(), c.want, len(all))
			}
		})
	}
	t.Run("default page is 25", func(t *testing.T) {
		for i := 0; i < 26; i++ {
			l.a.CreateItem(t, map[string]any{"title": "Filler", "itemType": "video"})
		}
		got := search(t, l.a, url.Values{"searchString": {"filler"}})
		if len(got.ids()) != 25 || got.Total != 26 {
			t.Fatalf("%d hits of total %d, want 25 of 26", len(got.ids()), got.Total)
		}
	})
}

func TestSearchRefusesBadParameters(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	cases := []struct {
		name    string
		query   string
		message string
	}{
		{"itemsPerPage 0", "itemsPerPage=0", "itemsPerPage must be between 1 and 100"},
		{"itemsPerPage 101", "itemsPerPage=101", "itemsPerPage must be between 1 and 100"},
		{"itemsPerPage negative", "itemsPerPage=-5", "itemsPerPage must be between 1 and 100"},
		{"itemsPerPage not a number", "itemsPerPage=many", `query parameter itemsPerPage must be an integer, got "many"`},
		{"from negative", "from=-1", "from must be between 0 and 10000"},
		{"from too deep", "from=10001", "from must be between 0 and 10000"},
		{"from not a number", "from=1.5", `query parameter from must be an integer, got "1.5"`},
		{"includeFolders not a boolean", "includeFolders=maybe", `query parameter includeFolders must be true or false, got "maybe"`},
		{"includeSubfolders not a boolean", "includeSubfolders=2", `query parameter includeSubfolders must be true or false, got "2"`},
		{"searchString too long", "searchString=" + strings.Repeat("a", 1001), "searchString must be at most 1000 characters, got 1001"},
		{"searchString with NUL", "searchString=a%00b", "searchString: must not contain the NUL character (U+0000)"}, // the input gate (String scalar)
		{"searchString not UTF-8", "searchString=%ff%fe", "searchString must be valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Get(t, "/api/v1/search?"+c.query).Envelope(http.StatusBadRequest, c.message)
		})
	}
	t.Run("1000 characters are fine", func(t *testing.T) {
		a.Get(t, "/api/v1/search?searchString="+strings.Repeat("a", 1000)).Status(http.StatusOK)
	})
	t.Run("without a credential", func(t *testing.T) {
		api.Anonymous().Get(t, "/api/v1/search").Status(http.StatusUnauthorized)
	})
}

// Whatever a user types is only ever words: operators of the tsquery
// syntax, quotes and SQL answer 200, never 500.
func TestSearchTakesHostileStringsAsText(t *testing.T) {
	l := newLibrary(t)
	hostile := []string{
		`a & | ! ( :* ' \`,
		`&`, `|`, `!`, `(`, `)`, `:*`, `'`, `''`, `\`, `\\`, `"`, `<->`, `<2>`, `!!!`, `:`, `*`,
		`sunset:*`, `sunset & mayor`, `sunset | mayor`, `!sunset`, `sunset <-> over`, `'sunset'`, `sun'set`, `sun\set`,
		`'; DROP TABLE items; --`, `" OR 1=1 --`, `1' OR '1'='1`, `%`, `_`, `$1`, `$$`, `E'\x00'`,
		`(((((`, `)))))`, strings.Repeat("(", 500), strings.Repeat("a ", 499),
		`ünïcödé 日本語 🎬`, "tab\there", "new\nline", `/usr/local/x.txt`, `foo@bar.com`, `http://x.y/z?q=1`,
	}
	for _, s := range hostile {
		t.Run(s[:min(len(s), 30)], func(t *testing.T) {
			got := search(t, l.a, url.Values{"searchString": {s}})
			for _, id := range got.ids() {
				if id == l.binned {
					t.Fatalf("a binned item was found")
				}
			}
		})
	}
	t.Run("operators are words", func(t *testing.T) {
		// "sunset | mayor" must not become an OR: both words are required.
		if got := search(t, l.a, url.Values{"searchString": {"sunset | mayor"}}); got.Total != 0 {
			t.Fatalf("sunset | mayor found %v", got.ids())
		}
		if got := search(t, l.a, url.Values{"searchString": {"!sunset"}}); !slices.Equal(got.ids(), []string{l.sunset, l.footage}) {
			t.Fatalf("!sunset found %v, want the sunsets", got.ids())
		}
	})
	if n := len(search(t, l.a, url.Values{}).ids()); n != 4 {
		t.Fatalf("after the hostile strings %d items are found, want 4", n)
	}
}

func TestSearchNeverCrossesTenants(t *testing.T) {
	l := newLibrary(t)
	for _, s := range []string{"", "sunset", "harbour", "mov", "projects"} {
		for _, folders := range []string{"true", "false"} {
			q := url.Values{"searchString": {s}, "includeFolders": {folders}}
			a, b := search(t, l.a, q), search(t, l.b, q)
			aIDs, bIDs := a.ids(), b.ids()
			for _, id := range aIDs {
				if slices.Contains(bIDs, id) {
					t.Fatalf("%q: %s found by both tenants", s, id)
				}
			}
		}
	}
	got := search(t, l.b, url.Values{"searchString": {"sunset"}})
	if got.Total != 1 || got.Embedded.Collection[0].Title != "Sunset over the harbour" || slices.Contains(got.ids(), l.sunset) {
		t.Fatalf("tenant b's sunset search: %+v", got)
	}
	if got := search(t, l.b, url.Values{"folderId": {l.projects}, "includeSubfolders": {"true"}}); got.Total != 0 {
		t.Fatalf("tenant b sees tenant a's folder: %v", got.ids())
	}
}
