package graph

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/scalar"
)

// Every JSON-typed input of the schema has its row in loupe.JSONInputs,
// named as scalar.JSONInputName names it, and every row is an input of the
// schema: a new JSON input cannot arrive without its limits.
func TestEveryJSONInputHasLimits(t *testing.T) {
	schema := NewExecutableSchema(Config{}).Schema()
	isJSON := func(t *ast.Type) bool {
		for t.Elem != nil {
			t = t.Elem
		}
		return t.NamedType == "JSON"
	}
	var inputs []string
	for _, def := range schema.Types {
		switch def.Kind {
		case ast.InputObject:
			for _, f := range def.Fields {
				if isJSON(f.Type) {
					inputs = append(inputs, f.Name)
				}
			}
		case ast.Object:
			for _, f := range def.Fields {
				for _, a := range f.Arguments {
					if isJSON(a.Type) {
						inputs = append(inputs, f.Name+"("+a.Name+")")
					}
				}
			}
		}
	}
	slices.Sort(inputs)
	inputs = slices.Compact(inputs)
	var rows []string
	for name := range loupe.JSONInputs {
		rows = append(rows, name)
	}
	slices.Sort(rows)
	if !slices.Equal(inputs, rows) {
		t.Fatalf("JSON inputs of the schema:\n  %s\nrows of loupe.JSONInputs:\n  %s",
			strings.Join(inputs, "\n  "), strings.Join(rows, "\n  "))
	}
}

// JSONInputName finds the row of an argument and of an input field, also
// inside a list, the way gqlgen's generated code nests the path.
func TestJSONInputName(t *testing.T) {
	field := &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Name: "updateTenantConfig"}}}
	ctx := graphql.WithFieldContext(context.Background(), field)
	arg := graphql.WithPathContext(ctx, graphql.NewPathWithField("input"))
	if got := scalar.JSONInputName(arg); got != "updateTenantConfig(input)" {
		t.Errorf("argument: %q", got)
	}
	in := graphql.WithPathContext(arg, graphql.NewPathWithField("fields"))
	in = graphql.WithPathContext(in, graphql.NewPathWithIndex(2))
	in = graphql.WithPathContext(in, graphql.NewPathWithField("defaultValue"))
	if got := scalar.JSONInputName(in); got != "defaultValue" {
		t.Errorf("input field in a list: %q", got)
	}

	// Over its row's limit, the value is refused as the client's mistake.
	big := map[string]any{"k": strings.Repeat("x", loupe.JSONInputs["defaultValue"].Bytes)}
	_, err := scalar.UnmarshalJSONValue(in, big)
	var ie *scalar.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "over the limit of 65536") {
		t.Errorf("over the limit: %v", err)
	}
}
