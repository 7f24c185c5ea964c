package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// applyOne applies patches to a set of one file, src.
func applyOne(src string, patches []patch) (string, []applied, error) {
	out, report, err := apply([]source{{"generated.go", []byte(src)}}, patches)
	if err != nil {
		return "", nil, err
	}
	return string(out[0].src), report, nil
}

// The snippets below are small files in the shape of gqlgen's output: they
// need to parse, not to compile.

const header = `package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

`

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

// marshaler is a generated marshaler of a scalar.
func marshaler(name string) string {
	return `func (ec *executionContext) ` + name + `(ctx context.Context, sel ast.SelectionSet, v string) graphql.Marshaler {
	res := graphql.MarshalString(v)
	return res
}

`
}

const enumMarshaler = `func (ec *executionContext) marshalNKind2pkgᚐKind(ctx context.Context, sel ast.SelectionSet, v pkg.Kind) graphql.Marshaler {
	return v
}

`

// testSafe are the safe marshalers of the leaves snippets.
var testSafe = []string{"marshalNString2string", "marshalNID2string", "marshalODateTime2ᚖtimeᚐTime"}

func leavesSnippet(fields ...string) string {
	src := header
	for _, m := range testSafe {
		src += marshaler(m)
	}
	return src + field("id", "ID", "string", "marshalNID2string", true) + strings.Join(fields, "")
}

const check = "if !fieldsIntercepted(ec.OperationContext) {\n\t\t"

func TestLeaves(t *testing.T) {
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
			out, report, err := applyOne(leavesSnippet(tc.src), []patch{leaves(testSafe)})
			if err != nil {
				t.Fatal(err)
			}
			want := 1 // the id
			if tc.direct != "" {
				want = 2
				if !strings.Contains(out, check+tc.direct+"\n\t}\n\treturn graphql.ResolveField(") {
					t.Errorf("no direct answer %q in\n%s", tc.direct, out)
				}
			}
			if report[0].changes != want || strings.Count(out, check) != want {
				t.Errorf("%d leaves rewritten, want %d:\n%s", report[0].changes, want, out)
			}
			if _, _, err := applyOne(out, []patch{leaves(testSafe)}); err == nil || !strings.Contains(err.Error(), "patch leaves: already applied") {
				t.Errorf("patching twice: %v, want already applied", err)
			}
		})
	}
}

// TestLeavesFailLoudly: when what the patch looks for is not there, it
// fails and says what is missing.
func TestLeavesFailLoudly(t *testing.T) {
	float := field("f", "F", "float64", "marshalNFloat2float64", true)
	for _, tc := range []struct {
		name, src, err string
	}{
		{"no leaf the short way suits", header + strings.Join([]string{
			marshaler("marshalNString2string"), marshaler("marshalNID2string"), marshaler("marshalODateTime2ᚖtimeᚐTime"), float}, ""),
			"patch leaves: pattern not found"},
		{"no scalar field context", strings.ReplaceAll(leavesSnippet(), "NewScalarFieldContext", "NewLeafFieldContext"),
			"patch leaves: no field context of a plain scalar field"},
		{"ResolveField renamed", strings.ReplaceAll(leavesSnippet(), "graphql.ResolveField(", "graphql.ResolveFieldV2("),
			"patch leaves: no field read from a struct"},
		{"ResolveField's arguments changed", strings.ReplaceAll(leavesSnippet(), "\t\tnil,\n", ""),
			"patch leaves: no field read from a struct"},
		{"a safe marshaler renamed", strings.ReplaceAll(leavesSnippet(), "marshalNString2string", "marshalNString2scalarᚐString"),
			"patch leaves: safe marshalers not generated: marshalNString2string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := applyOne(tc.src, []patch{leaves(testSafe)})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestRenameCall(t *testing.T) {
	p := renameCall("marshal-slice", gqlgenGraphQL, "MarshalSliceConcurrently", "marshalSlice")
	list := func(pkg string) string {
		return `func (ec *executionContext) marshalNT2ᚕT(ctx context.Context, sel ast.SelectionSet, v []T) graphql.Marshaler {
	ret := ` + pkg + `.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return ec.marshalNT2T(ctx, sel, v[i])
	})
	return ret
}

`
	}
	for _, tc := range []struct {
		name, src string
		changes   int
		err       string
	}{
		{"two calls", header + list("graphql") + list("graphql"), 2, ""},
		{"imported under another name", strings.Replace(header, "\t\"github.com/99designs/gqlgen/graphql\"", "\tgql \"github.com/99designs/gqlgen/graphql\"", 1) + list("gql"), 1, ""},
		{"another package's function of the name", header + list("other"), 0, "patch marshal-slice: pattern not found (calls of github.com/99designs/gqlgen/graphql.MarshalSliceConcurrently)"},
		{"gqlgen's runtime not imported", "package graph\n\n" + list("graphql"), 0, "patch marshal-slice: github.com/99designs/gqlgen/graphql is not imported"},
		{"already applied", header + strings.ReplaceAll(list("graphql"), "graphql.MarshalSliceConcurrently", "marshalSlice"), 0, "patch marshal-slice: already applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, report, err := applyOne(tc.src, []patch{p})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if report[0].changes != tc.changes || strings.Count(out, "ret := marshalSlice(ctx, len(v), 0, false,") != tc.changes ||
				strings.Contains(out, "MarshalSliceConcurrently") {
				t.Errorf("%d calls renamed, want %d:\n%s", report[0].changes, tc.changes, out)
			}
			if !strings.Contains(out, "graphql.Marshaler {") {
				t.Errorf("other uses of the package renamed too:\n%s", out)
			}
		})
	}
}

// gqlgenShape is a file with something for each of Loupe's patches.
func gqlgenShape() string {
	src := header
	for _, m := range safeMarshalers {
		src += marshaler(m)
	}
	return src + field("id", "ID", "string", "marshalNID2string", true) + `func (e *executableSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	inputUnmarshalMap := graphql.BuildUnmarshalerMap(
		ec.unmarshalInputAccessInput,
	)
	return nil
}

func (ec *executionContext) marshalNT2ᚕT(ctx context.Context, sel ast.SelectionSet, v []T) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return ec.marshalNT2T(ctx, sel, v[i])
	})
	return ret
}
`
}

// TestPatches runs go generate's patches: each fails, by name, when
// gqlgen stops generating what it patches.
func TestPatches(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, err string
	}{
		{"all apply", "", "", ""},
		{"lists marshalled otherwise", "graphql.MarshalSliceConcurrently(", "graphql.MarshalSlice(", "patch marshal-slice: pattern not found"},
		{"no unmarshaler map", "graphql.BuildUnmarshalerMap(", "graphql.UnmarshalerMap(", "patch no-unmarshaler-map: pattern not found"},
		{"fields resolved otherwise", "graphql.ResolveField(", "graphql.ResolveFieldFast(", "patch leaves: no field read from a struct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := gqlgenShape()
			if tc.from != "" {
				src = strings.ReplaceAll(src, tc.from, tc.to)
			}
			out, report, err := applyOne(src, patches)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"marshalSlice(ctx", "noUnmarshalerMap(", check} {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			if len(report) != len(patches) {
				t.Errorf("report %v, want one line per patch", report)
			}
			if _, _, err := applyOne(out, patches); err == nil || !strings.Contains(err.Error(), "already applied") {
				t.Errorf("patching twice: %v, want already applied", err)
			}
		})
	}
}

func TestSpliceRefusesOverlaps(t *testing.T) {
	if _, err := splice([]byte("abcdef"), []edit{{nil, 1, 4, "x"}, {nil, 3, 5, "y"}}); err == nil {
		t.Error("overlapping edits: no error")
	}
	out, err := splice([]byte("abcdef"), []edit{{nil, 4, 4, "-"}, {nil, 0, 1, "A"}})
	if err != nil || string(out) != "Abcd-ef" {
		t.Errorf("splice = %q, %v", out, err)
	}
}

// gqlgenSet is gqlgenShape as gqlgen's follow-schema layout writes it: the
// builtin scalars' marshalers in prelude.generated.go, Exec in
// root_.generated.go, each type's fields and marshalers with the schema
// file that defines the type — so a leaf and its marshaler, or a list and
// its elements, sit in different files — and a file with nothing to patch.
func gqlgenSet() []source {
	prelude := header
	for _, m := range safeMarshalers {
		prelude += marshaler(m)
	}
	list := func(t string) string {
		return `func (ec *executionContext) marshalN` + t + `2ᚕ` + t + `(ctx context.Context, sel ast.SelectionSet, v []` + t + `) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return ec.marshalN` + t + `2` + t + `(ctx, sel, v[i])
	})
	return ret
}

`
	}
	return []source{
		{"graph/items.generated.go", []byte(header + field("id", "ID", "string", "marshalNID2string", true) +
			field("title", "Title", "string", "marshalNString2string", true) +
			field("kind", "Kind", "pkg.Kind", "marshalNKind2pkgᚐKind", true) + list("Item"))},
		{"graph/kinds.generated.go", []byte(header + enumMarshaler + list("Kind"))},
		{"graph/prelude.generated.go", []byte(prelude)},
		{"graph/root_.generated.go", []byte(header + `func (e *executableSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	inputUnmarshalMap := graphql.BuildUnmarshalerMap(
		ec.unmarshalInputAccessInput,
	)
	return nil
}
`)},
		{"graph/search.generated.go", []byte(header + field("o", "O", "*Other", "marshalNOther2ᚖOther", false))},
	}
}

// TestPatchesAcrossFiles: each patch applies across the set of files gqlgen
// writes and counts its changes in all of them; files it has nothing for
// stay as they were.
func TestPatchesAcrossFiles(t *testing.T) {
	in := gqlgenSet()
	out, report, err := apply(in, patches)
	if err != nil {
		t.Fatal(err)
	}
	want := []applied{{"marshal-slice", 2, 2}, {"no-unmarshaler-map", 1, 1}, {"leaves", 3, 1}}
	if len(report) != len(want) {
		t.Fatalf("report %v, want %v", report, want)
	}
	for i := range want {
		if report[i] != want[i] {
			t.Errorf("report %+v, want %+v", report[i], want[i])
		}
	}
	byName := map[string]string{}
	for i, s := range out {
		if s.name != in[i].name {
			t.Fatalf("file %d is %s, want %s: the order changed", i, s.name, in[i].name)
		}
		byName[s.name] = string(s.src)
	}
	items := byName["graph/items.generated.go"]
	for _, direct := range []string{
		"return ec.marshalNID2string(ctx, field.Selections, obj.ID)",
		"return ec.marshalNString2string(ctx, field.Selections, obj.Title)",
		// the enum's marshaler is in kinds.generated.go
		"return ec.marshalNKind2pkgᚐKind(ctx, field.Selections, obj.Kind)",
	} {
		if !strings.Contains(items, check+direct+"\n\t}\n\treturn graphql.ResolveField(") {
			t.Errorf("no direct answer %q in\n%s", direct, items)
		}
	}
	for name, want := range map[string]string{
		"graph/items.generated.go": "ret := marshalSlice(ctx, len(v), 0, false,",
		"graph/kinds.generated.go": "ret := marshalSlice(ctx, len(v), 0, false,",
		"graph/root_.generated.go": "inputUnmarshalMap := noUnmarshalerMap(",
	} {
		if !strings.Contains(byName[name], want) {
			t.Errorf("%s: no %q in\n%s", name, want, byName[name])
		}
	}
	for _, name := range []string{"graph/prelude.generated.go", "graph/search.generated.go"} {
		for j := range in {
			if in[j].name == name && byName[name] != string(in[j].src) {
				t.Errorf("%s changed though nothing in it is patched:\n%s", name, byName[name])
			}
		}
	}
	if _, _, err := apply(out, patches); err == nil || !strings.Contains(err.Error(), "patch marshal-slice: already applied (graph/items.generated.go)") {
		t.Errorf("patching the set twice: %v, want already applied, naming the file", err)
	}
}

// TestPatchesAcrossFilesFailLoudly: a patch fails when its pattern is in
// none of the files, however much the other patches find; one file
// carrying a patch already is refused.
func TestPatchesAcrossFilesFailLoudly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string
		only     string // the file changed, "" for all
		err      string
	}{
		{"lists marshalled otherwise everywhere", "graphql.MarshalSliceConcurrently(", "graphql.MarshalSlice(", "",
			"patch marshal-slice: pattern not found (calls of github.com/99designs/gqlgen/graphql.MarshalSliceConcurrently) in any of 5 files"},
		{"no unmarshaler map", "graphql.BuildUnmarshalerMap(", "graphql.UnmarshalerMap(", "",
			"patch no-unmarshaler-map: pattern not found"},
		{"a safe marshaler gone from the prelude", "marshalNString2string(ctx context.Context", "marshalNString2scalarᚐString(ctx context.Context", "graph/prelude.generated.go",
			"patch leaves: safe marshalers not generated: marshalNString2string"},
		{"one file patched already", "graphql.MarshalSliceConcurrently(", "marshalSlice(", "graph/kinds.generated.go",
			"patch marshal-slice: already applied (graph/kinds.generated.go)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := gqlgenSet()
			for i := range set {
				if tc.only == "" || set[i].name == tc.only {
					set[i].src = []byte(strings.ReplaceAll(string(set[i].src), tc.from, tc.to))
				}
			}
			if _, _, err := apply(set, patches); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
	// One of two lists is enough for marshal-slice.
	set := gqlgenSet()
	set[1].src = []byte(strings.ReplaceAll(string(set[1].src), "graphql.MarshalSliceConcurrently(", "graphql.MarshalSlice("))
	if _, report, err := apply(set, patches); err != nil || report[0] != (applied{"marshal-slice", 1, 1}) {
		t.Errorf("the pattern in one file of the set: %v, %v", report, err)
	}
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.generated.go", "a.generated.go", "other.go"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("package graph\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := expand([]string{filepath.Join(dir, "*.generated.go"), filepath.Join(dir, "a.generated.go")})
	want := []string{filepath.Join(dir, "a.generated.go"), filepath.Join(dir, "b.generated.go")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("expand = %v, %v; want %v", got, err, want)
	}
	if _, err := expand([]string{filepath.Join(dir, "*.gen.go")}); err == nil {
		t.Error("a pattern matching nothing: no error")
	}
}
