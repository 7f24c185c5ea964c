package resolvers_test

import (
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/rest"
	"github.com/loupe-mam/loupe/server"
)

// fieldCounter is a field interceptor: with it installed, every field goes
// gqlgen's whole way (graph.fieldsIntercepted).
type fieldCounter struct{ fields atomic.Int64 }

func (*fieldCounter) ExtensionName() string                   { return "fieldCounter" }
func (*fieldCounter) Validate(graphql.ExecutableSchema) error { return nil }
func (f *fieldCounter) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	f.fields.Add(1)
	return next(ctx)
}

// The generated code answers a leaf read from a struct field directly
// (the leaves patch of graph/internal/postgen); it must answer byte for byte what gqlgen's own
// way answers: here, against a server of the same database with a field
// interceptor, which takes gqlgen's way for every field — items with every
// field set and bare ones (nulls), comments, folders and relations, for an
// admin and for a user who cannot see one of the folders.
// signedLink matches what differs between two signings of one link.
var signedLink = regexp.MustCompile(`((?:expires|signature)=)[^&"\\]+`)

func TestLeavesAnswerWhatGqlgenAnswers(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bare, full, open := recordItems(t, api, a)
	viewer := a.User(t, "viewer@a.test", nil, false)
	c := comment(t, a, "createComment", map[string]any{"itemId": full, "text": "Nice shot"})
	comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "👍"})
	comment(t, a, "createComment", map[string]any{"itemId": full, "text": "Second", "assignee": map[string]any{"type": "user", "id": a.UserID}})
	setRelations(t, a, full, "version", bare, open)

	counter := &fieldCounter{}
	slow := api.Another(t, func(cfg *server.Config) {
		cfg.GraphQL.Extensions = append(cfg.GraphQL.Extensions, counter)
	})

	frag := rest.Document[strings.Index(rest.Document, "fragment ItemRecord on Item"):]
	frag = frag[:strings.Index(frag, "\n}\n")+3]
	query := `query($ids: [ID!]!, $readable: Boolean = false) { nodes(ids: $ids) { ... on Item { ...ItemRecord
	    comments(first: 5) { nodes { ` + commentFields + ` } pageInfo { hasNextPage endCursor } }
	    folders { id owner name createdOn hasSubfolder parentId itemType sortKey visibleTo { level groups } }
	    relations { ` + relationFields + ` } } } }
	` + frag
	vars := map[string]any{"ids": []string{full, bare, open}}
	for _, who := range []*loupetest.Client{a, viewer} {
		before := counter.fields.Load()
		f, g := who.GraphQL(t, query, vars), who.On(slow).GraphQL(t, query, vars)
		if len(f.Errors) != 0 || len(g.Errors) != 0 {
			t.Fatalf("errors: %+v / %+v", f.Errors, g.Errors)
		}
		// Signed links carry their expiry in whole seconds: the two
		// answers may fall in different seconds.
		fast := signedLink.ReplaceAllString(string(f.Data), "${1}…")
		gqlgen := signedLink.ReplaceAllString(strings.ReplaceAll(string(g.Data), slow.URL, api.URL), "${1}…")
		if fast != gqlgen {
			t.Fatalf("direct leaves answer\n%s\ngqlgen's way\n%s", fast, gqlgen)
		}
		if !strings.Contains(fast, `"Nice shot"`) || !strings.Contains(fast, `"👍"`) {
			t.Fatalf("the answer lacks what the test set up: %s", fast)
		}
		// gqlgen's way went through the interceptor for every field,
		// the leaves included (some hundreds here).
		if n := counter.fields.Load() - before; n < 200 {
			t.Fatalf("the interceptor saw %d fields", n)
		}
	}
}
