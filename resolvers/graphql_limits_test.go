package resolvers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/rest"
	"github.com/loupe-mam/loupe/server"
)

// limitCase is a document and whether the limits let it run.
type limitCase struct {
	name  string
	query string
	vars  map[string]any
	// code is the extensions.code of the refusal, "" when it runs; message
	// is the refusal's message.
	code    string
	message string
}

// runLimitCases sends each case. A refused operation must be refused before
// any resolver runs: it costs no statement (the client's key is cached).
func runLimitCases(t *testing.T, api *loupetest.API, c *loupetest.Client, cases []limitCase) {
	t.Helper()
	for _, lc := range cases {
		t.Run(lc.name, func(t *testing.T) {
			api.Statements.Reset()
			r := c.GraphQL(t, lc.query, lc.vars)
			statements := api.Statements.Count()
			if lc.code == "" {
				r.OK(nil)
				return
			}
			if msg := wantError(t, r, lc.code, http.StatusBadRequest); lc.message != "" && msg != lc.message {
				t.Fatalf("message %q, want %q", msg, lc.message)
			}
			if string(r.Data) != "null" && string(r.Data) != "" {
				t.Fatalf("refused operation answered data %s", r.Data)
			}
			if statements != 0 {
				t.Fatalf("refused operation sent %d SQL statements, want none", statements)
			}
		})
	}
}

// parents is k nested parent selections around id.
func parents(k int) string {
	return strings.Repeat("parent { ", k) + "id" + strings.Repeat(" }", k)
}

// itemsDepth is an items query nested depth levels deep through
// items > nodes > folders > parent ... > id.
func itemsDepth(depth int) string {
	return `{ items(first: 1) { nodes { folders { ` + parents(depth-4) + ` } } } }`
}

func TestDepthLimit(t *testing.T) {
	l := newLibrary(t, 1)
	maxDepth := graph.DefaultOptions().MaxDepth
	refused := func(depth int) string {
		return fmt.Sprintf("operation is nested %d levels deep, which exceeds the limit of %d", depth, maxDepth)
	}
	fragment := func(depth int) string {
		return `query { items(first: 1) { ...page } }
fragment page on ItemConnection { nodes { ...item } }
fragment item on Item { folders { ` + parents(depth-4) + ` } }`
	}
	node := func(depth int) string {
		return `query($id: ID!) { node(id: $id) { ... on Folder { ` + parents(depth-2) + ` } } }`
	}
	leaf := map[string]any{"id": l.leaf}

	runLimitCases(t, l.api, l.client, []limitCase{
		{name: "shallow", query: `{ viewer { id } }`},
		{name: "through folders at the limit", query: itemsDepth(maxDepth)},
		{name: "through folders one over", query: itemsDepth(maxDepth + 1), code: "LIMIT_EXCEEDED", message: refused(maxDepth + 1)},
		{name: "through folders far over", query: itemsDepth(3 * maxDepth), code: "LIMIT_EXCEEDED", message: refused(3 * maxDepth)},
		{name: "in fragments at the limit", query: fragment(maxDepth)},
		{name: "in fragments one over", query: fragment(maxDepth + 1), code: "LIMIT_EXCEEDED", message: refused(maxDepth + 1)},
		{name: "in an inline fragment at the limit", query: node(maxDepth), vars: leaf},
		{name: "in an inline fragment one over", query: node(maxDepth + 1), vars: leaf, code: "LIMIT_EXCEEDED", message: refused(maxDepth + 1)},
		{name: "__typename counts", query: `{ items(first: 1) { nodes { folders { ` + strings.Repeat("parent { ", maxDepth-3) +
			"__typename" + strings.Repeat(" }", maxDepth-3) + ` } } } }`, code: "LIMIT_EXCEEDED", message: refused(maxDepth + 1)},
		{name: "the deepest of siblings counts", query: `{ viewer { id } items(first: 1) { totalCount nodes { id folders { ` +
			parents(maxDepth-3) + ` } } } }`, code: "LIMIT_EXCEEDED", message: refused(maxDepth + 1)},
		// Introspection is not counted, so that the playground works.
		{name: "deep introspection", query: `{ __schema { types { fields { type { ` +
			strings.Repeat("ofType { ", maxDepth) + "name" + strings.Repeat(" }", maxDepth) + ` } } } } }`},
	})

	t.Run("the deep query at the limit answers", func(t *testing.T) {
		var out struct {
			Folder struct {
				Parent *struct {
					ID     string
					Parent *struct{ ID string }
				}
			}
		}
		l.client.GraphQL(t, `query($id: ID!) { folder(id: $id) { parent { id parent { id parent { id } } } } }`, leaf).OK(&out)
		if p := out.Folder.Parent; p == nil || p.ID != l.mid || p.Parent == nil || p.Parent.ID != l.top {
			t.Fatalf("leaf's parents = %+v, want mid then top", p)
		}
	})

	t.Run("the limit is configurable", func(t *testing.T) {
		api := loupetest.New(t, func(c *server.Config) { c.GraphQL.MaxDepth = 3 })
		c := api.Tenant(t, "a")
		runLimitCases(t, api, c, []limitCase{
			{name: "depth 3", query: `{ items { nodes { id } } }`},
			{name: "depth 4", query: `{ items { nodes { folders { id } } } }`, code: "LIMIT_EXCEEDED",
				message: "operation is nested 4 levels deep, which exceeds the limit of 3"},
		})
	})
}

// aliased is n aliased copies of field.
func aliased(n int, field string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "a%d: %s ", i, field)
	}
	return b.String()
}

func TestAliasLimit(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	createItem(t, a, map[string]any{"title": "x", "itemType": "video"})
	maxAliases := graph.DefaultOptions().MaxAliases
	refused := func(n int) string {
		return fmt.Sprintf("operation has %d aliases, which exceeds the limit of %d", n, maxAliases)
	}

	runLimitCases(t, api, a, []limitCase{
		{name: "at the limit", query: `{ ` + aliased(maxAliases, "viewer { id }") + ` }`},
		{name: "one over", query: `{ ` + aliased(maxAliases+1, "viewer { id }") + ` }`, code: "LIMIT_EXCEEDED", message: refused(maxAliases + 1)},
		{name: "one over, nested", query: `{ items { nodes { ` + aliased(maxAliases+1, "id") + ` } } }`, code: "LIMIT_EXCEEDED", message: refused(maxAliases + 1)},
		{name: "spread across levels", query: `{ ` + aliased(maxAliases/2, "viewer { id }") + ` items { nodes { ` + aliased(maxAliases-maxAliases/2+1, "title") + ` } } }`,
			code: "LIMIT_EXCEEDED", message: refused(maxAliases + 1)},
		{name: "a fragment counts each time it is spread", query: `{ x: viewer { ...v } y: viewer { ...v } }
fragment v on Viewer { ` + aliased(maxAliases/2, "id") + ` }`, code: "LIMIT_EXCEEDED", message: refused(2 + 2*(maxAliases/2))},
		{name: "an alias equal to the name is no alias", query: `{ viewer: viewer { id: id } ` + aliased(maxAliases, "viewer { id }") + ` }`},
		{name: "expensive aliases", query: `{ ` + aliased(maxAliases+1, "items(first: 100) { totalCount }") + ` }`,
			code: "LIMIT_EXCEEDED", message: refused(maxAliases + 1)},
	})
}

// itemScalars are scalar fields of Item, each of complexity 1.
var itemScalars = strings.Fields(`id title originalFileName createdBy createdOn modifiedOn mediaCreatedOn itemType
mediaType mediaSize frameCount metadataVersion technicalMetadata geoLocation folderParents hasRelations
hasArchiveRelation ancestryLink archivedOn itemState transcodingState transcodingBy transcodingService progressInfo
transcriptionState transcriptionProgress transcriptionBy transcriptionService transcriptionChannels
transcriptionEnabled translationBy translationEnabled translationLanguage transcriptLastUpdated transcriptOffsetMs
languageCode celebrityDetectionEnabled labelDetectionEnabled personDetectionEnabled textDetectionEnabled
createUnknownPersons detectedPersons proxy proxySize hasProxy highRes hasExternalHighres editProxyFormat
webProxyLocation proxyAudioTrackUrls thumbnail thumbnailInfo thumbnailStrip`)

func TestComplexityLimit(t *testing.T) {
	// A limit the Item type has fields enough to reach with a page of 100.
	const limit = 5000
	api := loupetest.New(t, func(c *server.Config) { c.GraphQL.ComplexityLimit = limit })
	a := api.Tenant(t, "a")
	var ids []string
	for i := range 3 {
		ids = append(ids, createItem(t, a, map[string]any{"title": fmt.Sprint(i), "itemType": "video"}).ID)
	}
	// items(first: n) { nodes { k fields } } costs 1 + n*(1+k).
	page := func(first, fields int) string {
		return fmt.Sprintf(`{ items(first: %d) { nodes { %s } } }`, first, strings.Join(itemScalars[:fields], " "))
	}
	refused := func(cost int) string {
		return fmt.Sprintf("operation has complexity %d, which exceeds the limit of %d", cost, limit)
	}
	// k such that 1 + 100*(1+k) just exceeds the limit, 1 + 100*k does not.
	k := (limit - 1) / 100
	if len(itemScalars) < k {
		t.Fatalf("need %d Item fields, have %d", k, len(itemScalars))
	}
	hundredIDs := make([]string, 100)
	for i := range hundredIDs {
		hundredIDs[i] = ids[i%len(ids)]
	}

	runLimitCases(t, api, a, []limitCase{
		{name: "a page of 100 just under", query: page(100, k-1)},
		{name: "a page of 100 just over", query: page(100, k), code: "COMPLEXITY_LIMIT_EXCEEDED", message: refused(1 + 100*(1+k))},
		{name: "the default page of 20", query: fmt.Sprintf(`{ items { nodes { %s } } }`, strings.Join(itemScalars[:k], " "))},
		{name: "page size from a variable", query: `query($n: Int) { items(first: $n) { nodes { ` + strings.Join(itemScalars[:k], " ") + ` } } }`,
			vars: map[string]any{"n": 100}, code: "COMPLEXITY_LIMIT_EXCEEDED", message: refused(1 + 100*(1+k))},
		{name: "small page from a variable", query: `query($n: Int) { items(first: $n) { nodes { ` + strings.Join(itemScalars[:k], " ") + ` } } }`,
			vars: map[string]any{"n": 50}},
		{name: "nested fields of a full page", query: `{ items(first: 100) { totalCount pageInfo { hasNextPage endCursor }
  edges { cursor node { id title folders { id name parent { id name parent { id name } } } attachments { fileName downloadUrl } } }
  nodes { id title itemType createdOn metadata { formId formData } customIcons { pos1 pos2 pos3 pos4 pos5 pos6 pos7 pos8 }
          folders { id name owner visibleTo { level groups } parent { id name } } attachments { fileName type role } } } }`,
			code: "COMPLEXITY_LIMIT_EXCEEDED"},
		// nodes(ids) { id ...on Item { k fields } } costs 1 + len(ids)*(1+k).
		{name: "nodes weighed by the ids", query: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Item { ` + strings.Join(itemScalars[1:k+1], " ") + ` } } }`,
			vars: map[string]any{"ids": hundredIDs}, code: "COMPLEXITY_LIMIT_EXCEEDED", message: refused(1 + 100*(1+k))},
		{name: "fewer nodes", query: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Item { ` + strings.Join(itemScalars[1:k+1], " ") + ` } } }`,
			vars: map[string]any{"ids": ids}},
	})
}

func TestParserTokenLimit(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	maxTokens := graph.DefaultOptions().TokenLimit
	// Each "id" is one token; the document stays far below the body limit.
	huge := `{ viewer { ` + strings.Repeat("id ", maxTokens+1) + `} }`
	if int64(len(huge)) >= server.DefaultConfig().BodyLimit {
		t.Fatalf("document of %d bytes is over the body limit", len(huge))
	}

	api.Statements.Reset()
	r := a.GraphQL(t, huge, nil)
	if msg := wantError(t, r, "GRAPHQL_PARSE_FAILED", http.StatusBadRequest); msg != fmt.Sprintf("exceeded token limit of %d", maxTokens) {
		t.Fatalf("message %q", msg)
	}
	// A document error under application/json is a 200, the errors in the
	// body (docs/graphql-over-http.md).
	if r.Code != http.StatusOK {
		t.Fatalf("status %d, want 200", r.Code)
	}
	if n := api.Statements.Count(); n != 0 {
		t.Fatalf("refused document sent %d statements, want none", n)
	}

	t.Run("the limit is configurable", func(t *testing.T) {
		api := loupetest.New(t, func(c *server.Config) { c.GraphQL.TokenLimit = 50 })
		c := api.Tenant(t, "a")
		c.GraphQL(t, `{ viewer { `+strings.Repeat("id ", 40)+`} }`, nil).OK(nil)
		wantError(t, c.GraphQL(t, `{ viewer { `+strings.Repeat("id ", 60)+`} }`, nil), "GRAPHQL_PARSE_FAILED", http.StatusBadRequest)
	})
}

// TestDocumentLimit: a /graphql document over MaxDocumentBytes (a long
// comment, which the token limit does not count) is refused 413 before it
// is parsed; REST's stored documents stay far below the default, should a
// client send them to /graphql.
func TestDocumentLimit(t *testing.T) {
	if max := graph.DefaultOptions().MaxDocumentBytes; len(rest.Document) > max/2 {
		t.Fatalf("REST's stored document is %d bytes, over half the default document limit %d", len(rest.Document), max)
	}
	const limit = 4096
	api := loupetest.New(t, func(c *server.Config) { c.GraphQL.MaxDocumentBytes = limit })
	a := api.Tenant(t, "a")
	doc := func(size int) string {
		q := "{ viewer { id } }\n#"
		return q + strings.Repeat("x", size-len(q))
	}
	a.GraphQL(t, doc(limit), nil).OK(nil)
	api.Statements.Reset()
	r := a.GraphQL(t, doc(limit+1), nil)
	if msg := wantError(t, r, "PAYLOAD_TOO_LARGE", http.StatusRequestEntityTooLarge); msg != "The GraphQL document is larger than 4096 bytes." {
		t.Fatalf("message %q", msg)
	}
	if r.Code != http.StatusRequestEntityTooLarge || len(r.Data) > 0 {
		t.Fatalf("answered %d, data %s; want 413 without data", r.Code, r.Data)
	}
	if n := api.Statements.Count(); n != 0 {
		t.Fatalf("refused document sent %d statements, want none", n)
	}
}

// rawPost posts body to /graphql as c, without a Content-Length when
// chunked is set.
func rawPost(t *testing.T, api *loupetest.API, c *loupetest.Client, body string, chunked bool) (int, []byte) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // a reader of unknown length
	}
	req, err := http.NewRequest("POST", api.URL+"/graphql", r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if chunked != (req.ContentLength <= 0) {
		t.Fatalf("request Content-Length %d, chunked %v", req.ContentLength, chunked)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// paddedBody is a viewer query whose JSON body is exactly size bytes.
func paddedBody(t *testing.T, size int) string {
	t.Helper()
	head, tail := `{"query": "{ viewer { id } }`, `"}`
	pad := size - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("body cannot be %d bytes", size)
	}
	return head + strings.Repeat(" ", pad) + tail
}

func TestBodyLimit(t *testing.T) {
	const limit = 1024
	api := loupetest.New(t, func(c *server.Config) { c.BodyLimit = limit })
	a := api.Tenant(t, "a")
	tooLarge := fmt.Sprintf("The request body is larger than %d bytes.", limit)

	for _, c := range []struct {
		name    string
		size    int
		chunked bool
		refused bool
	}{
		{"small", 100, false, false},
		{"at the limit", limit, false, false},
		{"one byte over", limit + 1, false, true},
		{"far over", 50 * limit, false, true},
		{"small, without Content-Length", 100, true, false},
		{"at the limit, without Content-Length", limit, true, false},
		{"one byte over, without Content-Length", limit + 1, true, true},
		{"far over, without Content-Length", 50 * limit, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := rawPost(t, api, a, paddedBody(t, c.size), c.chunked)
			if !c.refused {
				var out struct {
					Data struct{ Viewer struct{ ID string } }
				}
				if status != http.StatusOK || json.Unmarshal(body, &out) != nil || out.Data.Viewer.ID != a.UserID {
					t.Fatalf("answered %d %s, want the viewer", status, body)
				}
				return
			}
			if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), tooLarge) {
				t.Fatalf("a %d-byte body (limit %d, chunked %v) answered %d %s; want 413 %q. "+
					"(Without a Content-Length, limitBody in server/middleware.go leaves the cap to "+
					"http.MaxBytesReader, whose error gqlgen's POST transport reports as a BAD_USER_INPUT "+
					"\"could not read request body\" with status 200; REST maps the same error to 413 in rest/bind.go.)",
					c.size, limit, c.chunked, status, body, tooLarge)
			}
		})
	}
}

func TestIntrospection(t *testing.T) {
	const schemaQuery = `{ __schema { queryType { name } } }`
	const typeQuery = `{ __type(name: "Item") { name } }`
	const typo = `{ viewr { id } }`

	t.Run("on by default", func(t *testing.T) {
		if !graph.DefaultOptions().Introspection {
			t.Fatal("introspection is off by default")
		}
		api := loupetest.New(t)
		a := api.Tenant(t, "a")
		var out struct {
			Schema struct{ QueryType struct{ Name string } } `json:"__schema"`
		}
		a.GraphQL(t, schemaQuery, nil).OK(&out)
		if out.Schema.QueryType.Name != "Query" {
			t.Fatalf("__schema.queryType.name = %q", out.Schema.QueryType.Name)
		}
		var typ struct {
			Type struct{ Name string } `json:"__type"`
		}
		a.GraphQL(t, typeQuery, nil).OK(&typ)
		if typ.Type.Name != "Item" {
			t.Fatalf("__type = %+v", typ.Type)
		}
		if msg := a.GraphQL(t, typo, nil).ErrorCode("GRAPHQL_VALIDATION_FAILED"); !strings.Contains(msg, `Did you mean "viewer"?`) {
			t.Fatalf("message %q, want a suggestion", msg)
		}
	})

	t.Run("off", func(t *testing.T) {
		api := loupetest.New(t, func(c *server.Config) { c.GraphQL.Introspection = false })
		a := api.Tenant(t, "a")
		for _, q := range []struct{ name, query, field string }{
			{"__schema", schemaQuery, "__schema"},
			{"__type", typeQuery, "__type"},
		} {
			t.Run(q.name, func(t *testing.T) {
				r := a.GraphQL(t, q.query, nil)
				var data map[string]json.RawMessage
				if len(r.Errors) == 0 {
					t.Fatalf("introspection answered %s", r.Data)
				}
				if len(r.Data) > 0 && string(r.Data) != "null" {
					if err := json.Unmarshal(r.Data, &data); err != nil || string(data[q.field]) != "null" {
						t.Fatalf("introspection answered %s", r.Data)
					}
				}
				// The refusal is the client's doing, not a server fault.
				if code := r.Errors[0].Extensions["code"]; code == "INTERNAL" || r.Errors[0].Extensions["statusCode"] == 500.0 {
					t.Fatalf("refused introspection is presented as a server error: %+v. "+
						"gqlgen refuses it with a plain error (\"introspection disabled\"), which graph.PresentError "+
						"(graph/errors.go) turns into INTERNAL / statusCode 500 and logs as a failed request",
						r.Errors)
				}
			})
		}
		// __typename is no introspection: clients of unions need it.
		var out struct {
			Viewer struct {
				Typename string `json:"__typename"`
			}
		}
		a.GraphQL(t, `{ viewer { __typename } }`, nil).OK(&out)
		if out.Viewer.Typename != "Viewer" {
			t.Fatalf("__typename = %q", out.Viewer.Typename)
		}
		// Nor does the schema leak through suggestions.
		if msg := a.GraphQL(t, typo, nil).ErrorCode("GRAPHQL_VALIDATION_FAILED"); strings.Contains(msg, "Did you mean") {
			t.Fatalf("message %q suggests a field with introspection off", msg)
		}
	})
}

func TestGraphQLOverGET(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	get := func(c *loupetest.Client, query string, vars map[string]any) *loupetest.Response {
		q := url.Values{"query": {query}}
		if vars != nil {
			b, _ := json.Marshal(vars)
			q.Set("variables", string(b))
		}
		return c.Get(t, "/graphql?"+q.Encode())
	}

	t.Run("query", func(t *testing.T) {
		var out struct {
			Data struct{ Viewer struct{ ID string } }
		}
		get(a, `{ viewer { id } }`, nil).Status(http.StatusOK).JSON(&out)
		if out.Data.Viewer.ID != a.UserID {
			t.Fatalf("viewer = %+v", out.Data.Viewer)
		}
	})
	t.Run("query with variables", func(t *testing.T) {
		var out struct {
			Data struct{ Item struct{ Title string } }
		}
		get(a, `query($id: ID!) { item(id: $id) { title } }`, map[string]any{"id": id}).Status(http.StatusOK).JSON(&out)
		if out.Data.Item.Title != "Clip" {
			t.Fatalf("item = %+v", out.Data.Item)
		}
	})
	t.Run("limits apply", func(t *testing.T) {
		var out struct {
			Errors []struct{ Extensions map[string]any }
		}
		get(a, itemsDepth(graph.DefaultOptions().MaxDepth+1), nil).JSON(&out)
		if len(out.Errors) == 0 || out.Errors[0].Extensions["code"] != "LIMIT_EXCEEDED" {
			t.Fatalf("errors = %+v, want LIMIT_EXCEEDED", out.Errors)
		}
	})
	t.Run("no mutations", func(t *testing.T) {
		items := api.Count(t, `SELECT count(*) FROM items`)
		r := get(a, `mutation { createItem(input: {title: "x", itemType: "video"}) { item { id } } }`, nil)
		if r.Code != http.StatusMethodNotAllowed || !strings.Contains(string(r.Body), "GET requests only allow query operations") {
			t.Fatalf("mutation over GET answered %d %s", r.Code, r.Body)
		}
		if got := api.Count(t, `SELECT count(*) FROM items`); got != items {
			t.Fatalf("items: %d after a mutation over GET, want %d", got, items)
		}
	})
	t.Run("needs a key", func(t *testing.T) {
		var out struct {
			Errors []struct{ Extensions map[string]any }
		}
		get(api.Anonymous(), `{ viewer { id } }`, nil).Status(http.StatusUnauthorized).JSON(&out)
		if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "UNAUTHENTICATED" {
			t.Fatalf("errors = %+v", out.Errors)
		}
	})
}
