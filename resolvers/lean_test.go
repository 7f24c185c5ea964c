package resolvers

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/loupe-mam/loupe/graph"
)

// Which selections a lean item row may serve: only lean fields, however
// they are spelled (aliases, fragments, inline fragments, __typename).
func TestLeanItems(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{}}).Schema()
	cases := []struct {
		query string
		lean  bool
	}{
		{`{ items { nodes { id title folders { name } comments(first: 3) { nodes { id } } relations { item { title } } } } }`, true},
		{`{ items { nodes { __typename name: title itemType createdOn modifiedOn createdBy } } }`, true},
		{`{ items { nodes { ...F } } } fragment F on Item { id title }`, true},
		{`{ items { nodes { ... on Item { id title } } } }`, true},
		{`{ items { nodes { id technicalMetadata } } }`, false},
		{`{ items { nodes { id metadata { formId } } } }`, false},
		{`{ items { nodes { ...F } } } fragment F on Item { id folderParents }`, false},
		{`{ items { nodes { id attachments { fileName } } } }`, false},
		{`{ items { nodes { id thumbnails { nextIndex } } } }`, false},
	}
	for _, c := range cases {
		doc, errs := gqlparser.LoadQuery(schema, c.query)
		if errs != nil {
			t.Fatalf("%s: %v", c.query, errs)
		}
		oc := &graphql.OperationContext{Doc: doc, Variables: map[string]any{}}
		items := doc.Operations[0].SelectionSet[0].(*ast.Field)
		var nodes *ast.Field
		for _, f := range graphql.CollectFields(oc, items.SelectionSet, []string{"ItemConnection"}) {
			if f.Name == "nodes" {
				nodes = f.Field
			}
		}
		if got := leanItems(oc, nodes.SelectionSet); got != c.lean {
			t.Errorf("%s: lean %v, want %v", c.query, got, c.lean)
		}
	}
}
