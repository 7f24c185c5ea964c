package graph

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// With introspection off no error suggests ("Did you mean ...?") a name of
// the schema, whatever was misspelt; with it on, each of these does (so
// the documents do reach the rule that would suggest).
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		never       bool // gqlparser does not suggest here even with introspection on
	}{
		{"field", `{ itmes(first: 1) { totalCount } }`, nil, false},
		{"argument", `{ items(frist: 1) { totalCount } }`, nil, false},
		{"enum value", `{ items(orderBy: CREATED_DESK) { totalCount } }`, nil, false},
		{"input field, literal", `{ items(filter: {itemTyp: "video"}) { totalCount } }`, nil, false},
		{"type of a variable", `query($f: ItemFiltr) { items(filter: $f) { totalCount } }`, nil, true},
		{"type of a fragment", `{ items { ...f } } fragment f on ItemConection { totalCount }`, nil, false},
		{"selection missing", `{ items }`, nil, false},
		// Variables that do not coerce never suggest (gqlparser's vars.go);
		// kept here so that a later gqlparser that does is caught.
		{"input field, variable", `query($f: ItemFilter) { items(filter: $f) { totalCount } }`, map[string]any{"f": map[string]any{"itemTyp": "video"}}, true},
		{"enum value, variable", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, map[string]any{"o": "CREATED_DESK"}, true},
	} {
		for _, introspection := range []bool{true, false} {
			opt := DefaultOptions()
			opt.Introspection = introspection
			engine := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), opt)
			name := tc.name + map[bool]string{true: ", introspection on", false: ", introspection off"}[introspection]
			t.Run(name, func(t *testing.T) {
				body, _ := json.Marshal(map[string]any{"query": tc.query, "variables": tc.vars})
				req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				engine.HTTP.ServeHTTP(w, req)
				var out struct {
					Errors []struct{ Message string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.Errors) == 0 {
					t.Fatalf("answered %d %s, want errors", w.Code, w.Body)
				}
				var msgs []string
				for _, e := range out.Errors {
					msgs = append(msgs, e.Message)
				}
				all := strings.Join(msgs, "\n")
				suggests := strings.Contains(all, "Did you mean")
				switch {
				case !introspection && suggests:
					t.Fatalf("introspection off, yet: %s", all)
				case introspection && !suggests && !tc.never:
					t.Fatalf("introspection on, no suggestion: %s", all)
				}
				// Via the in-process executor (REST) alike.
				if !introspection {
					if _, errs := engine.Exec.CreateOperationContext(graphql.StartOperationTrace(context.Background()),
						&graphql.RawParams{Query: tc.query, Variables: tc.vars}); strings.Contains(errs.Error(), "Did you mean") {
						t.Fatalf("executor suggests: %v", errs)
					}
				}
			})
		}
	}
}
