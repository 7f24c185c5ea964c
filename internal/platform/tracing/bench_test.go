package tracing_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/testkit/otlptest"
)

// BenchmarkRequestSpan is a routed request's cost with tracing off
// (nothing installed) and on (a server span exported in batches to an
// in-process receiver that decodes and counts it).
func BenchmarkRequestSpan(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run(name, func(b *testing.B) {
			var tr *tracing.Tracing
			if on {
				rcv, stop := otlptest.Start(false)
				defer stop()
				var err error
				if tr, err = tracing.New(context.Background(), tracing.Config{Endpoint: rcv.URL}); err != nil {
					b.Fatal(err)
				}
				defer tr.Shutdown(context.Background()) //nolint:errcheck // the benchmark is over
			}
			r := chi.NewRouter()
			r.Use(tr.HTTP)
			r.Get("/items/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
			req := httptest.NewRequest("GET", "/items/0199aa00-0000-7000-8000-000000000001", nil)
			b.ReportAllocs()
			for b.Loop() {
				r.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
