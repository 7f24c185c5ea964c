package main

import (
	"strings"
	"testing"
)

// field is gqlgen's generated function for field f of T read from obj.X,
// with its field context (scalar or not) and marshaler.
func field(f, x, typ, marshal string, scalar bool) string {
	ctx := `return graphql.NewScalarFieldContext("T", field, false, false, errors.New("no children"))`
	if !scalar {
		ctx = `fc = &graphql.FieldContext{Object: "T", Field: field}
	return fc, nil`
	}
	return `func (ec *executionContext) _T_` + f + `(ctx context.Context, field graphql.CollectedField, obj *T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_` + f + `(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.` + x + `, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v ` + typ + `) graphql.Marshaler {
			return ec.` + marshal + `(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_T_` + f + `(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	` + ctx + `
}
`
}

const enumMarshaler = `func (ec *executionContext) marshalNKind2pkgᚐKind(ctx context.Context, sel ast.SelectionSet, v pkg.Kind) graphql.Marshaler {
	return v
}
`

func TestRewrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		direct string // the direct answer expected, "" for none
	}{
		{"string", field("title", "Title", "string", "marshalNString2string", true),
			"return ec.marshalNString2string(ctx, field.Selections, obj.Title)"},
		{"nullable time", field("when", "When", "*time.Time", "marshalODateTime2ᚖtimeᚐTime", true),
			"return ec.marshalODateTime2ᚖtimeᚐTime(ctx, field.Selections, obj.When)"},
		{"enum", enumMarshaler + field("kind", "Kind", "pkg.Kind", "marshalNKind2pkgᚐKind", true),
			"return ec.marshalNKind2pkgᚐKind(ctx, field.Selections, obj.Kind)"},
		{"float: NaN is an error", field("f", "F", "float64", "marshalNFloat2float64", true), ""},
		{"non-null JSON: nil is an error", field("j", "J", "store.JSON", "marshalNJSON2storeᚐJSON", true), ""},
		{"an object's field context", field("o", "O", "*Other", "marshalNOther2ᚖOther", false), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := field("id", "ID", "string", "marshalNID2string", true) + tc.src
			out, n, err := rewrite([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			want := 1
			if tc.direct != "" {
				want = 2
				if !strings.Contains(string(out), marker+"\t\t"+tc.direct+"\n\t}\n\treturn graphql.ResolveField(") {
					t.Errorf("no direct answer %q in\n%s", tc.direct, out)
				}
			}
			if n != want || strings.Count(string(out), marker) != want {
				t.Errorf("%d leaves rewritten, want %d:\n%s", n, want, out)
			}
			if _, _, err := rewrite(out); err == nil {
				t.Error("rewriting twice: no error")
			}
		})
	}
	if _, _, err := rewrite([]byte(field("f", "F", "float64", "marshalNFloat2float64", true))); err == nil {
		t.Error("no leaf at all: no error")
	}
}
