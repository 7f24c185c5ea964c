package rest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// benchItems is how many items BenchmarkSearch seeds.
const benchItems = 5000

// seedSearch puts n items into c's tenant behind the API (creating them one
// by one over HTTP would take most of the benchmark's time): titles, file
// names and descriptions drawn from 20 words, every 50th item a folder, the
// rest spread over the folders.
func seedSearch(b *testing.B, api *loupetest.API, c *loupetest.Client, n int) {
	b.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = loupe.NewID()
	}
	if _, err := api.DB.Exec(`
WITH words AS (SELECT ARRAY['sunset','harbour','interview','mayor','city','hall','raw','footage','timelapse','portrait',
                            'street','zebra','crossing','night','market','river','bridge','concert','press','drone'] w),
     ids AS (SELECT id, g FROM unnest($3::uuid[]) WITH ORDINALITY AS t(id, g))
INSERT INTO items (tenant_id, id, item_type, title, original_file_name, created_by, created_on, modified_on, metadata_form_data)
SELECT $1, ids.id, CASE WHEN g % 50 = 0 THEN 'folder' ELSE 'video' END,
       initcap(w[1 + (g*7) % 20]) || ' ' || w[1 + (g*13) % 20] || ' ' || g,
       w[1 + (g*3) % 20] || '_' || g || '.mov', $2, now(), now(),
       jsonb_build_object('default_description', w[1 + (g*11) % 20] || ' ' || w[1 + (g*17) % 20], 'reel', g)
FROM ids, words`, c.TenantID, c.UserID, pq.StringArray(ids)); err != nil {
		b.Fatal(err)
	}
	if _, err := api.DB.Exec(`
WITH f AS (SELECT id, row_number() OVER (ORDER BY id) AS rn, count(*) OVER () AS n
           FROM items WHERE tenant_id = $1 AND item_type = 'folder' AND title <> 'Archive'),
     v AS (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM items WHERE tenant_id = $1 AND item_type = 'video')
INSERT INTO item_folders (tenant_id, item_id, folder_id, position)
SELECT $1, v.id, f.id, 0 FROM v JOIN f ON f.rn = 1 + v.rn % f.n
UNION ALL
SELECT $1, c.id, p.id, 0 FROM f c JOIN f p ON p.rn = c.rn - 1`, c.TenantID); err != nil {
		b.Fatal(err)
	}
	if _, err := api.DB.Exec(`ANALYZE items; ANALYZE item_folders`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSearch measures GET /api/v1/search end to end over loopback on
// 5000 items (and as many of another tenant): authentication (cached), the count and
// the page query, 25 hits as JSON. It reports SQL statements per request.
func BenchmarkSearch(b *testing.B) {
	api := loupetest.New(b)
	a := api.Tenant(b, "bench")
	seedSearch(b, api, a, benchItems)
	seedSearch(b, api, api.Tenant(b, "other"), benchItems)
	var top string
	if err := api.DB.Get(&top, `SELECT id FROM items WHERE tenant_id = $1 AND item_type = 'folder' AND title <> 'Archive'
		ORDER BY id LIMIT 1`, a.TenantID); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	cases := []struct {
		name  string
		query url.Values
	}{
		{"common word", url.Values{"searchString": {"sunset"}}},
		{"two words", url.Values{"searchString": {"sunset harbour"}}},
		{"prefix", url.Values{"searchString": {"s"}}},
		{"number", url.Values{"searchString": {"4711"}}},
		{"no match", url.Values{"searchString": {"nothing"}}},
		{"everything", url.Values{}},
		{"everything deep page", url.Values{"from": {"4000"}}},
		{"subfolders", url.Values{"folderId": {top}, "includeSubfolders": {"true"}, "searchString": {"mayor"}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			u := api.URL + "/api/v1/search?" + c.query.Encode()
			api.Statements.Reset()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				benchDo(b, client, a.Key, "GET", u, "")
			}
			b.StopTimer()
			b.ReportMetric(float64(api.Statements.Count())/float64(b.N), "sql/op")
		})
	}
}
