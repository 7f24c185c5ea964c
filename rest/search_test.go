package rest_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/store"
)

// The keys of a search hit (rest/operations/search.graphql).
var searchHitKeys = strings.Fields(`id title itemType originalFileName createdBy createdOn modifiedOn mediaType
metadata metadataVersion folderParents thumbnail transcodingState transcriptMatches`)

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
	keys := []string{"total", "totalIsEstimate", "_embedded"}
	if q.Get("facets") == "true" {
		keys = append(keys, "facets")
	}
	sameKeys(t, "search answer", top, keys)
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
	api                     *loupetest.API
	a, b                    *loupetest.Client
	projects, interviews    string
	raw, foreignFolder      string
	sunset, mayor, footage  string
	portrait, binned, zebra string
	zebraNote               string
}

func newLibrary(t *testing.T) *library {
	api := loupetest.New(t)
	l := &library{api: api, a: api.Tenant(t, "a"), b: api.Tenant(t, "b")}
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
		// Both titles hold "harb": the same tier, so the newer first.
		{"title before file name before metadata", url.Values{"searchString": {"harb"}}, []string{l.portrait, l.sunset, l.footage}},
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

// searchAll is the whole answer of GET /api/v1/search, facets included.
type searchAll struct {
	Total           int  `json:"total"`
	TotalIsEstimate bool `json:"totalIsEstimate"`
	Embedded        struct {
		Collection []struct {
			ID                string `json:"id"`
			TranscriptMatches []struct {
				LanguageCode string  `json:"languageCode"`
				Start        float64 `json:"start"`
				End          float64 `json:"end"`
				Text         string  `json:"text"`
			} `json:"transcriptMatches"`
		} `json:"collection"`
	} `json:"_embedded"`
	Facets *struct {
		IsEstimate    bool         `json:"isEstimate"`
		SampleSize    int          `json:"sampleSize"`
		ItemTypes     []facetCount `json:"itemTypes"`
		MetadataForms []facetCount `json:"metadataForms"`
		Field         *string      `json:"field"`
		FieldValues   []facetCount `json:"fieldValues"`
	} `json:"facets"`
}

type facetCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

func counts(cs []facetCount) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Value+":"+strconv.Itoa(c.Count))
	}
	return strings.Join(s, " ")
}

func searchFull(t *testing.T, c *loupetest.Client, q url.Values) searchAll {
	t.Helper()
	search(t, c, q) // the shape
	var s searchAll
	c.Get(t, "/api/v1/search?"+q.Encode()).Status(http.StatusOK).JSON(&s)
	return s
}

func (s searchAll) ids() []string {
	ids := []string{}
	for _, h := range s.Embedded.Collection {
		ids = append(ids, h.ID)
	}
	return ids
}

// shelf is a tenant with items to filter: types, processing states,
// creation times a few milliseconds apart, a form field.
type shelf struct {
	api                        *loupetest.API
	a                          *loupetest.Client
	red, redImage, cars, other string
	createdOn                  map[string]string
}

func newShelf(t *testing.T) *shelf {
	api := loupetest.New(t)
	s := &shelf{api: api, a: api.Tenant(t, "a"), createdOn: map[string]string{}}
	mk := func(title, typ, genre string) string {
		id := s.a.CreateItem(t, map[string]any{"title": title, "itemType": typ,
			"metadata": map[string]any{"formData": map[string]any{"genre": genre, "default_description": "shelf"}}})
		s.createdOn[id] = s.a.Get(t, "/api/v1/items/"+id).Object()["createdOn"].(string)
		time.Sleep(5 * time.Millisecond) // distinct createdOn to the millisecond
		return id
	}
	s.other = mk("Quiet harbour", "audio", "ambient")
	s.cars = mk("Red cars racing", "video", "sports")
	s.redImage = mk("A car, red", "image", "sports")
	s.red = mk("The red car passes", "video", "drama")
	if _, err := api.DB.Exec(`UPDATE items SET transcoding_state = 'failed' WHERE id = $1`, s.redImage); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSearchPhraseAndFilters(t *testing.T) {
	s := newShelf(t)
	all := []string{s.red, s.redImage, s.cars, s.other}
	cases := []struct {
		name string
		q    url.Values
		want []string
	}{
		{"words in any order", url.Values{"searchString": {"red car"}}, []string{s.red, s.redImage, s.cars}},
		{"phrase: adjacent, in order, whole words", url.Values{"searchString": {`"red car"`}}, []string{s.red}},
		{"phrase and a word", url.Values{"searchString": {`passes "the red"`}}, []string{s.red}},
		{"a phrase that is not there", url.Values{"searchString": {`"red racing"`}}, []string{}},
		{"punctuation inside a phrase does not count", url.Values{"searchString": {`"car red"`}}, []string{s.redImage}},
		{"quote left open: words", url.Values{"searchString": {`"car red`}}, []string{s.red, s.redImage, s.cars}},
		{"item type", url.Values{"itemType": {"video"}}, []string{s.red, s.cars}},
		{"item types repeated", url.Values{"itemType": {"video", "audio"}}, []string{s.red, s.cars, s.other}},
		{"item types comma separated", url.Values{"itemTypes": {"image,audio"}}, []string{s.redImage, s.other}},
		{"item type and words", url.Values{"searchString": {"red"}, "itemType": {"image"}}, []string{s.redImage}},
		{"processing state", url.Values{"transcodingState": {"failed"}}, []string{s.redImage}},
		{"processing states", url.Values{"transcodingStates": {"none,failed"}}, all},
		{"created from (inclusive)", url.Values{"createdFrom": {s.createdOn[s.redImage]}}, []string{s.red, s.redImage}},
		{"created to (exclusive)", url.Values{"createdTo": {s.createdOn[s.redImage]}}, []string{s.cars, s.other}},
		{"created between", url.Values{"createdFrom": {s.createdOn[s.cars]}, "createdTo": {s.createdOn[s.red]}},
			[]string{s.redImage, s.cars}},
		{"metadata value", url.Values{"metadataField": {"genre"}, "metadataValue": {"sports"}}, []string{s.redImage, s.cars}},
		{"metadata value and words", url.Values{"searchString": {"racing"}, "metadataField": {"genre"}, "metadataValue": {"sports"}},
			[]string{s.cars}},
		{"metadata value is exact", url.Values{"metadataField": {"genre"}, "metadataValue": {"sport"}}, []string{}},
		{"every filter", url.Values{"searchString": {"red"}, "itemType": {"video", "image"}, "transcodingState": {"none"},
			"metadataField": {"genre"}, "metadataValue": {"sports"}}, []string{s.cars}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search(t, s.a, c.q)
			if !slices.Equal(got.ids(), c.want) || got.Total != len(c.want) {
				t.Fatalf("hits (total %d)\n got %v\nwant %v", got.Total, got.ids(), c.want)
			}
		})
	}
}

func TestSearchRefusesBadFilters(t *testing.T) {
	s := newShelf(t)
	cases := []struct {
		name, query, message string
	}{
		{"unknown processing state", "transcodingState=done",
			`transcodingState must be one of none, queued, processing, complete, failed, skipped, got "done"`},
		{"metadataField alone", "metadataField=genre", "metadataField needs a metadataValue"},
		{"metadataValue alone", "metadataValue=sports", "metadataValue needs a metadataField"},
		{"metadataField not a field id", "metadataField=a%20b&metadataValue=x",
			`metadataField must be a form field's id (1 to 128 letters, digits, _ or -), got "a b"`},
		{"facetField not a field id", "facets=true&facetField=a.b",
			`facetField must be a form field's id (1 to 128 letters, digits, _ or -), got "a.b"`},
		{"dates the wrong way round", "createdFrom=2025-01-02T00:00:00Z&createdTo=2025-01-01T00:00:00Z",
			"createdTo must not be before createdFrom"},
		{"facets not a boolean", "facets=yes", `query parameter facets must be true or false, got "yes"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.a.Get(t, "/api/v1/search?"+c.query).Envelope(http.StatusBadRequest, c.message)
		})
	}
	t.Run("a date that is not RFC 3339", func(t *testing.T) {
		s.a.Get(t, "/api/v1/search?createdFrom=yesterday").Status(http.StatusBadRequest)
	})
	t.Run("hostile filter values are only values", func(t *testing.T) {
		for _, v := range []string{`'; DROP TABLE items; --`, `\`, `"`, `%`, `{}`, `[]`, `$1`} {
			q := url.Values{"itemType": {v}, "metadataField": {"genre"}, "metadataValue": {v}, "facets": {"true"}, "facetField": {"genre"}}
			if got := searchFull(t, s.a, q); got.Total != 0 {
				t.Fatalf("%q found %v", v, got.ids())
			}
		}
	})
}

func TestSearchFacets(t *testing.T) {
	s := newShelf(t)
	got := searchFull(t, s.a, url.Values{"searchString": {"shelf"}, "facets": {"true"}, "facetField": {"genre"}})
	f := got.Facets
	if f == nil || f.IsEstimate || f.Field == nil || *f.Field != "genre" {
		t.Fatalf("facets %+v", f)
	}
	for what, c := range map[string][2]string{
		"item types": {counts(f.ItemTypes), "video:2 audio:1 image:1"},
		"forms":      {counts(f.MetadataForms), "default:4"},
		"genres":     {counts(f.FieldValues), "sports:2 ambient:1 drama:1"},
	} {
		if c[0] != c[1] {
			t.Errorf("%s: %q, want %q", what, c[0], c[1])
		}
	}
	// The facets count the hits, not the page; filters narrow them.
	got = searchFull(t, s.a, url.Values{"itemType": {"video"}, "itemsPerPage": {"1"}, "facets": {"true"}})
	if f := got.Facets; len(got.ids()) != 1 || counts(f.ItemTypes) != "video:2" || f.Field != nil || len(f.FieldValues) != 0 {
		t.Fatalf("filtered facets %+v, hits %v", f, got.ids())
	}
	if got := searchFull(t, s.a, url.Values{"facets": {"false"}}); got.Facets != nil {
		t.Fatalf("facets=false answered facets %+v", got.Facets)
	}
}

// Past the exact bound the total and the facets are estimates, marked so,
// and the page is still the right one.
func TestSearchBoundsTheTotal(t *testing.T) {
	l := newLibrary(t)
	var fillers []string
	for i := 0; i < 8; i++ {
		fillers = append(fillers, l.a.CreateItem(t, map[string]any{"title": "Filler", "itemType": "video"}))
	}
	slices.Reverse(fillers) // newest first
	l.api.Store.SetSearchExactBound(5)
	t.Cleanup(func() { l.api.Store.SetSearchExactBound(store.DefaultSearchExactBound) })
	got := searchFull(t, l.a, url.Values{"searchString": {"filler"}, "itemsPerPage": {"3"}, "from": {"2"}, "facets": {"true"}})
	if !got.TotalIsEstimate || got.Total < 6 {
		t.Fatalf("8 hits past a bound of 5: total %d, estimate %v", got.Total, got.TotalIsEstimate)
	}
	if !slices.Equal(got.ids(), fillers[2:5]) {
		t.Fatalf("page %v, want %v", got.ids(), fillers[2:5])
	}
	if f := got.Facets; !f.IsEstimate || f.SampleSize != 6 || len(f.ItemTypes) != 1 || f.ItemTypes[0].Value != "video" {
		t.Fatalf("facets past the bound %+v", f)
	}
	got = searchFull(t, l.a, url.Values{"searchString": {"harbour"}, "facets": {"true"}})
	if got.TotalIsEstimate || got.Total != 3 || got.Facets.IsEstimate {
		t.Fatalf("3 hits under a bound of 5: total %d, estimate %v, facets %+v", got.Total, got.TotalIsEstimate, got.Facets)
	}
	got = searchFull(t, l.a, url.Values{"from": {"9"}})
	if !got.TotalIsEstimate || len(got.ids()) != 3 { // 12 items: fillers and the library's 4
		t.Fatalf("everything from 9: total %d (estimate %v), %d hits", got.Total, got.TotalIsEstimate, len(got.ids()))
	}
}

func TestSearchSaysWhereInTheTranscript(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	said := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video", "languageCode": "en-US"})
	titled := a.CreateItem(t, map[string]any{"title": "Zanzibar harbour", "itemType": "video"})
	putTranscript(t, a, said, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{
		{"Good morning.", 0, 1500}, {"We sailed to Zanzibar at dawn.", 1500, 4250}, {"Zanzibar again", 9000, 9500}}})
	got := searchFull(t, a, url.Values{"searchString": {"zanzib"}})
	if !slices.Equal(got.ids(), []string{titled, said}) {
		t.Fatalf("hits %v, want %v", got.ids(), []string{titled, said})
	}
	if m := got.Embedded.Collection[0].TranscriptMatches; len(m) != 0 {
		t.Fatalf("the titled item has no transcript: %+v", m)
	}
	m := got.Embedded.Collection[1].TranscriptMatches
	if len(m) != 2 || m[0].Start != 1.5 || m[0].End != 4.25 || m[0].Text != "We sailed to Zanzibar at dawn." ||
		m[0].LanguageCode != "en-US" || m[1].Start != 9 {
		t.Fatalf("matches %+v", m)
	}
	got = searchFull(t, a, url.Values{"searchString": {`"sailed to zanzibar"`}})
	if m := got.Embedded.Collection[0].TranscriptMatches; len(got.ids()) != 1 || len(m) != 1 || m[0].Start != 1.5 {
		t.Fatalf("phrase: hits %v, matches %+v", got.ids(), m)
	}
	got = searchFull(t, a, url.Values{})
	for _, h := range got.Embedded.Collection {
		if len(h.TranscriptMatches) != 0 {
			t.Fatalf("a search without words found matches: %+v", h.TranscriptMatches)
		}
	}
}
