// Command postgen patches gqlgen's generated executor — the files gqlgen
// writes in graph/ (exec layout follow-schema: one <domain>.generated.go
// per schema file, root_.generated.go and prelude.generated.go) — where
// gqlgen has no option for what Loupe needs (docs/codegen.md):
//
//   - marshal-slice: lists marshal their elements one after the other
//     (graph.marshalSlice), not one goroutine per element;
//   - no-unmarshaler-map: Exec builds no map of input unmarshalers per
//     operation (graph.noUnmarshalerMap);
//   - leaves: a scalar read straight from a struct field is answered
//     directly unless a field interceptor is installed
//     (graph.fieldsIntercepted).
//
// Each patch applies across the whole set of files — what it needs may be
// in one file and what it changes in another — finds its pattern on the Go
// syntax trees and fails, naming itself, when the pattern is in none of
// them, so that a gqlgen upgrade which changes the shape of its output
// breaks `go generate` instead of leaving the code silently unpatched. It
// refuses to patch a file twice.
//
// Usage (go:generate, graph/generate.go): postgen 'graph/*.generated.go'
// (arguments are files or glob patterns; every file is patched in place).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: postgen file.go|pattern ...")
		os.Exit(2)
	}
	paths, err := expand(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgen:", err)
		os.Exit(1)
	}
	var srcs []source
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "postgen:", err)
			os.Exit(1)
		}
		srcs = append(srcs, source{path, src})
	}
	out, applied, err := apply(srcs, patches)
	if err != nil {
		fmt.Fprintf(os.Stderr, "postgen: %v\n", err)
		os.Exit(1)
	}
	for i, s := range out {
		if bytes.Equal(s.src, srcs[i].src) {
			continue // nothing to patch in it
		}
		if err := os.WriteFile(s.name, s.src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "postgen:", err)
			os.Exit(1)
		}
	}
	for _, a := range applied {
		fmt.Printf("postgen: %s: %d changes in %d of %d files\n", a.name, a.changes, a.files, len(out))
	}
}

// expand resolves the arguments, files or glob patterns, to the files they
// name, sorted and each once; a pattern that matches nothing is an error.
func expand(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		matches, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", a, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no such file", a)
		}
		paths = append(paths, matches...)
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
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
