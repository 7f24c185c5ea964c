package graph

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// post answers what gqlgen's POST transport answers — status, content
// type and JSON — for operations that run, fail in a resolver, do not
// validate or parse, bodies that do not decode, and Accept headers asking
// for either content type. (No resolvers here: a field that needs one
// fails, which is a resolver error.)
func TestPostAnswersWhatGqlgensAnswers(t *testing.T) {
	ours := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), DefaultOptions()).HTTP
	theirs := handler.New(NewExecutableSchema(Config{Complexity: Complexity()}))
	theirs.SetErrorPresenter(PresentError)
	theirs.SetRecoverFunc(Recover)
	theirs.AddTransport(transport.POST{})

	for _, tc := range []struct {
		name, body, accept string
	}{
		{"runs", `{"query": "{ __typename a: __typename }"}`, ""},
		{"runs, variables and operation name", `{"query": "query Q($x: Int) { __typename }", "operationName": "Q", "variables": {"x": 1}}`, "application/json"},
		{"a resolver fails", `{"query": "{ __typename viewer { id } }"}`, "*/*"},
		{"does not validate", `{"query": "{ nope }"}`, ""},
		{"does not parse", `{"query": "{"}`, ""},
		{"body not JSON", `{"query": `, ""},
		{"graphql-response+json", `{"query": "{ __typename }"}`, "application/graphql-response+json"},
		{"unknown Accept", `{"query": "{ __typename }"}`, "text/html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			do := func(h http.Handler) *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", "/graphql", bytes.NewBufferString(tc.body))
				r.Header.Set("Content-Type", "application/json")
				if tc.accept != "" {
					r.Header.Set("Accept", tc.accept)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			got, want := do(ours), do(theirs)
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("status %d %q, gqlgen's %d %q", got.Code, got.Header().Get("Content-Type"), want.Code, want.Header().Get("Content-Type"))
			}
			var g, w any
			if err := json.Unmarshal(got.Body.Bytes(), &g); err != nil {
				t.Fatalf("not JSON: %s", got.Body)
			}
			if err := json.Unmarshal(want.Body.Bytes(), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("answer\n%s\ngqlgen's\n%s", got.Body, want.Body)
			}
		})
	}
}

// writeResponse writes the executor's data as it is (gqlgen's would
// escape <, > and &), errors first as gqlgen orders them, null data as null.
func TestWriteResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *graphql.Response
		want string
	}{
		{"data", &graphql.Response{Data: json.RawMessage(`{"a":"<b> & c"}`)}, `{"data":{"a":"<b> & c"}}`},
		{"errors and no data", &graphql.Response{Errors: gqlerror.List{{Message: "no"}}}, `{"errors":[{"message":"no"}],"data":null}`},
		{"extensions: gqlgen's way", &graphql.Response{Data: json.RawMessage(`{"a":1}`), Extensions: map[string]any{"x": 1}},
			`{"data":{"a":1},"extensions":{"x":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeResponse(&b, tc.resp)
			if b.String() != tc.want {
				t.Fatalf("wrote %s, want %s", b.String(), tc.want)
			}
		})
	}
	for accept, want := range map[string]bool{"": true, "application/json": true, "*/*": true, "application/*;q=0.9": true,
		"text/html, application/json": true, "application/graphql-response+json, application/json": false, "text/html": false} {
		if got := plainJSON(accept); got != want {
			t.Errorf("plainJSON(%q) = %v", accept, got)
		}
	}
}
