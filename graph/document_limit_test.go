package graph

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// padded is { __typename } followed by a comment, size bytes in all.
func padded(t *testing.T, size int) string {
	t.Helper()
	const q = "{ __typename }\n#"
	if size < len(q) {
		t.Fatalf("a document cannot be %d bytes", size)
	}
	return q + strings.Repeat("x", size-len(q))
}

// A /graphql document longer than MaxDocumentBytes is refused 413
// PAYLOAD_TOO_LARGE under either media type, over POST and GET, without
// a data entry; one of the limit's length runs. The in-process executor
// (REST's stored documents) is not bound.
func TestDocumentLimit(t *testing.T) {
	const limit = 2048
	opt := DefaultOptions()
	opt.MaxDocumentBytes = limit
	engine := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), opt)

	send := func(t *testing.T, method, doc, accept string) *httptest.ResponseRecorder {
		t.Helper()
		var r *http.Request
		if method == "GET" {
			r = httptest.NewRequest("GET", "/graphql?"+url.Values{"query": {doc}}.Encode(), nil)
		} else {
			body, _ := json.Marshal(map[string]string{"query": doc})
			r = httptest.NewRequest("POST", "/graphql", strings.NewReader(string(body)))
			r.Header.Set("Content-Type", "application/json")
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		engine.HTTP.ServeHTTP(w, r)
		return w
	}
	for _, method := range []string{"POST", "GET"} {
		for _, accept := range []string{asJSON, asGR} {
			t.Run(method+" "+accept, func(t *testing.T) {
				if w := send(t, method, padded(t, limit), accept); w.Code != 200 || !strings.Contains(w.Body.String(), `"__typename":"Query"`) {
					t.Fatalf("a document of %d bytes answered %d %s, want it run", limit, w.Code, w.Body)
				}
				for _, size := range []int{limit + 1, 50 * limit} {
					w := send(t, method, padded(t, size), accept)
					var out struct {
						Data   *json.RawMessage `json:"data"`
						Errors []struct {
							Message    string
							Extensions map[string]any
						}
					}
					if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusRequestEntityTooLarge ||
						mediaType(w.Header()) != accept || len(out.Errors) != 1 {
						t.Fatalf("a document of %d bytes answered %d %q %s, want 413", size, w.Code, w.Header().Get("Content-Type"), w.Body)
					}
					if strings.Contains(w.Body.String(), `"data"`) {
						t.Errorf("refused document has a data entry: %s", w.Body)
					}
					e := out.Errors[0]
					if e.Message != "The GraphQL document is larger than 2048 bytes." ||
						e.Extensions["code"] != "PAYLOAD_TOO_LARGE" || e.Extensions["statusCode"] != 413.0 {
						t.Errorf("error %+v", e)
					}
				}
			})
		}
	}

	t.Run("0 is no limit", func(t *testing.T) {
		opt := DefaultOptions()
		opt.MaxDocumentBytes = 0
		engine := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), opt)
		body, _ := json.Marshal(map[string]string{"query": padded(t, 1<<20)})
		r := httptest.NewRequest("POST", "/graphql", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		engine.HTTP.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"__typename":"Query"`) {
			t.Fatalf("answered %d %s", w.Code, w.Body)
		}
	})

	t.Run("the in-process executor is not bound", func(t *testing.T) {
		ctx := graphql.StartOperationTrace(context.Background())
		if _, errs := engine.Exec.CreateOperationContext(ctx, &graphql.RawParams{Query: padded(t, 4*limit)}); errs != nil {
			t.Fatal(errs)
		}
	})
}
