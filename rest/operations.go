package rest

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
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
