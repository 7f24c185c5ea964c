package resolvers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/app"
	"github.com/loupe-mam/loupe/internal/loupetest"
)

func TestProbe(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	show := func(name string, r *loupetest.GraphQLResponse) {
		t.Logf("%s: code=%d data=%s errors=%+v", name, r.Code, r.Data, r.Errors)
	}
	show("introspection", a.GraphQL(t, `{ __schema { queryType { name } } }`, nil))
	show("depth13", a.GraphQL(t, `{ folder(id:"x") { parent { parent { parent { parent { parent { parent { parent { parent { parent { parent { parent { id } } } } } } } } } } } } }`, nil))
	show("complexity", a.GraphQL(t, `{ items(first:100) { nodes { id title itemType folders { id name parent { name } } attachments { fileName } } } }`, nil))
	show("first0", a.GraphQL(t, `{ items(first:0) { totalCount } }`, nil))
	show("badcursor", a.GraphQL(t, `{ items(after:"!!") { totalCount } }`, nil))
	show("badenum", a.GraphQL(t, `query($a: AuditAction){ itemAnalytics(filter:{actionType:$a}) { total } }`, map[string]any{"a": "bogus"}))
	var sb strings.Builder
	sb.WriteString("{ viewer { ")
	for i := 0; i < 20000; i++ {
		sb.WriteString("id ")
	}
	sb.WriteString("} }")
	show("tokens", a.GraphQL(t, sb.String(), nil))
	r := a.Get(t, "/graphql?query="+url.QueryEscape(`{ viewer { id } }`))
	t.Logf("GET: %d %s", r.Code, r.Body)
	r = a.Get(t, "/graphql?query="+url.QueryEscape(`mutation { createItem(input:{title:"x", itemType:"video"}) { item { id } } }`))
	t.Logf("GET mutation: %d %s", r.Code, r.Body)
	r = api.Anonymous().Post(t, "/graphql", map[string]any{"query": "{ viewer { id } }"})
	t.Logf("anon: %d %s", r.Code, r.Body)
	r = a.Post(t, "/graphql", `{"query": "{ viewer { id }"}`)
	t.Logf("parse: %d %s", r.Code, r.Body)

	small := loupetest.New(t, func(c *app.Config) { c.BodyLimit = 1024 })
	s := small.Tenant(t, "s")
	big := fmt.Sprintf(`{"query": "{ viewer { id } }", "variables": {"pad": %q}}`, strings.Repeat("x", 2000))
	r = s.Post(t, "/graphql", big)
	t.Logf("big: %d %s", r.Code, r.Body)
	// chunked
	req, _ := http.NewRequest("POST", small.URL+"/graphql", struct{ *bytes.Reader }{bytes.NewReader([]byte(big))})
	req.Header.Set("Authorization", "Bearer "+s.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	t.Logf("chunked big: %d %v %s", resp.StatusCode, resp.ContentLength, buf.String())

	noi := loupetest.New(t, func(c *app.Config) { c.GraphQL.Introspection = false })
	n := noi.Tenant(t, "n")
	show("nointro", n.GraphQL(t, `{ __schema { queryType { name } } }`, nil))
	show("nointro type", n.GraphQL(t, `{ __type(name:"Item") { name } }`, nil))
	show("nointro typename", n.GraphQL(t, `{ __typename viewer { __typename id } }`, nil))
	show("nointro suggestion", n.GraphQL(t, `{ viewr { id } }`, nil))
	show("intro suggestion", a.GraphQL(t, `{ viewr { id } }`, nil))
}
