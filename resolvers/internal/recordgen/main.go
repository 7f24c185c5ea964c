// Command recordgen writes resolvers/records_gen.go: the REST records that
// are written as one JSON value for speed (resolvers/jsonw.go says why),
// generated from fragments, so that the fragment is the only list of a
// record's fields: the stored fragments of rest/operations/*.graphql, and
// those of resolvers/records.graphql — records whose fragment no REST
// operation selects (an unused fragment fails validation of the combined
// REST document), validated against the schema here.
//
// Each fragment field is written from what gqlgen answers it with, found
// the way gqlgen binds it: the object's resolver method when the generated
// <Object>Resolver interface (graph/*.generated.go) has one, else a method,
// else a field of the Go value, matched by name ignoring case. The JSON
// writer follows from the Go type (writer, generate.go). A field it cannot map — an
// argument with a default, a spread, a Go type it has no writer for — is an
// error naming the field: go generate fails instead of writing a record
// that differs from the fragment.
//
// Usage (go:generate, resolvers/records.go): recordgen records_gen.go
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: recordgen records_gen.go")
		os.Exit(2)
	}
	root, err := moduleRoot()
	if err == nil {
		var src []byte
		if src, err = generate(root); err == nil {
			err = os.WriteFile(os.Args[1], src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recordgen:", err)
		os.Exit(1)
	}
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = up
	}
}
