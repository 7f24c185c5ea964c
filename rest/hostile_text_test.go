package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// Text no field may hold is refused with a 400 naming the field, and
// nothing is written: U+0000 (Postgres refuses it in text and jsonb) and
// bodies that are not UTF-8 (encoding/json would store them as U+FFFD).
func TestHostileText(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	count := func() int {
		var out struct{ Items struct{ TotalCount int } }
		a.GraphQL(t, `{ items(first: 1) { totalCount } }`, nil).OK(&out)
		return out.Items.TotalCount
	}
	before := count()

	for _, tc := range []struct {
		name, body, want string
	}{
		{"NUL in a string", `{"title":"a\u0000b","itemType":"video"}`, "title: must not contain the NUL character (U+0000)"},
		{"NUL in a JSON value", `{"title":"ok","itemType":"video","metadata":{"formId":"default","formData":{"default_description":"x\u0000"}}}`, "must not contain the NUL character (U+0000)"},
		{"NUL in a JSON key", `{"title":"ok","itemType":"video","metadata":{"formId":"default","formData":{"a\u0000":1}}}`, "must not contain the NUL character (U+0000)"},
		{"not UTF-8", "{\"title\":\"caf\xe9\",\"itemType\":\"video\"}", "The request body is not valid UTF-8."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := a.Post(t, "/api/v1/items", []byte(tc.body)).Envelope(http.StatusBadRequest, "")
			if msg, _ := env["message"].(string); !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want it to contain %q", msg, tc.want)
			}
		})
	}
	// An escaped backslash before u0000 is text like any other.
	a.Post(t, "/api/v1/items", []byte(`{"title":"a\\u0000b","itemType":"video","metadata":{"formId":"default","formData":{"default_description":"\\u0000"}}}`)).Status(http.StatusOK)

	// GraphQL: the same gate (the String and JSON scalars, the body).
	g := a.GraphQL(t, `mutation($t: String!) { createItem(input: {title: $t, itemType: "video"}) { item { id } } }`,
		map[string]any{"t": "a\x00b"})
	if len(g.Errors) != 1 || g.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(g.Errors[0].Message, "NUL") {
		t.Fatalf("createItem with U+0000: %+v", g.Errors)
	}
	r := a.Post(t, "/graphql", []byte("{\"query\":\"{ viewer { email } }\",\"variables\":{\"x\":\"\xff\"}}"))
	if r.Code != http.StatusBadRequest || !strings.Contains(string(r.Body), "not valid UTF-8") {
		t.Fatalf("/graphql with a body that is not UTF-8: %d %s", r.Code, r.Body)
	}

	if got := count(); got != before+1 {
		t.Fatalf("items: %d before, %d after; only the escaped one may have been written", before, got)
	}
}

// The URL passes the same gate: its query parameters, decoded, must be
// UTF-8 without U+0000, and the query must parse; a path holding such bytes
// names nothing (404).
func TestHostileURL(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/api/v1/items?nextToken=%ff", 400, "nextToken must be valid UTF-8"},
		{"/api/v1/items?since=%00", 400, "since: must not contain the NUL character (U+0000)"},
		{"/api/v1/items?%ff=1", 400, "The request URL is not valid UTF-8 without NUL characters."},
		{"/api/v1/items?size=1%zz", 400, "The request URL's query cannot be parsed."},
		{"/api/v1/items/%ff%fe", 404, "The server can not find requested resource."},
		{"/api/v1/items/a%00", 404, "The server can not find requested resource."},
	} {
		a.Get(t, tc.path).Envelope(tc.status, tc.want)
	}
	r := a.Get(t, "/graphql?query=%7B%20viewer%20%7B%20email%20%7D%20%7D&variables=%ff")
	if r.Code != http.StatusBadRequest || !strings.Contains(string(r.Body), "variables must be valid UTF-8") {
		t.Fatalf("GET /graphql with a URL that is not UTF-8: %d %s", r.Code, r.Body)
	}
}
