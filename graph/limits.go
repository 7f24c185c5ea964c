package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// shapeLimit refuses operations nested deeper or with more aliases than
// allowed: both multiply the work one small document can ask for, and
// complexity alone does not bound a deep chain of single objects.
// Introspection fields (__schema, __type) are not counted, so the standard
// introspection query of the playground passes.
type shapeLimit struct {
	MaxDepth   int
	MaxAliases int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = shapeLimit{}

func (shapeLimit) ExtensionName() string                   { return "ShapeLimit" }
func (shapeLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (l shapeLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	depth, aliases := measure(oc.Operation.SelectionSet)
	if depth > l.MaxDepth {
		return limitError("operation is nested %d levels deep, which exceeds the limit of %d", depth, l.MaxDepth)
	}
	if aliases > l.MaxAliases {
		return limitError("operation has %d aliases, which exceeds the limit of %d", aliases, l.MaxAliases)
	}
	return nil
}

func limitError(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": "LIMIT_EXCEEDED"}
	return err
}

// measure returns the depth of a selection set and the aliases in it.
// Fragments count at the depth they are spread at; validation has already
// ruled out fragment cycles.
func measure(set ast.SelectionSet) (depth, aliases int) {
	for _, sel := range set {
		var d, a int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.Name) > 1 && s.Name[:2] == "__" && s.Name != "__typename" {
				continue
			}
			d, a = measure(s.SelectionSet)
			d++
			if s.Alias != "" && s.Alias != s.Name {
				a++
			}
		case *ast.InlineFragment:
			d, a = measure(s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				d, a = measure(s.Definition.SelectionSet)
			}
		}
		depth = max(depth, d)
		aliases += a
	}
	return depth, aliases
}

// introspectionOff refuses operations that ask for the schema (__schema,
// __type) when introspection is switched off, as the client's error rather
// than the executor's plain failure. __typename stays allowed.
type introspectionOff struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = introspectionOff{}

func (introspectionOff) ExtensionName() string                   { return "IntrospectionOff" }
func (introspectionOff) Validate(graphql.ExecutableSchema) error { return nil }

func (introspectionOff) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if asksSchema(oc.Operation.SelectionSet) {
		err := gqlerror.Errorf("introspection is disabled on this server")
		err.Extensions = map[string]any{"code": "INTROSPECTION_DISABLED"}
		return err
	}
	return nil
}

func asksSchema(set ast.SelectionSet) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == "__schema" || s.Name == "__type" || asksSchema(s.SelectionSet) {
				return true
			}
		case *ast.InlineFragment:
			if asksSchema(s.SelectionSet) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && asksSchema(s.Definition.SelectionSet) {
				return true
			}
		}
	}
	return false
}
