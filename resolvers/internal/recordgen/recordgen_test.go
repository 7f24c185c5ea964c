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
