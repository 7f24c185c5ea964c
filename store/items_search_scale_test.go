package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// TestSearchScalePlans times searches and explains their statements on a
// large database (docs/search.md, "Plans at scale"): set
// LOUPE_SEARCH_SCALE_URL to its URL and LOUPE_SEARCH_SCALE_TENANT to the
// tenant (loupe-bench --hold prints both). Skipped otherwise.
func TestSearchScalePlans(t *testing.T) {
	url, tenant := os.Getenv("LOUPE_SEARCH_SCALE_URL"), os.Getenv("LOUPE_SEARCH_SCALE_TENANT")
	if url == "" || tenant == "" {
		t.Skip("LOUPE_SEARCH_SCALE_URL and LOUPE_SEARCH_SCALE_TENANT not set")
	}
	raw, err := sql.Open("postgres", store.DSN(url))
	if err != nil {
		t.Fatal(err)
	}
	db := store.NewDB(raw, 4)
	defer db.Close()
	st := store.New(db)
	p := &loupe.Principal{TenantID: tenant, IsAdmin: true}
	ctx := context.Background()
	queries := []store.SearchQuery{
		{Text: "004711"},
		{Text: "news"},
		{Text: "berlin"},
		{Text: "interview"},
		{Text: "b"},
		{Text: ""},
		{Text: `"red car"`},
		{Text: "mayor"},
		{Text: "news berlin"},
		{Text: "berlin", ItemTypes: []string{"video"}, Facets: true, FacetField: "default_location"},
		{Text: "", ItemTypes: []string{"audio"}, TranscodingStates: []string{"failed"}, Facets: true, FacetField: "default_producer"},
		{Text: "interview", From: 5000},
	}
	if text, ok := os.LookupEnv("LOUPE_SEARCH_SCALE_QUERY"); ok {
		queries = []store.SearchQuery{{Text: text}}
	}
	for _, q := range queries {
		q.Size = 25
		var took []time.Duration
		var res *store.SearchPage
		for range 5 {
			start := time.Now()
			if res, err = st.Search(ctx, p, q); err != nil {
				t.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		t.Logf("%+v: total %d (estimate %v), %d hits; took %v", q, res.Total, res.TotalIsEstimate, len(res.Items), took)
		if os.Getenv("LOUPE_SEARCH_SCALE_EXPLAIN") == "" {
			continue
		}
		for _, kind := range []string{"hits", "walk", "tier"} {
			tiers := []int{0}
			if kind != "hits" {
				tiers = []int{0, 1, 2, 3}
			}
			for _, tier := range tiers {
				query, args := store.SearchStatement(p, q, kind, tier, st.SearchExactBound()+1)
				if kind != "hits" {
					query, args = store.SearchStatement(p, q, kind, tier, q.From+q.Size)
				}
				rows, err := raw.QueryContext(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "+query, args...)
				if err != nil {
					t.Fatal(err)
				}
				var plan []string
				for rows.Next() {
					var line string
					_ = rows.Scan(&line)
					plan = append(plan, line)
				}
				rows.Close()
				t.Logf("%s %d:\n%s", kind, tier, strings.Join(plan, "\n"))
			}
		}
	}
	fmt.Fprintln(os.Stderr)
}
