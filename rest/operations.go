package rest

import (
	"embed"
	"io/fs"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

//go:embed operations/*.graphql
var operationFiles embed.FS

// Document is every stored operation in one GraphQL document. Routes name
// their operation in it; sharing one document means it is parsed and
// validated once, then served from the executor's query cache.
var Document = loadDocument()

func loadDocument() string {
	names, err := fs.Glob(operationFiles, "operations/*.graphql")
	if err != nil {
		panic(err)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		src, err := operationFiles.ReadFile(n)
		if err != nil {
			panic(err)
		}
		b.Write(src)
		b.WriteByte('\n')
	}
	return b.String()
}

// singleRoot names the operations that select exactly one top-level field:
// their data is {"<field>":<value>}, which the handler cuts without
// scanning it (soleField).
var singleRoot = rootFieldCounts(Document)

func rootFieldCounts(doc string) map[string]bool {
	q, err := parser.ParseQuery(&ast.Source{Input: doc})
	if err != nil {
		panic(err) // the stored document is validated by the tests
	}
	out := map[string]bool{}
	for _, op := range q.Operations {
		n := 0
		for _, sel := range op.SelectionSet {
			if _, ok := sel.(*ast.Field); ok {
				n++
			} else {
				n = 2 // a fragment at the root: not known to be one field
			}
		}
		out[op.Name] = n == 1
	}
	return out
}
