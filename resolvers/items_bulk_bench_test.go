package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// BenchmarkBulkMetadata edits 1,000 items' metadata (a value of their own
// each) in one updateItemsMetadata request, against the same edits as
// 1,000 PATCH /api/v1/itemMetadata requests, one after the other and from
// 8 clients at once (docs/bulk-metadata.md). An op is the 1,000 edits:
// ns/op is their time, items/s their rate, sql/op their statements. The
// requests go out through a plain HTTP client: the server's time only.
//
//	go run ./cmd/loupe with-postgres -- go test -run '^$' -bench BulkMetadata ./resolvers/
func BenchmarkBulkMetadata(b *testing.B) {
	const n = 1000
	api := loupetest.New(b)
	a := api.Tenant(b, "bench")
	ids := seedItems(b, api, a, n, "Clip")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	send := func(b *testing.B, method, path string, body any) []byte {
		enc, err := json.Marshal(body)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest(method, api.URL+path, bytes.NewReader(enc))
		req.Header.Set("Authorization", "Bearer "+a.Key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d %v %.300s", method, path, resp.StatusCode, err, out)
		}
		return out
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(float64(api.Statements.Count())/float64(b.N), "sql/op")
	}
	const bulk = `mutation($in: UpdateItemsMetadataInput!) { updateItemsMetadata(input: $in) {
		writtenCount results { id item { id metadataVersion } error { code message } } } }`

	b.Run("one updateItemsMetadata request", func(b *testing.B) {
		api.Statements.Reset()
		for i := range b.N {
			edits := make([]any, n)
			for k, id := range ids {
				edits[k] = map[string]any{"id": id, "metadataDelta": map[string]any{
					"formData": map[string]any{"default_description": fmt.Sprintf("bulk %d-%d", i, k)}}}
			}
			var out struct {
				Data struct {
					UpdateItemsMetadata struct{ WrittenCount int }
				}
			}
			raw := send(b, "POST", "/graphql", map[string]any{"query": bulk, "variables": map[string]any{"in": map[string]any{"edits": edits}}})
			if err := json.Unmarshal(raw, &out); err != nil || out.Data.UpdateItemsMetadata.WrittenCount != n {
				b.Fatalf("%v: %.300s", err, raw)
			}
		}
		report(b)
	})

	patch := func(b *testing.B, clients int) {
		api.Statements.Reset()
		for i := range b.N {
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := c; k < n; k += clients {
						send(b, "PATCH", "/api/v1/itemMetadata/"+ids[k], map[string]any{"metadataDelta": map[string]any{
							"formData": map[string]any{"default_description": fmt.Sprintf("patch %d-%d", i, k)}}})
					}
				}()
			}
			wg.Wait()
		}
		report(b)
	}
	b.Run("1000 PATCH requests, one client", func(b *testing.B) { patch(b, 1) })
	b.Run("1000 PATCH requests, 8 clients", func(b *testing.B) { patch(b, 8) })
}
