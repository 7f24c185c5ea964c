package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// bigFolder is how many children BenchmarkFolderContent seeds in one folder.
const bigFolder = 100_000

// BenchmarkFolderContent measures GET /api/v1/folders/{id}/content pages of
// 50 at the start, the middle and the end of a folder with 100k children,
// by name and by creation, end to end over loopback.
func BenchmarkFolderContent(b *testing.B) {
	api := loupetest.New(b)
	a := api.Tenant(b, "bench")
	f := a.CreateItem(b, map[string]any{"title": "Big", "itemType": "folder"})
	ids := make([]string, bigFolder)
	for i := range ids {
		ids[i] = loupe.NewID()
	}
	if _, err := api.DB.Exec(`
INSERT INTO items (tenant_id, id, item_type, title, created_by, created_on, modified_on)
SELECT $1, t.id, 'video', 'Clip ' || md5(t.id::text), $2, now(), now() FROM unnest($3::uuid[]) AS t(id)`,
		a.TenantID, a.UserID, pq.StringArray(ids)); err != nil {
		b.Fatal(err)
	}
	if _, err := api.DB.Exec(`
INSERT INTO item_folders (tenant_id, item_id, folder_id, position)
SELECT $1, t.id, $2, 1 FROM unnest($3::uuid[]) AS t(id)`, a.TenantID, f, pq.StringArray(ids)); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{`VACUUM ANALYZE items`, `VACUUM ANALYZE item_folders`} {
		if _, err := api.DB.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	for _, sort := range []string{"name", "createdOn"} {
		for _, from := range []int{0, bigFolder / 2, bigFolder - 50} {
			b.Run(fmt.Sprintf("%s/from=%d", sort, from), func(b *testing.B) {
				u := fmt.Sprintf("%s/api/v1/folders/%s/content?sort=%s&from=%d&size=50", api.URL, f, sort, from)
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
}
