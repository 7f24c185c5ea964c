package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/loupetest"
)

// BenchmarkGetItem measures GET /api/v1/items/{id} end to end over loopback:
// authentication, the stored document through the executor, one item query.
// It reports SQL statements per request beside the time.
func BenchmarkGetItem(b *testing.B) {
	api := loupetest.New(b)
	a := api.Tenant(b, "bench")
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = a.CreateItem(b, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	api.Statements.Reset()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			req, _ := http.NewRequest("GET", api.URL+"/api/v1/items/"+ids[i%len(ids)], nil)
			req.Header.Set("Authorization", "Bearer "+a.Key)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
			i++
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(api.Statements.Count())/float64(b.N), "sql/op")
}

// BenchmarkCreateItem measures POST /api/v1/items with its audit record.
func BenchmarkCreateItem(b *testing.B) {
	api := loupetest.New(b)
	a := api.Tenant(b, "bench")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	api.Statements.Reset()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", api.URL+"/api/v1/items",
				strings.NewReader(`{"title":"Clip","itemType":"video","metadata":{"formData":{"default_description":"d"}}}`))
			req.Header.Set("Authorization", "Bearer "+a.Key)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(api.Statements.Count())/float64(b.N), "sql/op")
}
