package graph

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkPost is /graphql's own share of an operation that runs: the
// transport's reading, negotiation and writing around a trivial document
// (no resolvers, no database). It guards post's fast path.
func BenchmarkPost(b *testing.B) {
	engine := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), DefaultOptions()).HTTP
	const body = `{"query": "query Q($n: String!) { a: __typename b: __type(name: $n) { name } }", "operationName": "Q", "variables": {"n": "Query"}}`
	for _, accept := range []string{"", "application/json", "application/graphql-response+json"} {
		b.Run("Accept="+accept, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/graphql", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				if accept != "" {
					r.Header.Set("Accept", accept)
				}
				w := httptest.NewRecorder()
				engine.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
