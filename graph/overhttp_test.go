package graph

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// mediaType is an answer's media type without its parameters.
func mediaType(h http.Header) string {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt
}

const (
	asJSON = "application/json"
	asGR   = "application/graphql-response+json"
)

// /graphql answers as the GraphQL-over-HTTP spec asks
// (docs/graphql-over-http.md): the media type the client accepts; a
// request that is not well-formed 400 (405, 406, 415 for method, Accept,
// Content-Type); a document that does not parse or validate, variables
// that do not coerce, an operation the limits refuse 200 under
// application/json and 400 under application/graphql-response+json; an
// operation that runs 200. Whatever did not run has no data entry, and
// every error its extensions.code and statusCode. (No resolvers here: a
// field that needs one fails, which is a field error.)
func TestOverHTTP(t *testing.T) {
	engine := NewEngine(NewExecutableSchema(Config{Complexity: Complexity()}), DefaultOptions()).HTTP
	ok := `{"query": "{ __typename }"}`
	tooManyAliases := `{"query": "{ ` + aliases(DefaultOptions().MaxAliases+1) + ` }"}`
	coerce := `{"query": "query($id: ID!) { node(id: $id) { id } }", "variables": {"id": null}}`

	for _, tc := range []struct {
		name                string
		method, target      string // target defaults to /graphql
		contentType, accept string // contentType defaults to application/json on a POST; "-" sends none
		body                string
		status              int
		media               string
		code                string // the first error's extensions.code; "" when none
		ran                 bool   // a data entry is present
		allow               string // the Allow header
	}{
		// What runs, in the media type asked for.
		{name: "no Accept", body: ok, status: 200, media: asJSON, ran: true},
		{name: "Accept application/json", accept: asJSON, body: ok, status: 200, media: asJSON, ran: true},
		{name: "Accept */*", accept: "*/*", body: ok, status: 200, media: asJSON, ran: true},
		{name: "Accept graphql-response+json", accept: asGR, body: ok, status: 200, media: asGR, ran: true},
		{name: "Accept by quality", accept: "application/json;q=0.5, application/graphql-response+json", body: ok, status: 200, media: asGR, ran: true},
		{name: "Content-Type with charset", contentType: "application/json; charset=utf-8", body: ok, status: 200, media: asJSON, ran: true},
		{name: "null parameters", body: `{"query": "{ __typename }", "operationName": null, "variables": null, "extensions": null}`, status: 200, media: asJSON, ran: true},
		{name: "extensions", body: `{"query": "{ __typename }", "extensions": {"some": "value"}}`, status: 200, media: asJSON, ran: true},
		{name: "a field error", accept: asGR, body: `{"query": "{ __typename viewer { id } }"}`, status: 200, media: asGR, code: "INTERNAL", ran: true},
		{name: "Accept nothing answered", accept: "text/html", body: ok, status: 406, media: asJSON, code: codeNotAcceptable},
		{name: "Accept application/json refused", accept: "application/json;q=0", body: ok, status: 406, media: asJSON, code: codeNotAcceptable},

		// Documents that do not run: 200 under application/json, 400 under
		// application/graphql-response+json.
		{name: "does not parse", body: `{"query": "{"}`, status: 200, media: asJSON, code: "GRAPHQL_PARSE_FAILED"},
		{name: "does not parse, graphql-response+json", accept: asGR, body: `{"query": "{"}`, status: 400, media: asGR, code: "GRAPHQL_PARSE_FAILED"},
		{name: "does not validate", body: `{"query": "{ nope }"}`, status: 200, media: asJSON, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "does not validate, graphql-response+json", accept: asGR, body: `{"query": "{ nope }"}`, status: 400, media: asGR, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "variables do not coerce", body: coerce, status: 200, media: asJSON, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "variables do not coerce, graphql-response+json", accept: asGR, body: coerce, status: 400, media: asGR, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "no such operation", body: `{"query": "{ __typename }", "operationName": "Q"}`, status: 200, media: asJSON, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "over a limit", body: tooManyAliases, status: 200, media: asJSON, code: "LIMIT_EXCEEDED"},
		{name: "over a limit, graphql-response+json", accept: asGR, body: tooManyAliases, status: 400, media: asGR, code: "LIMIT_EXCEEDED"},

		// Requests that are not well-formed: 400 under either type.
		{name: "body not JSON", body: `{ "not a JSON`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "body not JSON, graphql-response+json", accept: asGR, body: `{ "not a JSON`, status: 400, media: asGR, code: "BAD_USER_INPUT"},
		{name: "no body", status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "a list of requests", body: `[` + ok + `]`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "more after the body", body: ok + ` {}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "no query", accept: asGR, body: `{"qeury": "{ __typename }"}`, status: 400, media: asGR, code: "BAD_USER_INPUT"},
		{name: "null query", body: `{"query": null}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "query a number", body: `{"query": 0}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "query an object", body: `{"query": {"obj": "ect"}}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "operationName a list", body: `{"query": "{ __typename }", "operationName": ["a"]}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "variables a string", body: `{"query": "{ __typename }", "variables": "x"}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "extensions false", body: `{"query": "{ __typename }", "extensions": false}`, status: 400, media: asJSON, code: "BAD_USER_INPUT"},

		// GET: queries only, parameters in the URL.
		{name: "GET", method: "GET", target: get1(`{ __typename }`, ""), status: 200, media: asJSON, ran: true},
		{name: "GET with variables", method: "GET", accept: asGR, target: get1(`query($n: String!) { __type(name: $n) { name } }`, `{"n": "Query"}`),
			status: 200, media: asGR, ran: true},
		{name: "GET variables not JSON", method: "GET", target: get1(`{ __typename }`, `{`), status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "GET variables a list", method: "GET", target: get1(`{ __typename }`, `[]`), status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "GET no query", method: "GET", status: 400, media: asJSON, code: "BAD_USER_INPUT"},
		{name: "GET does not parse", method: "GET", accept: asGR, target: get1(`{`, ""), status: 400, media: asGR, code: "GRAPHQL_PARSE_FAILED"},
		{name: "GET a mutation", method: "GET", accept: asGR, target: get1(`mutation { __typename }`, ""), status: 405, media: asGR,
			code: codeMethodNotAllowed, allow: "POST"},

		// Methods and bodies no transport takes.
		{name: "POST without Content-Type", contentType: "-", body: ok, status: 415, media: asJSON, code: codeUnsupportedMediaType},
		{name: "POST text/plain", contentType: "text/plain", body: ok, status: 415, media: asJSON, code: codeUnsupportedMediaType},
		{name: "PUT", method: "PUT", body: ok, status: 405, media: asJSON, code: codeMethodNotAllowed, allow: allowedMethods},
		{name: "HEAD", method: "HEAD", status: 405, media: asJSON, allow: allowedMethods},
		{name: "OPTIONS", method: "OPTIONS", status: 200, allow: "OPTIONS, GET, POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method, target, contentType := tc.method, tc.target, tc.contentType
			if method == "" {
				method = "POST"
			}
			if target == "" {
				target = "/graphql"
			}
			r := httptest.NewRequest(method, target, strings.NewReader(tc.body))
			switch {
			case contentType == "-":
			case contentType != "":
				r.Header.Set("Content-Type", contentType)
			case method == "POST":
				r.Header.Set("Content-Type", "application/json")
			}
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			w := httptest.NewRecorder()
			engine.ServeHTTP(w, r)

			if w.Code != tc.status || mediaType(w.Header()) != tc.media {
				t.Fatalf("answered %d %q, want %d %q: %s", w.Code, w.Header().Get("Content-Type"), tc.status, tc.media, w.Body)
			}
			if tc.media != "" && !strings.HasSuffix(w.Header().Get("Content-Type"), "; charset=utf-8") {
				t.Errorf("Content-Type %q names no charset", w.Header().Get("Content-Type"))
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			if method == "HEAD" || method == "OPTIONS" {
				return
			}
			var body struct {
				Data   *json.RawMessage `json:"data"`
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			var entries map[string]json.RawMessage
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("not JSON: %s", w.Body)
			}
			json.Unmarshal(w.Body.Bytes(), &entries) //nolint:errcheck // decoded above
			if _, has := entries["data"]; has != tc.ran {
				t.Errorf("data entry present %v, want %v: %s", has, tc.ran, w.Body)
			}
			switch {
			case tc.code == "" && len(body.Errors) > 0:
				t.Errorf("errors, want none: %s", w.Body)
			case tc.code != "" && len(body.Errors) == 0:
				t.Errorf("no errors, want %s: %s", tc.code, w.Body)
			case tc.code != "":
				ext := body.Errors[0].Extensions
				if ext["code"] != tc.code || ext["statusCode"] == nil || body.Errors[0].Message == "" {
					t.Errorf("error %+v, want code %s with a statusCode", body.Errors[0], tc.code)
				}
			}
		})
	}
}

// get1 is /graphql with query and variables in the URL.
func get1(query, variables string) string {
	q := url.Values{"query": {query}}
	if variables != "" {
		q.Set("variables", variables)
	}
	return "/graphql?" + q.Encode()
}

// aliases is n aliased __typename selections.
func aliases(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("a")
		b.WriteString(strings.Repeat("a", i))
		b.WriteString(": __typename ")
	}
	return b.String()
}

// negotiate weighs Accept as RFC 9110 does: quality first, then the order
// listed; a wildcard is application/json; what admits neither is refused.
func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		accept string
		media  string
		ok     bool
	}{
		{"", asJSON, true},
		{"application/json", asJSON, true},
		{"*/*", asJSON, true},
		{"application/*;q=0.9", asJSON, true},
		{"text/html, application/json", asJSON, true},
		{"application/graphql-response+json", asGR, true},
		{"application/graphql-response+json, application/json", asGR, true},
		{"application/json, application/graphql-response+json", asJSON, true},
		{"application/json;q=0.9, application/graphql-response+json", asGR, true},
		{"application/graphql-response+json;q=0.5, */*", asJSON, true},
		{"application/json;q=0, */*", asGR, true},
		{"APPLICATION/JSON", asJSON, true},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", asJSON, true},
		{"text/html", asJSON, false},
		{"application/json;q=0", asJSON, false},
		{"application/json;q=nope", asJSON, false},
	} {
		if media, ok := negotiate(tc.accept); media != tc.media || ok != tc.ok {
			t.Errorf("negotiate(%q) = %s %v, want %s %v", tc.accept, media, ok, tc.media, tc.ok)
		}
	}
}
