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
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// post answers what gqlgen's POST transport answers — status, media type
// and JSON — for operations that run: without and with variables and an
// operation name, with a resolver error, in either media type. (No
// resolvers here: a field that needs one fails, which is a resolver
// error.) What does not run, gqlgen answers otherwise than the spec asks;
// TestOverHTTP holds those answers.
func TestPostAnswersWhatGqlgensAnswers(t *testing.T) {
	ours := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), DefaultOptions()).HTTP
	theirs := handler.New(NewExecutableSchema(Config{Complexity: Complexity()}))
	theirs.SetErrorPresenter(PresentError)
	theirs.SetRecoverFunc(Recover)
	theirs.Use(extension.Introspection{}) // as DefaultOptions
	theirs.AddTransport(transport.POST{})

	for _, tc := range []struct {
		name, body, accept string
	}{
		{"runs", `{"query": "{ __typename a: __typename }"}`, ""},
		{"runs, variables and operation name", `{"query": "query Q($n: String!) { __type(name: $n) { name } }", "operationName": "Q", "variables": {"n": "Query"}}`, "application/json"},
		{"a resolver fails", `{"query": "{ __typename viewer { id } }"}`, "*/*"},
		{"graphql-response+json", `{"query": "{ __typename }"}`, "application/graphql-response+json"},
		{"graphql-response+json, a resolver fails", `{"query": "{ __typename viewer { id } }"}`, "application/graphql-response+json"},
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
			// Ours names the charset; the media type is gqlgen's.
			if got.Code != want.Code || mediaType(got.Header()) != mediaType(want.Header()) {
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
}
