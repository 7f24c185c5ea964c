package rest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	_ "github.com/vektah/gqlparser/v2/validator/rules" // registers the standard rules

	"github.com/loupe-mam/loupe/graph"
)

// TestStoredDocumentValidates fails CI, not a user, when a stored REST
// document no longer matches the schema.
func TestStoredDocumentValidates(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	doc, err := parser.ParseQuery(&ast.Source{Name: "operations", Input: Document})
	if err != nil {
		t.Fatalf("stored operations do not parse: %v", err)
	}
	if errs := validator.Validate(schema, doc); len(errs) > 0 {
		t.Fatalf("stored operations do not validate: %v", errs)
	}
	for _, rt := range Routes {
		ops := []string{rt.Op}
		if rt.Variant != nil {
			ops = append(ops, rt.Variant.Op)
		}
		for _, op := range ops {
			if doc.Operations.ForName(op) == nil {
				t.Errorf("%s %s names operation %q, which is not stored", rt.Method, rt.Path, op)
			}
		}
	}
}

// TestRoutesAreSpecPaths checks the route table against the spec's list of
// endpoints: every route is a spec endpoint, and none is listed twice. A
// path parameter has one spelling in the table; the spec's other spelling
// of the same path ({id} for {itemId}) is served by the same route.
func TestRoutesAreSpecPaths(t *testing.T) {
	spec := specEndpoints(t)
	byShape := map[string]bool{}
	for key := range spec {
		byShape[pathShape(key)] = true
	}
	seen := map[string]bool{}
	for _, rt := range Routes {
		key := rt.Method + " " + rt.Path
		if byShape[pathShape(key)] == rt.NotInSpec {
			t.Errorf("route %s: in the spec's list %v, marked NotInSpec %v", key, !rt.NotInSpec, rt.NotInSpec)
		}
		if seen[pathShape(key)] {
			t.Errorf("route %s is listed twice", key)
		}
		seen[pathShape(key)] = true
	}
	missing := 0
	for key := range spec {
		if !seen[pathShape(key)] {
			missing++
		}
	}
	t.Logf("%d of %d spec endpoints served; %d to go", len(spec)-missing, len(spec), missing)
}

// pathShape is a method and path with its parameters' names left out.
func pathShape(key string) string { return paramName.ReplaceAllString(key, "{}") }

var paramName = regexp.MustCompile(`\{\w+\}`)

// specEndpoints reads shared/spec/endpoints.tsv, which lives beside the
// repository (CI checks it out there).
func specEndpoints(t *testing.T) map[string]bool {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "spec", "endpoints.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("spec endpoint list not found beside the repository: %v", err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) >= 3 {
			out[cols[1]+" "+cols[2]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every route's operation selects one top-level field, the one its Field
// names first: the handler relies on it to cut the answer without scanning.
func TestRouteOperationsSelectOneRootField(t *testing.T) {
	for _, rt := range Routes {
		check := func(op, field string) {
			if op != "" && field != "" && soleFields(op, fieldPath(field)) < 1 {
				t.Errorf("%s %s: operation %s does not select exactly the one top-level field %s", rt.Method, rt.Path, op, field)
			}
		}
		check(rt.Op, rt.Field)
		if rt.Variant != nil {
			check(rt.Variant.Op, rt.Variant.Field)
		}
	}
}

func TestSoleFields(t *testing.T) {
	cases := []struct {
		op, path string
		want     int
	}{
		{"getItem", "item.record", 2},
		{"getItem", "item", 1},
		{"getItem", "other", 0},
		{"createItem", "createItem.item", 2},
		{"createItem", "createItem.item.id", 2}, // item selects many fields
		{"noSuchOperation", "item", 0},
	}
	for _, c := range cases {
		if got := soleFields(c.op, fieldPath(c.path)); got != c.want {
			t.Errorf("soleFields(%s, %s) = %d, want %d", c.op, c.path, got, c.want)
		}
	}
}
