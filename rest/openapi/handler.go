package openapi

import (
	"encoding/json"
	"net/http"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/loupe-mam/loupe/internal/platform/webassets"
)

// Paths where the document is served.
const (
	PathJSON = "/openapi.json"
	PathYAML = "/openapi.yaml"
)

// Handler serves the document as JSON at PathJSON and YAML at PathYAML.
// It holds no data and needs no credential. The document is written on the
// first request, not at start.
func Handler(opts Options) http.Handler {
	files := sync.OnceValues(func() (map[string]*webassets.File, error) {
		doc, err := Build(opts)
		if err != nil {
			return nil, err
		}
		j, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return nil, err
		}
		y, err := yaml.Marshal(doc)
		if err != nil {
			return nil, err
		}
		jf, err := webassets.NewFile("openapi.json", j)
		if err != nil {
			return nil, err
		}
		yf, err := webassets.NewFile("openapi.yaml", y)
		if err != nil {
			return nil, err
		}
		return map[string]*webassets.File{PathJSON: jf, PathYAML: yf}, nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs, err := files()
		if err != nil {
			// Written from the binary's own tables: only a broken build
			// gets here, and this package's tests catch it first.
			http.Error(w, "openapi: "+err.Error(), http.StatusInternalServerError)
			return
		}
		f := fs[r.URL.Path]
		if f == nil {
			http.NotFound(w, r)
			return
		}
		f.Serve(w, r, false)
	})
}
