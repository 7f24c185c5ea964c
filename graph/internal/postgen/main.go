// Command postgen patches gqlgen's generated executor (graph/generated.go)
// where gqlgen has no option for what Loupe needs (docs/codegen.md):
//
//   - marshal-slice: lists marshal their elements one after the other
//     (graph.marshalSlice), not one goroutine per element;
//   - no-unmarshaler-map: Exec builds no map of input unmarshalers per
//     operation (graph.noUnmarshalerMap);
//   - leaves: a scalar read straight from a struct field is answered
//     directly unless a field interceptor is installed
//     (graph.fieldsIntercepted).
//
// Each patch finds its pattern on the Go syntax tree and fails, naming
// itself, when the pattern is not there — so that a gqlgen upgrade which
// changes the shape of its output breaks `go generate` instead of leaving
// the code silently unpatched. It refuses to patch a file twice.
//
// Usage (go:generate, graph/generate.go): postgen graph/generated.go
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: postgen generated.go")
		os.Exit(2)
	}
	path := os.Args[1]
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgen:", err)
		os.Exit(1)
	}
	out, applied, err := apply(src, patches)
	if err != nil {
		fmt.Fprintf(os.Stderr, "postgen: %s: %v\n", path, err)
		os.Exit(1)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "postgen:", err)
		os.Exit(1)
	}
	for _, a := range applied {
		fmt.Printf("postgen: %s: %d changes\n", a.name, a.changes)
	}
}

// patches are what go generate applies, in this order (the order matters
// only for the report: each patch reads gqlgen's own output).
var patches = []patch{
	renameCall("marshal-slice", gqlgenGraphQL, "MarshalSliceConcurrently", "marshalSlice"),
	renameCall("no-unmarshaler-map", gqlgenGraphQL, "BuildUnmarshalerMap", "noUnmarshalerMap"),
	leaves(safeMarshalers),
}

// gqlgenGraphQL is the import path of gqlgen's runtime package.
const gqlgenGraphQL = "github.com/99designs/gqlgen/graphql"
