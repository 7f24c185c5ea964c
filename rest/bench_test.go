package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// BenchmarkGetItem measures GET /api/v1/items/{id} end to end over loopback:
// authentication (a cached key), the stored document through the executor,
// one item query.
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
			benchDo(b, client, a.Key, "GET", api.URL+"/api/v1/items/"+ids[i%len(ids)], "")
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
			benchDo(b, client, a.Key, "POST", api.URL+"/api/v1/items",
				`{"title":"Clip","itemType":"video","metadata":{"formData":{"default_description":"d"}}}`)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(api.Statements.Count())/float64(b.N), "sql/op")
}

// benchDo sends one request with key and fails the benchmark unless it
// answers 200.
func benchDo(b *testing.B, client *http.Client, key, method, url, body string) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("%s %s: status %d", method, url, resp.StatusCode)
	}
}
