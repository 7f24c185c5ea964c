package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"golang.org/x/tools/go/packages"
)

// records_gen.go is what the fragments generate: a fragment changed
// without `go generate ./resolvers` fails here.
func TestRecordsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the graph package's types; skipped with -short")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "resolvers", "records_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("resolvers/records_gen.go is stale: run go generate ./resolvers")
	}
}

// A fragment field the generator cannot map fails generation, naming it.
func TestUnmappableFieldsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the graph package's types; skipped with -short")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	schema, _, err := loadGraphQL(root)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedTypes}, graphPkg)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ fragment, err string }{
		{`fragment F on Item { id ... on Item { title } }`, "only fields"},
		{`fragment F on Item { __typename }`, "__typename"},
		{`fragment F on Item { thumbnails { nextIndex } }`, "argument index has a default"},
		{`fragment F on Item { ancestry { id } }`, "Item.ancestry: Go []*github.com/loupe-mam/loupe/store.PathEntry is not a struct for GraphQL object PathEntry"},
		{`fragment F on Item { id comments(first: 2) { nodes { id } } }`, "only the record's variables"},
	}
	for _, c := range cases {
		doc, errs := gqlparser.LoadQuery(schema, c.fragment+` query Q { item(id: "x") { ...F } }`)
		if errs != nil {
			t.Fatalf("%s: %v", c.fragment, errs)
		}
		g := &gen{schema: schema, graph: pkgs[0].Types, imports: map[string]string{}}
		_, err := g.record(record{Fragment: "F", Func: "f", Obj: "it", Cap: "0"}, doc.Fragments.ForName("F"))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one saying %q", c.fragment, err, c.err)
		}
	}
}

// The records-only fragments are validated against the schema (every rule
// but the one refusing unused fragments) and hold fragments only.
func TestRecordFragmentsAreValidated(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	schema, frags, err := loadGraphQL(root)
	if err != nil {
		t.Fatal(err)
	}
	if frags.ForName("FolderContentRecord") == nil || frags.ForName("ItemRecord") == nil {
		t.Fatal("the fragments of both files are not all loaded")
	}
	cases := []struct{ src, err string }{
		{`fragment F on FolderContent { total nope }`, `Cannot query field "nope" on type "FolderContent"`},
		{`fragment F on FolderContent { hits }`, `must have a selection of subfields`},
		{`fragment F on Nothing { id }`, `Unknown type "Nothing"`},
		{`fragment F on FolderContent { total } fragment F on FolderContent { from }`, `There can be only one fragment named "F"`},
		{`query Q { viewer { id } }`, `fragments only`},
	}
	for _, c := range cases {
		file := filepath.Join(t.TempDir(), "records.graphql")
		if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadRecordFragments(schema, file)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one saying %q", c.src, err, c.err)
		}
	}
	// An unused fragment alone is fine.
	file := filepath.Join(t.TempDir(), "records.graphql")
	if err := os.WriteFile(file, []byte(`fragment F on FolderContent { total }`), 0o644); err != nil {
		t.Fatal(err)
	}
	if fs, err := loadRecordFragments(schema, file); err != nil || fs.ForName("F") == nil {
		t.Fatalf("an unused fragment: %v, %v", fs, err)
	}
}
