package resolvers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const changesQuery = `query($since: DateTime!, $first: Int, $after: String) {
  itemChanges(since: $since, first: $first, after: $after) {
    edges { cursor node { id versionState } }
    nodes { id versionState modifiedOn }
    pageInfo { hasNextPage endCursor }
    totalCount
    nextToken
  }
}`

type changesPage struct {
	ItemChanges struct {
		Edges []struct {
			Cursor string `json:"cursor"`
			Node   struct {
				ID           string `json:"id"`
				VersionState string `json:"versionState"`
			} `json:"node"`
		} `json:"edges"`
		Nodes []struct {
			ID           string `json:"id"`
			VersionState string `json:"versionState"`
			ModifiedOn   string `json:"modifiedOn"`
		} `json:"nodes"`
		PageInfo struct {
			HasNextPage bool    `json:"hasNextPage"`
			EndCursor   *string `json:"endCursor"`
		} `json:"pageInfo"`
		TotalCount int     `json:"totalCount"`
		NextToken  *string `json:"nextToken"`
	} `json:"itemChanges"`
}

// pollAll pages through itemChanges and returns id:versionState in the
// order served.
func pollAll(t *testing.T, c *loupetest.Client, since time.Time, first int) []string {
	t.Helper()
	var got []string
	var after any
	total := -1
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatalf("polling does not end: %d pages", n)
		}
		var p changesPage
		c.GraphQL(t, changesQuery, map[string]any{"since": since.Format(time.RFC3339Nano), "first": first, "after": after}).OK(&p)
		ch := p.ItemChanges
		if len(ch.Edges) != len(ch.Nodes) || len(ch.Nodes) > first {
			t.Fatalf("page %d: %d edges, %d nodes, first %d", n, len(ch.Edges), len(ch.Nodes), first)
		}
		for i, e := range ch.Edges {
			if e.Node.ID != ch.Nodes[i].ID {
				t.Fatalf("page %d: edge %d is %s, node %s", n, i, e.Node.ID, ch.Nodes[i].ID)
			}
			got = append(got, e.Node.ID+":"+e.Node.VersionState)
		}
		if total == -1 {
			total = ch.TotalCount
		}
		if ch.PageInfo.HasNextPage != (ch.NextToken != nil) {
			t.Fatalf("page %d: hasNextPage %v but nextToken %v", n, ch.PageInfo.HasNextPage, ch.NextToken)
		}
		if k := len(ch.Edges); k > 0 && (ch.PageInfo.EndCursor == nil || *ch.PageInfo.EndCursor != ch.Edges[k-1].Cursor) {
			t.Fatalf("page %d: endCursor %v, want the last edge's cursor", n, ch.PageInfo.EndCursor)
		}
		if ch.NextToken == nil {
			break
		}
		if *ch.NextToken != *ch.PageInfo.EndCursor {
			t.Fatalf("page %d: nextToken %s, endCursor %s", n, *ch.NextToken, *ch.PageInfo.EndCursor)
		}
		after = *ch.NextToken
	}
	if total != len(got) {
		t.Fatalf("totalCount %d, but polling served %d", total, len(got))
	}
	return got
}

func TestItemChangesPagesThroughEveryChange(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	start := pause()
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, createItem(t, a, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"}).ID)
		createItem(t, b, map[string]any{"title": "B's", "itemType": "video"})
	}
	mid := pause()
	mutateID(t, a, "deleteItem", ids[0], "id").OK(nil)
	mutateID(t, a, "toggleArchive", ids[2], "type").OK(nil)

	all := []string{ids[1] + ":EXISTS", ids[3] + ":EXISTS", ids[4] + ":EXISTS", ids[0] + ":IN_RECYCLE_BIN", ids[2] + ":EXISTS"}
	for _, first := range []int{1, 2, 5, 100} {
		t.Run(fmt.Sprintf("first %d", first), func(t *testing.T) {
			if got := pollAll(t, a, start, first); !slices.Equal(got, all) {
				t.Fatalf("changes\n got %v\nwant %v", got, all)
			}
		})
	}
	t.Run("since mid", func(t *testing.T) {
		if got := pollAll(t, a, mid, 1); !slices.Equal(got, all[3:]) {
			t.Fatalf("changes %v, want %v", got, all[3:])
		}
	})
	t.Run("the last endCursor resumes after the last change", func(t *testing.T) {
		var p changesPage
		a.GraphQL(t, changesQuery, map[string]any{"since": start.Format(time.RFC3339Nano), "first": 100}).OK(&p)
		last := p.ItemChanges.PageInfo.EndCursor
		if last == nil || p.ItemChanges.NextToken != nil {
			t.Fatalf("last page: endCursor %v, nextToken %v", last, p.ItemChanges.NextToken)
		}
		mutateID(t, a, "undeleteItem", ids[0], "id").OK(nil)
		a.GraphQL(t, changesQuery, map[string]any{"since": start.Format(time.RFC3339Nano), "after": *last}).OK(&p)
		if len(p.ItemChanges.Nodes) != 1 || p.ItemChanges.Nodes[0].ID != ids[0] || p.ItemChanges.Nodes[0].VersionState != "EXISTS" {
			t.Fatalf("after the last cursor: %+v, want only the undeleted %s", p.ItemChanges.Nodes, ids[0])
		}
	})
	t.Run("default page is 50", func(t *testing.T) {
		for i := 0; i < 50; i++ {
			createItem(t, a, map[string]any{"title": "Filler", "itemType": "video"})
		}
		var p changesPage
		a.GraphQL(t, changesQuery, map[string]any{"since": start.Format(time.RFC3339Nano)}).OK(&p)
		if len(p.ItemChanges.Nodes) != 50 || p.ItemChanges.NextToken == nil {
			t.Fatalf("%d nodes, nextToken %v; want 50 and a token", len(p.ItemChanges.Nodes), p.ItemChanges.NextToken)
		}
	})
}

func TestItemChangesRefusesBadPaging(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	cases := []struct {
		name string
		vars map[string]any
	}{
		{"first 0", map[string]any{"first": 0}},
		{"first 101", map[string]any{"first": 101}},
		{"after garbage", map[string]any{"after": "garbage!"}},
		{"after an items cursor", map[string]any{"after": "MDFhMjAyNDItOWRjYS03NzFiLWJkNGUtY2EzMWMxM2E1NmVj"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.vars["since"] = "2020-01-01T00:00:00Z"
			wantError(t, a.GraphQL(t, changesQuery, c.vars), "BAD_USER_INPUT", 400)
		})
	}
}

const searchGQL = `query($s: String, $folder: ID, $sub: Boolean, $folders: Boolean, $from: Int, $n: Int) {
  search(searchString: $s, folderId: $folder, includeSubfolders: $sub, includeFolders: $folders, from: $from, itemsPerPage: $n) {
    total
    _embedded { collection { id title itemType } }
  }
}`

type searchOut struct {
	Search struct {
		Total    int `json:"total"`
		Embedded struct {
			Collection []struct {
				ID string `json:"id"`
			} `json:"collection"`
		} `json:"_embedded"`
	} `json:"search"`
}

func (s searchOut) ids() []string {
	ids := []string{}
	for _, h := range s.Search.Embedded.Collection {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestSearchQuery(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	top := createItem(t, a, map[string]any{"title": "Top", "itemType": "folder"}).ID
	sub := createItem(t, a, map[string]any{"title": "Sub", "itemType": "folder", "folderParents": []string{top}}).ID
	river := createItem(t, a, map[string]any{"title": "River at dawn", "itemType": "video", "originalFileName": "river-dawn.mxf",
		"folderParents": []string{top}}).ID
	bridge := createItem(t, a, map[string]any{"title": "Bridge", "itemType": "video", "folderParents": []string{sub},
		"metadata": map[string]any{"formData": map[string]any{"default_description": "the river below"}}}).ID
	binned := createItem(t, a, map[string]any{"title": "River binned", "itemType": "video"}).ID
	mutateID(t, a, "deleteItem", binned, "id").OK(nil)
	createItem(t, b, map[string]any{"title": "River of B", "itemType": "video"})

	cases := []struct {
		name  string
		vars  map[string]any
		want  []string
		total int
	}{
		{"nothing asked", nil, []string{bridge, river}, 2},
		{"title before description", map[string]any{"s": "river"}, []string{river, bridge}, 2},
		{"prefix", map[string]any{"s": "riv"}, []string{river, bridge}, 2},
		{"file name", map[string]any{"s": "mxf"}, []string{river}, 1},
		{"metadata", map[string]any{"s": "below"}, []string{bridge}, 1},
		{"folder", map[string]any{"folder": top}, []string{river}, 1},
		{"subfolders", map[string]any{"folder": top, "sub": true}, []string{bridge, river}, 2},
		{"subfolders and folders", map[string]any{"folder": top, "sub": true, "folders": true}, []string{bridge, river, sub}, 3},
		{"folders", map[string]any{"s": "top", "folders": true}, []string{top}, 1},
		{"unknown folder", map[string]any{"folder": missingID}, []string{}, 0},
		{"page", map[string]any{"s": "river", "from": 1, "n": 1}, []string{bridge}, 2},
		{"past the end", map[string]any{"s": "river", "from": 2}, []string{}, 2},
		{"hostile", map[string]any{"s": `a & | ! ( :* ' \\ '; DROP TABLE items; --`}, []string{}, 0},
		{"null arguments", map[string]any{"s": nil, "folder": nil, "sub": nil, "folders": nil, "from": nil, "n": nil}, []string{bridge, river}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out searchOut
			a.GraphQL(t, searchGQL, c.vars).OK(&out)
			if !slices.Equal(out.ids(), c.want) || out.Search.Total != c.total {
				t.Fatalf("hits (total %d)\n got %v\nwant %v (total %d)", out.Search.Total, out.ids(), c.want, c.total)
			}
		})
	}
	t.Run("bad paging", func(t *testing.T) {
		for _, vars := range []map[string]any{{"n": 0}, {"n": 101}, {"from": -1}} {
			wantError(t, a.GraphQL(t, searchGQL, vars), "BAD_USER_INPUT", 400)
		}
	})
}

// A page of hits with nested fields costs the same statements whatever its
// size: the search hints its items to the loaders.
func TestSearchHitsBatchNestedFields(t *testing.T) {
	l := newLibrary(t, 40)
	const query = `query($n: Int) { search(searchString: "clip", itemsPerPage: $n) { total _embedded { collection { ` + nestedFields + ` } } } }`
	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{5, 40, 1} {
			var out struct {
				Search struct {
					Total    int
					Embedded struct{ Collection []nestedItem } `json:"_embedded"`
				}
			}
			counts[n] = append(counts[n], l.statements(t, query, map[string]any{"n": n}, &out))
			if len(out.Search.Embedded.Collection) != n || out.Search.Total != 40 {
				t.Fatalf("itemsPerPage %d: %d hits of %d", n, len(out.Search.Embedded.Collection), out.Search.Total)
			}
			for _, it := range out.Search.Embedded.Collection {
				l.check(t, it)
			}
		}
	}
	t.Logf("statements of search(itemsPerPage: N) with nested fields: %v", counts)
	sameCost(t, "search(itemsPerPage: N)", counts)

	counts = map[int][]int64{}
	const poll = `query($n: Int) { itemChanges(since: "2000-01-01T00:00:00Z", first: $n) { nodes { ` + nestedFields + ` } } }`
	for range rounds {
		for _, n := range []int{5, 40} {
			var out struct {
				ItemChanges struct{ Nodes []nestedItem }
			}
			counts[n] = append(counts[n], l.statements(t, poll, map[string]any{"n": n}, &out))
		}
	}
	t.Logf("statements of itemChanges(first: N) with nested fields: %v", counts)
	sameCost(t, "itemChanges(first: N)", counts)
}

const searchFacetsGQL = `query($s: String, $filter: SearchFilter, $field: String, $n: Int) {
  search(searchString: $s, filter: $filter, facetField: $field, itemsPerPage: $n) {
    total totalIsEstimate
    _embedded { collection { id } }
    facets { isEstimate sampleSize itemTypes { value count } metadataForms { value count } field fieldValues { value count } }
  }
}`

type facetCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

type searchFacetsOut struct {
	Search struct {
		Total           int  `json:"total"`
		TotalIsEstimate bool `json:"totalIsEstimate"`
		Embedded        struct {
			Collection []struct {
				ID string `json:"id"`
			} `json:"collection"`
		} `json:"_embedded"`
		Facets struct {
			IsEstimate    bool         `json:"isEstimate"`
			SampleSize    int          `json:"sampleSize"`
			ItemTypes     []facetCount `json:"itemTypes"`
			MetadataForms []facetCount `json:"metadataForms"`
			Field         *string      `json:"field"`
			FieldValues   []facetCount `json:"fieldValues"`
		} `json:"facets"`
	} `json:"search"`
}

func (s searchFacetsOut) ids() []string {
	ids := []string{}
	for _, h := range s.Search.Embedded.Collection {
		ids = append(ids, h.ID)
	}
	return ids
}

func facetString(cs []facetCount) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%d", c.Value, c.Count)
	}
	return s
}

func TestSearchFiltersAndFacets(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	mk := func(title, typ string, tags any) string {
		return createItem(t, a, map[string]any{"title": title, "itemType": typ,
			"metadata": map[string]any{"formData": map[string]any{"tags": tags, "default_description": "river"}}}).ID
	}
	boat := mk("Boat on the river", "video", []string{"water", "boats"})
	photo := mk("River photo", "image", []string{"water"})
	song := mk("River song", "audio", "music")
	cases := []struct {
		name   string
		vars   map[string]any
		want   []string
		types  string
		values string
	}{
		// All in the title tier: newest first.
		{"everything", map[string]any{"s": "river", "field": "tags"}, []string{song, photo, boat},
			"audio:1 image:1 video:1", "water:2 boats:1 music:1"},
		{"item types", map[string]any{"s": "river", "filter": map[string]any{"itemTypes": []string{"video", "audio"}}},
			[]string{song, boat}, "audio:1 video:1", ""},
		{"a multiple-choice element", map[string]any{"filter": map[string]any{"metadata": []any{
			map[string]any{"field": "tags", "value": "water"}}}, "field": "tags"},
			[]string{photo, boat}, "image:1 video:1", "water:2 boats:1"},
		{"two metadata values", map[string]any{"filter": map[string]any{"metadata": []any{
			map[string]any{"field": "tags", "value": "water"}, map[string]any{"field": "tags", "value": "boats"}}}},
			[]string{boat}, "video:1", ""},
		{"the REST spelling", map[string]any{"filter": map[string]any{"metadataField": "tags", "metadataValue": "music"}},
			[]string{song}, "audio:1", ""},
		{"processing state", map[string]any{"filter": map[string]any{"transcodingStates": []string{"failed"}}},
			[]string{}, "", ""},
		{"created after", map[string]any{"filter": map[string]any{"createdFrom": "2100-01-01T00:00:00Z"}}, []string{}, "", ""},
		{"created before", map[string]any{"s": "boat", "filter": map[string]any{"createdTo": "2100-01-01T00:00:00Z"}},
			[]string{boat}, "video:1", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out searchFacetsOut
			a.GraphQL(t, searchFacetsGQL, c.vars).OK(&out)
			f := out.Search.Facets
			if !slices.Equal(out.ids(), c.want) || out.Search.Total != len(c.want) || out.Search.TotalIsEstimate {
				t.Fatalf("hits (total %d, estimate %v)\n got %v\nwant %v", out.Search.Total, out.Search.TotalIsEstimate, out.ids(), c.want)
			}
			if got := facetString(f.ItemTypes); got != c.types {
				t.Errorf("item types %q, want %q", got, c.types)
			}
			if got := facetString(f.FieldValues); got != c.values {
				t.Errorf("field values %q, want %q", got, c.values)
			}
			if len(c.want) > 0 && facetString(f.MetadataForms) != fmt.Sprintf("default:%d", len(c.want)) {
				t.Errorf("forms %v", f.MetadataForms)
			}
		})
	}
	t.Run("past the bound", func(t *testing.T) {
		api.Store.SetSearchExactBound(2)
		defer api.Store.SetSearchExactBound(10000)
		var out searchFacetsOut
		a.GraphQL(t, searchFacetsGQL, map[string]any{"s": "river", "n": 2}).OK(&out)
		if s := out.Search; !s.TotalIsEstimate || s.Total < 3 || !s.Facets.IsEstimate || s.Facets.SampleSize != 3 ||
			!slices.Equal(out.ids(), []string{song, photo}) {
			t.Fatalf("%+v", s)
		}
	})
	t.Run("bad filters", func(t *testing.T) {
		for _, vars := range []map[string]any{
			{"filter": map[string]any{"transcodingStates": []string{"done"}}},
			{"filter": map[string]any{"metadataField": "tags"}},
			{"filter": map[string]any{"metadata": []any{map[string]any{"field": "no spaces", "value": "x"}}}},
			{"filter": map[string]any{"createdFrom": "2025-01-02T00:00:00Z", "createdTo": "2025-01-01T00:00:00Z"}},
			{"filter": map[string]any{"createdFrom": "yesterday"}},
			{"field": "a.b"},
		} {
			wantError(t, a.GraphQL(t, searchFacetsGQL, vars), "BAD_USER_INPUT", 400)
		}
	})
}

// Item.transcriptMatches of a page of hits is one query, whatever the
// page's size, and null outside a search.
func TestSearchTranscriptMatchesAreBatched(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for i := range 12 {
		id := createItem(t, a, map[string]any{"title": fmt.Sprintf("Take %d", i), "itemType": "video"}).ID
		if i%4 == 0 {
			continue // no transcript
		}
		a.GraphQL(t, `mutation($in: UpdateTranscriptInput!) { updateTranscript(input: $in) { itemId } }`,
			map[string]any{"in": map[string]any{"itemId": id, "languageCode": "en-US", "timedTranscript": []any{
				map[string]any{"content": "Roll camera.", "startTime": 0, "endTime": 900},
				map[string]any{"content": fmt.Sprintf("Take %d, action.", i), "startTime": 1000, "endTime": 2500}}}}).OK(nil)
	}
	const query = `query($n: Int) { search(searchString: "take", itemsPerPage: $n) {
  _embedded { collection { id title transcriptMatches { languageCode start end text } } } } }`
	type out struct {
		Search struct {
			Embedded struct {
				Collection []struct {
					Title             string `json:"title"`
					TranscriptMatches []struct {
						Start, End float64
						Text       string
					} `json:"transcriptMatches"`
				} `json:"collection"`
			} `json:"_embedded"`
		} `json:"search"`
	}
	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{1, 5, 12} {
			api.Statements.Reset()
			r := a.GraphQL(t, query, map[string]any{"n": n})
			counts[n] = append(counts[n], api.Statements.Count())
			var o out
			r.OK(&o)
			if len(o.Search.Embedded.Collection) != n {
				t.Fatalf("itemsPerPage %d: %d hits", n, len(o.Search.Embedded.Collection))
			}
			for _, h := range o.Search.Embedded.Collection {
				var i int
				fmt.Sscanf(h.Title, "Take %d", &i)
				m := h.TranscriptMatches
				if i%4 == 0 && len(m) != 0 || i%4 != 0 && (len(m) != 1 || m[0].Start != 1 || m[0].End != 2.5 ||
					m[0].Text != fmt.Sprintf("Take %d, action.", i)) {
					t.Fatalf("%s: matches %+v", h.Title, m)
				}
			}
		}
	}
	sameCost(t, "search(itemsPerPage: N) { transcriptMatches }", counts)
	var item struct {
		Item struct {
			TranscriptMatches []any `json:"transcriptMatches"`
		} `json:"item"`
	}
	id := createItem(t, a, map[string]any{"title": "Take outside", "itemType": "video"}).ID
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { transcriptMatches { text } } }`, map[string]any{"id": id}).OK(&item)
	if item.Item.TranscriptMatches != nil {
		t.Fatalf("outside a search: %v", item.Item.TranscriptMatches)
	}
}
