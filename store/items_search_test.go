package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/store"
)

func TestSearchTerms(t *testing.T) {
	cases := []struct {
		in      string
		words   string
		phrases []string
	}{
		{"red car", "red car", nil},
		{`"red car"`, "", []string{"red car"}},
		{`sunset "red car" harbour`, "sunset harbour", []string{"red car"}},
		{`"red car" "blue boat"`, "", []string{"red car", "blue boat"}},
		{`an "open quote`, "an open quote", nil},
		{`""`, "", nil},
		{`"   "`, "", nil},
		{"\u201cred car\u201d", "", []string{"red car"}},
		{`a "b" c "d`, "a c d", []string{"b"}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			words, phrases := store.SearchTerms(c.in)
			// Blanks between the loose words do not matter.
			words = strings.Join(strings.Fields(words), " ")
			if words != c.words || !slices.Equal(phrases, c.phrases) {
				t.Fatalf("SearchTerms(%q) = %q, %q; want %q, %q", c.in, words, phrases, c.words, c.phrases)
			}
		})
	}
}

var placeholderRE = regexp.MustCompile(`\$(\d+)`)

// TestSearchStatements checks how the statements are built: every
// argument has its placeholder and every placeholder its argument, the
// filters and the access filter are where they belong, the facets and the
// tiers only where asked.
func TestSearchStatements(t *testing.T) {
	admin := &loupe.Principal{TenantID: "01a20242-9dca-771b-bd4e-ca31c13a56ec", IsAdmin: true}
	user := &loupe.Principal{TenantID: admin.TenantID, UserID: "01a20242-9dca-771b-bd4e-ca31c13a56ed", Tokens: []string{"g"}}
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	full := store.SearchQuery{Text: `sunset "red car"`, FolderID: admin.TenantID, IncludeSubfolders: true, Size: 25,
		ItemTypes: []string{"video", "audio"}, TranscodingStates: []string{"failed"}, CreatedFrom: &from, CreatedTo: &to,
		Metadata: []store.MetadataMatch{{Field: "f1", Value: "v1"}, {Field: "f2", Value: "v2"}}, Facets: true, FacetField: "loc"}
	cases := []struct {
		name       string
		p          *loupe.Principal
		q          store.SearchQuery
		kind       string
		tier       int
		want, none []string
	}{
		{"hits, words only", admin, store.SearchQuery{Text: "sunset", Size: 25}, "hits", 0,
			[]string{"LIMIT $", "ORDER BY i.created_on DESC, i.id DESC LIMIT", "i.search @@ $2::tsquery",
				"CASE WHEN h.search @@ $", "'tier'", "'hit'", "item_type <> 'folder'"},
			[]string{"'itemType'", "WITH RECURSIVE", "loupe_admits", "item_folders", "ANY(", "created_on >=", "ts_filter"}},
		{"hits, everything", admin, full, "hits", 0,
			[]string{"WITH RECURSIVE scope", "item_folders", "i.item_type = ANY(", "i.transcoding_state = ANY(",
				"i.created_on >= ", "i.created_on < ", "metadata_form_data ->> ", "'itemType'", "'form'", "'field'",
				"metadata_form_data -> $"},
			[]string{"loupe_admits"}},
		{"hits, folders included, no words", admin, store.SearchQuery{Size: 25, IncludeFolders: true, FolderID: admin.TenantID}, "hits", 0,
			[]string{"WITH scope(id)", "ORDER BY i.created_on DESC"}, []string{"item_type <> 'folder'", "RECURSIVE", "@@", "tsquery"}},
		{"hits, non-admin", user, full, "hits", 0, []string{"loupe_admits(r.visible_to", "loupe_admits(vf.visible_to"}, nil},
		{"estimate", user, full, "estimate", 0, []string{"EXPLAIN (FORMAT JSON) WITH RECURSIVE", "i.search @@"}, []string{"LIMIT"}},
		{"walk, title tier", admin, full, "walk", 0, []string{"w.search @@ $", "ORDER BY i.created_on DESC, i.id DESC LIMIT"},
			[]string{"AND NOT", "ts_filter"}},
		{"walk, transcript tier", admin, full, "walk", 3,
			[]string{"w.search @@", "AND NOT w.search @@"}, []string{"ts_filter"}},
		{"index, file name tier", user, full, "tier", 1,
			[]string{"tier AS MATERIALIZED", "ts_filter(i.search, '{a,b}') @@", "AND NOT i.search @@", "loupe_admits"}, []string{"ts_filter(i.search, '{a}')"}},
		{"list", admin, store.SearchQuery{Size: 25, ItemTypes: []string{"video"}}, "list", 0,
			[]string{"ORDER BY i.created_on DESC, i.id DESC LIMIT $3", "i.item_type = ANY($2::text[])"}, []string{"@@", "WITH"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			query, args := store.SearchStatement(c.p, c.q, c.kind, c.tier, 26)
			used := map[int]bool{}
			for _, m := range placeholderRE.FindAllStringSubmatch(query, -1) {
				n, _ := strconv.Atoi(m[1])
				used[n] = true
			}
			for n := 1; n <= len(args); n++ {
				if !used[n] {
					t.Errorf("argument $%d (%v) is not used", n, args[n-1])
				}
			}
			if len(used) != len(args) {
				t.Errorf("%d placeholders for %d arguments", len(used), len(args))
			}
			for _, w := range c.want {
				if !strings.Contains(query, w) {
					t.Errorf("the statement lacks %q", w)
				}
			}
			for _, w := range c.none {
				if strings.Contains(query, w) {
					t.Errorf("the statement holds %q", w)
				}
			}
			if t.Failed() {
				t.Logf("%s\n%v", query, args)
			}
		})
	}
}

// searchWorld is a store on a fresh database with a tenant and its admin.
func searchWorld(t *testing.T) (*store.Store, *sql.DB, *loupe.Principal) {
	t.Helper()
	raw, err := sql.Open("postgres", store.DSN(pgtest.DB(t)))
	if err != nil {
		t.Fatal(err)
	}
	db := store.NewDB(raw, 4)
	t.Cleanup(func() { db.Close() })
	st := store.New(db)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.CreateTenant(context.Background(), "a", "admin@a.test", store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	return st, raw, &loupe.Principal{TenantID: out.TenantID, UserID: out.UserID, Email: "admin@a.test", IsAdmin: true}
}

// doc is an item to search for, created age hours ago.
type doc struct {
	title, file, meta, said string
	age                     int
	itemType, state         string
}

func addDocs(t *testing.T, db *sql.DB, p *loupe.Principal, docs []doc) []string {
	t.Helper()
	ids := make([]string, len(docs))
	now := time.Now().UTC()
	for i, d := range docs {
		ids[i] = loupe.NewID()
		typ, state := d.itemType, d.state
		if typ == "" {
			typ = "video"
		}
		if state == "" {
			state = "none"
		}
		said := sql.NullString{String: d.said, Valid: d.said != ""}
		meta := fmt.Sprintf(`{"default_description": %q, "genre": %q, "tags": ["t%d", "all"]}`, d.meta, typ+"-genre", i%3)
		at := now.Add(-time.Duration(d.age) * time.Hour)
		if _, err := db.Exec(`INSERT INTO items (tenant_id, id, item_type, title, original_file_name, created_by,
  created_on, modified_on, metadata_form_data, transcript_text, transcoding_state)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10)`, p.TenantID, ids[i], typ, d.title, d.file, p.UserID, at, meta, said,
			state); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func searchIDs(t *testing.T, st *store.Store, p *loupe.Principal, q store.SearchQuery) ([]string, *store.SearchPage) {
	t.Helper()
	if q.Size == 0 {
		q.Size = 100
	}
	res, err := st.Search(context.Background(), p, q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	ids := []string{}
	for _, it := range res.Items {
		ids = append(ids, it.ID)
	}
	return ids, res
}

// TestSearchRanksByTierThenRecency: a title match (tier A) before a file
// name match (B), before a metadata match (C), before a transcript match
// (D), whatever their age; newest first within a tier. The same order
// whether the hits are counted exactly (the page cut in the first
// statement) or past the bound (the page walked tier by tier).
func TestSearchRanksByTierThenRecency(t *testing.T) {
	st, db, p := searchWorld(t)
	ids := addDocs(t, db, p, []doc{
		{title: "Harbour at dusk", age: 50},                               // 0 A, oldest
		{title: "Studio", file: "harbour_b.mov", age: 1},                  // 1 B, newest
		{title: "Field", meta: "the harbour wall", age: 2},                // 2 C
		{title: "Talk", said: "we met at the harbour", age: 0},            // 3 D, newest of all
		{title: "Harbourmaster", age: 10},                                 // 4 A
		{title: "Harbour", file: "harbour.mov", meta: "harbour", age: 30}, // 5 A (also B, C)
		{title: "Nothing here", file: "x.mov", age: 3},                    // 6 no hit
		{title: "Old reel", file: "old_harbour.mov", age: 100},            // 7 B
		{title: "Quay", meta: "harbour", said: "harbour", age: 5},         // 8 C (also D)
	})
	want := []string{ids[4], ids[5], ids[0], ids[1], ids[7], ids[2], ids[8], ids[3]}
	for _, bound := range []int{10000, 1, 3} {
		st.SetSearchExactBound(bound)
		t.Run(fmt.Sprintf("bound %d", bound), func(t *testing.T) {
			got, res := searchIDs(t, st, p, store.SearchQuery{Text: "harb"})
			if !slices.Equal(got, want) {
				t.Fatalf("hits\n got %v\nwant %v", got, want)
			}
			if res.TotalIsEstimate != (bound < len(want)) {
				t.Fatalf("total %d, estimate %v with bound %d", res.Total, res.TotalIsEstimate, bound)
			}
			if !res.TotalIsEstimate && res.Total != len(want) {
				t.Fatalf("total %d, want %d", res.Total, len(want))
			}
			if res.TotalIsEstimate && res.Total < bound+1 {
				t.Fatalf("estimated total %d below the bound %d", res.Total, bound)
			}
			for from := 0; from < len(want); from++ {
				for _, size := range []int{1, 2, 3} {
					got, _ := searchIDs(t, st, p, store.SearchQuery{Text: "harb", From: from, Size: size})
					if w := want[from:min(len(want), from+size)]; !slices.Equal(got, w) {
						t.Fatalf("from %d size %d: %v, want %v", from, size, got, w)
					}
				}
			}
		})
	}
	st.SetSearchExactBound(10000)
	t.Run("all the words in one tier", func(t *testing.T) {
		// "harbour dusk": both in the title of 0; "harbour wall" both in
		// the metadata of 2 (C); "studio harbour": title and file name of
		// 1 (B).
		for text, w := range map[string][]string{"harbour dusk": {ids[0]}, "field wall": {ids[2]},
			"studio harbour": {ids[1]}, "quay harbour": {ids[8]}, "talk met": {ids[3]}} {
			if got, _ := searchIDs(t, st, p, store.SearchQuery{Text: text}); !slices.Equal(got, w) {
				t.Errorf("%q: %v, want %v", text, got, w)
			}
		}
	})
}

// TestSearchEstimatedPagesMatchExact: past the bound the page is walked
// tier by tier (with or without the tier's index); it must be the page
// the exact path cuts, for every page of many random searches.
func TestSearchEstimatedPagesMatchExact(t *testing.T) {
	st, db, p := searchWorld(t)
	words := []string{"alpha", "beta", "gamma", "delta", "omega"}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
	}
	var docs []doc
	for i := range 300 {
		docs = append(docs, doc{title: pick() + " t", file: strings.ReplaceAll(pick(), " ", "_") + ".mov", meta: pick(),
			said: pick(), age: r.IntN(1000), itemType: []string{"video", "image", "audio"}[i%3]})
	}
	addDocs(t, db, p, docs)
	for _, text := range []string{"alpha", "gam", "beta delta", "omega alpha", "t", `"alpha beta"`, ""} {
		for _, types := range [][]string{nil, {"audio"}} {
			for _, page := range []struct{ from, size int }{{0, 25}, {0, 100}, {50, 7}, {190, 20}} {
				q := store.SearchQuery{Text: text, ItemTypes: types, From: page.from, Size: page.size}
				st.SetSearchExactBound(10000)
				exact, res := searchIDs(t, st, p, q)
				if res.TotalIsEstimate {
					t.Fatalf("%+v: an estimate under the bound", q)
				}
				st.SetSearchExactBound(5)
				walked, res2 := searchIDs(t, st, p, q)
				if !slices.Equal(exact, walked) {
					t.Fatalf("%+v (total %d, estimate %v):\nexact  %v\nwalked %v", q, res.Total, res2.TotalIsEstimate, exact, walked)
				}
				if res.Total > 5 && (!res2.TotalIsEstimate || res2.Total < 6) {
					t.Fatalf("%+v: total %d past the bound 5: %d, estimate %v", q, res.Total, res2.Total, res2.TotalIsEstimate)
				}
			}
		}
	}
}

func TestSearchPhrasesAndFilters(t *testing.T) {
	st, db, p := searchWorld(t)
	ids := addDocs(t, db, p, []doc{
		{title: "A red car passes", age: 1, itemType: "video", state: "complete"}, // 0
		{title: "A car, red", age: 2, itemType: "image", state: "failed"},         // 1
		{title: "Red cars", age: 3, itemType: "audio"},                            // 2
		{title: "Other", said: "the red car again", age: 4},                       // 3
	})
	now := time.Now().UTC()
	from, to := now.Add(-150*time.Minute), now.Add(-30*time.Minute)
	cases := []struct {
		name string
		q    store.SearchQuery
		want []string
	}{
		{"words anywhere", store.SearchQuery{Text: "red car"}, []string{ids[0], ids[1], ids[2], ids[3]}},
		{"phrase", store.SearchQuery{Text: `"red car"`}, []string{ids[0], ids[3]}},
		{"phrase words are whole", store.SearchQuery{Text: `"red ca"`}, []string{}},
		{"phrase and word", store.SearchQuery{Text: `passes "red car"`}, []string{ids[0]}},
		{"curly quotes", store.SearchQuery{Text: "\u201cred car\u201d"}, []string{ids[0], ids[3]}},
		{"open quote is words", store.SearchQuery{Text: `"car red`}, []string{ids[0], ids[1], ids[2], ids[3]}},
		{"types", store.SearchQuery{Text: "red", ItemTypes: []string{"image", "audio"}}, []string{ids[1], ids[2]}},
		{"state", store.SearchQuery{TranscodingStates: []string{"failed", "complete"}}, []string{ids[0], ids[1]}},
		{"created range", store.SearchQuery{CreatedFrom: &from, CreatedTo: &to}, []string{ids[0], ids[1]}},
		{"created from", store.SearchQuery{CreatedFrom: &from}, []string{ids[0], ids[1]}},
		{"created to", store.SearchQuery{CreatedTo: &to}, []string{ids[0], ids[1], ids[2], ids[3]}},
		{"metadata value", store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "genre", Value: "image-genre"}}}, []string{ids[1]}},
		{"metadata list element", store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "tags", Value: "t1"}}}, []string{ids[1]}},
		{"metadata, all of them", store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "tags", Value: "all"},
			{Field: "genre", Value: "video-genre"}}}, []string{ids[0], ids[3]}},
		{"metadata is exact", store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "genre", Value: "image"}}}, []string{}},
		{"metadata other field", store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "nope", Value: "image-genre"}}}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, res := searchIDs(t, st, p, c.q); !slices.Equal(got, c.want) || res.Total != len(c.want) {
				t.Fatalf("hits (total %d)\n got %v\nwant %v", res.Total, got, c.want)
			}
		})
	}
	t.Run("facets", func(t *testing.T) {
		_, res := searchIDs(t, st, p, store.SearchQuery{Text: "red", Facets: true, FacetField: "tags"})
		f := res.Facets
		if f == nil || f.IsEstimate || f.Field == nil || *f.Field != "tags" {
			t.Fatalf("facets %+v", f)
		}
		counts := func(cs []*store.SearchFacetCount) string {
			var s []string
			for _, c := range cs {
				s = append(s, fmt.Sprintf("%s:%d", c.Value, c.Count))
			}
			return strings.Join(s, " ")
		}
		if got, want := counts(f.ItemTypes), "video:2 audio:1 image:1"; got != want {
			t.Errorf("item types %q, want %q", got, want)
		}
		if got, want := counts(f.MetadataForms), "default:4"; got != want {
			t.Errorf("forms %q, want %q", got, want)
		}
		if got, want := counts(f.FieldValues), "all:4 t0:2 t1:1 t2:1"; got != want {
			t.Errorf("field values %q, want %q", got, want)
		}
		st.SetSearchExactBound(2)
		defer st.SetSearchExactBound(10000)
		_, res = searchIDs(t, st, p, store.SearchQuery{Text: "red", Facets: true})
		if f := res.Facets; !f.IsEstimate || f.SampleSize != 3 || !res.TotalIsEstimate || len(f.ItemTypes) == 0 {
			t.Fatalf("past the bound: total %d, facets %+v", res.Total, f)
		}
		if _, res = searchIDs(t, st, p, store.SearchQuery{Text: "red"}); res.Facets != nil {
			t.Fatalf("facets not asked for: %+v", res.Facets)
		}
	})
}

func TestSearchRefusesBadFilters(t *testing.T) {
	bad := []struct {
		q       store.SearchQuery
		message string
	}{
		{store.SearchQuery{TranscodingStates: []string{"done"}}, `transcodingState must be one of none, queued, processing, complete, failed, skipped, got "done"`},
		{store.SearchQuery{ItemTypes: []string{""}}, "itemType must not be empty"},
		{store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "a b", Value: "x"}}}, `metadataField must be a form field's id (1 to 128 letters, digits, _ or -), got "a b"`},
		{store.SearchQuery{FacetField: "a.b"}, `facetField must be a form field's id (1 to 128 letters, digits, _ or -), got "a.b"`},
		{store.SearchQuery{CreatedFrom: ptr(time.Unix(2, 0)), CreatedTo: ptr(time.Unix(1, 0))}, "createdTo must not be before createdFrom"},
		{store.SearchQuery{ItemTypes: make([]string, 51)}, "itemType takes at most 50 values"},
		{store.SearchQuery{Metadata: []store.MetadataMatch{{Field: "a", Value: "x\x00"}}}, "metadataValue: must not contain the NUL character (U+0000)"},
	}
	for _, c := range bad {
		c.q.Size = 25
		err := c.q.Validate()
		if e, ok := err.(*loupe.Error); !ok || e.Kind != loupe.EINVALID || e.Message != c.message {
			t.Errorf("%+v: %v, want %q", c.q, err, c.message)
		}
	}
}

func TestTranscriptMatches(t *testing.T) {
	st, db, p := searchWorld(t)
	ids := addDocs(t, db, p, []doc{{title: "One"}, {title: "Two"}, {title: "Three"}})
	seg := func(content string, start, end int) map[string]any {
		return map[string]any{"content": content, "startTime": start, "endTime": end}
	}
	for _, w := range []struct {
		id, lang string
		segs     []map[string]any
	}{
		{ids[0], "en-US", []map[string]any{seg("Hello there", 0, 1500), seg("the red car is here", 1500, 4250),
			seg("car red", 4250, 5000), seg("Redwood", 6000, 7000)}},
		{ids[0], "fr-FR", []map[string]any{seg("la voiture rouge", 0, 1000)}},
		{ids[1], "en-US", []map[string]any{seg("nothing to see", 0, 1000)}},
	} {
		if _, _, err := st.WriteTranscript(context.Background(), store.TranscriptWrite{TenantID: p.TenantID, ItemID: w.id,
			LanguageCode: w.lang, Segments: segments(w.segs), Key: "k/" + w.id + w.lang + ".json", UserID: p.UserID}); err != nil {
			t.Fatal(err)
		}
	}
	got := func(text string) string {
		m, err := st.TranscriptMatches(context.Background(), p.TenantID, text, ids)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for i, id := range ids {
			for _, x := range m[id] {
				s = append(s, fmt.Sprintf("%d %s %.2f-%.2f %s", i, x.LanguageCode, x.Start(), x.End(), x.Text))
			}
		}
		return strings.Join(s, "; ")
	}
	cases := map[string]string{
		"red":       "0 en-US 1.50-4.25 the red car is here; 0 en-US 4.25-5.00 car red; 0 en-US 6.00-7.00 Redwood",
		`"red car"`: "0 en-US 1.50-4.25 the red car is here",
		"rouge":     "0 fr-FR 0.00-1.00 la voiture rouge",
		"zebra":     "",
		"":          "",
		"!!!":       "",
	}
	for text, want := range cases {
		if g := got(text); g != want {
			t.Errorf("%q:\n got %s\nwant %s", text, g, want)
		}
	}
}

func segments(list []map[string]any) []*loupe.TranscriptSegment {
	out := make([]*loupe.TranscriptSegment, len(list))
	for i, s := range list {
		out[i] = &loupe.TranscriptSegment{Content: s["content"].(string), StartTime: int64(s["startTime"].(int)),
			EndTime: int64(s["endTime"].(int))}
	}
	return out
}

// TestSearchFindsDetectedText: the text detected in an item's pictures
// (timed metadata of the default_detected_text form, as text detection
// writes it) is searched with the transcripts, in the last tier; a removed
// entry is no longer found, and a transcript written afterwards keeps it.
func TestSearchFindsDetectedText(t *testing.T) {
	st, db, p := searchWorld(t)
	ctx := context.Background()
	ids := addDocs(t, db, p, []doc{{title: "Lobby camera"}, {title: "Emergency drill", age: 5}, {title: "Stairs"}})
	form := "default_detected_text"
	entry := func(id string, start int64, text string) loupe.TimedMetadataInput {
		return loupe.TimedMetadataInput{ID: id, StartMs: start, EndMs: start + 2000,
			Data: loupe.ItemMetadataInput{FormID: &form, FormData: loupe.JSON(fmt.Sprintf(`{"default_text": %q}`, text))}}
	}
	if _, err := st.UpdateTimedMetadata(ctx, p.TenantID, ids[0], []loupe.TimedMetadataInput{
		entry("detected-text-0", 0, "EMERGENCY EXIT\nkeep clear"), entry("detected-text-4000", 4000, "Floor 3")}, nil); err != nil {
		t.Fatal(err)
	}
	// A user's own timed metadata in another form is not searched.
	if _, err := st.UpdateTimedMetadata(ctx, p.TenantID, ids[2], []loupe.TimedMetadataInput{
		{ID: "note", StartMs: 0, EndMs: 1000, Data: loupe.ItemMetadataInput{FormData: loupe.JSON(`{"default_description": "emergency"}`)}}}, nil); err != nil {
		t.Fatal(err)
	}
	want := func(text string, expect ...string) {
		t.Helper()
		got, _ := searchIDs(t, st, p, store.SearchQuery{Text: text})
		if !slices.Equal(got, expect) {
			t.Errorf("%q: got %v, want %v (title hit %s, detected text on %s)", text, got, expect, ids[1], ids[0])
		}
	}
	want("emergency", ids[1], ids[0]) // the title first, then the detected text, though newer
	want(`"keep clear"`, ids[0])
	want("floor", ids[0])
	if _, _, err := st.WriteTranscript(ctx, store.TranscriptWrite{TenantID: p.TenantID, ItemID: ids[0], LanguageCode: "en-US",
		Segments: segments([]map[string]any{{"content": "mind the step", "startTime": 0, "endTime": 1000}}),
		Key:      "k/" + ids[0] + ".json", UserID: p.UserID}); err != nil {
		t.Fatal(err)
	}
	want("step", ids[0])
	want("floor", ids[0])
	if _, err := st.UpdateTimedMetadata(ctx, p.TenantID, ids[0], nil, []string{"detected-text-4000"}); err != nil {
		t.Fatal(err)
	}
	want("floor")
	want("emergency", ids[1], ids[0])
	want("step", ids[0])
}
