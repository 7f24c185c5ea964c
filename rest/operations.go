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

// operations are the stored document's operations by name.
var operations = parseOperations(Document)

func parseOperations(doc string) map[string]*ast.OperationDefinition {
	q, err := parser.ParseQuery(&ast.Source{Input: doc})
	if err != nil {
		panic(err) // the stored document is validated by the tests
	}
	out := map[string]*ast.OperationDefinition{}
	for _, op := range q.Operations {
		out[op.Name] = op
	}
	return out
}

// soleFields counts the leading steps of a route's field path at which the
// object holding the step has that one key: the operation selects only
// that field there (no alias, no fragment). gqlgen writes such an object
// as {"<field>":<value>}, which the handler cuts without scanning it
// (soleField).
func soleFields(op string, path []string) int {
	o := operations[op]
	if o == nil {
		return 0
	}
	set := o.SelectionSet
	for n, f := range path {
		if len(set) != 1 {
			return n
		}
		field, ok := set[0].(*ast.Field)
		if !ok || field.Alias != f {
			return n
		}
		set = field.SelectionSet
	}
	return len(path)
}
