package graph

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Fields marked @private in the schema exist for REST's speed only
// (Item.record, FolderContent.record: a record written as one value).
// They answer like any other field — the stored REST documents and the
// tests that hold a record equal to its fields select them — but
// introspection leaves them out, so they are no part of the public schema
// the playground and clients see.
//
// gqlgen validates operations against the executable schema's Schema() and
// answers introspection from its SchemaData: hidePrivate gives the first
// the whole schema and the second the public one.

// hidePrivate wraps an executable schema made by NewExecutableSchema
// without a schema of its own; any other is answered as it is.
func hidePrivate(es graphql.ExecutableSchema) graphql.ExecutableSchema {
	x, ok := es.(*executableSchema)
	if !ok || x.SchemaData != nil {
		return es
	}
	full := x.Schema()
	public := *x
	public.SchemaData = publicSchema(full)
	return wholeSchema{ExecutableSchema: &public, whole: full}
}

// wholeSchema validates against the whole schema, @private fields and all.
type wholeSchema struct {
	graphql.ExecutableSchema
	whole *ast.Schema
}

func (s wholeSchema) Schema() *ast.Schema { return s.whole }

// publicSchema is s without its @private fields and the directive itself.
// Types holding such fields are copied; every reference to them (root
// types, possible types, implementations) points at the copies.
func publicSchema(s *ast.Schema) *ast.Schema {
	out := *s
	out.Types = make(map[string]*ast.Definition, len(s.Types))
	swapped := map[*ast.Definition]*ast.Definition{}
	for name, def := range s.Types {
		out.Types[name] = def
		var kept ast.FieldList
		for _, f := range def.Fields {
			if f.Directives.ForName("private") == nil {
				kept = append(kept, f)
			}
		}
		if len(kept) != len(def.Fields) {
			c := *def
			c.Fields = kept
			out.Types[name], swapped[def] = &c, &c
		}
	}
	swap := func(d *ast.Definition) *ast.Definition {
		if c, ok := swapped[d]; ok {
			return c
		}
		return d
	}
	swapAll := func(m map[string][]*ast.Definition) map[string][]*ast.Definition {
		n := make(map[string][]*ast.Definition, len(m))
		for k, defs := range m {
			for _, d := range defs {
				n[k] = append(n[k], swap(d))
			}
		}
		return n
	}
	out.Query, out.Mutation, out.Subscription = swap(s.Query), swap(s.Mutation), swap(s.Subscription)
	out.PossibleTypes, out.Implements = swapAll(s.PossibleTypes), swapAll(s.Implements)
	out.Directives = make(map[string]*ast.DirectiveDefinition, len(s.Directives))
	for name, d := range s.Directives {
		if name != "private" {
			out.Directives[name] = d
		}
	}
	return &out
}
