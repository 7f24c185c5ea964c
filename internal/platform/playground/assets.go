package playground

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"strings"
)

// The page, its script and style, and the third-party files ./refresh
// copies; index.html is a template naming the others (asset).
//
//go:embed assets
var embedded embed.FS

// file is one answer, ready to send.
type file struct {
	body        []byte
	gzipped     []byte // nil when not worth it
	contentType string
	// version is the start of the body's sha256: the ETag, and the ?v= of
	// the URL the page names the file by.
	version string
}

// contentTypes by extension; anything else (VERSIONS, licences) is text.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// build reads the embedded files and renders the page.
func build() (*handler, error) {
	root, err := fs.Sub(embedded, "assets")
	if err != nil {
		return nil, err
	}
	h := &handler{assets: map[string]*file{}}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "index.html" {
			return err
		}
		b, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		h.assets[name], err = newFile(name, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("index.html").Funcs(template.FuncMap{
		// asset is the URL of an embedded file, relative to the page,
		// with its version, so that browsers may cache it for good.
		"asset": func(name string) (string, error) {
			f := h.assets[name]
			if f == nil {
				return "", fmt.Errorf("index.html names %s, which is not in assets/", name)
			}
			return strings.TrimPrefix(Path, "/") + "/" + name + "?v=" + f.version, nil
		},
	}).ParseFS(root, "index.html")
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := tmpl.Execute(&page, nil); err != nil {
		return nil, err
	}
	h.page, err = newFile("index.html", page.Bytes())
	return h, err
}

func newFile(name string, body []byte) (*file, error) {
	sum := sha256.Sum256(body)
	f := &file{body: body, version: hex.EncodeToString(sum[:8])}
	f.contentType = contentTypes[path.Ext(name)]
	if f.contentType == "" {
		f.contentType = "text/plain; charset=utf-8"
	}
	// GraphiQL's script and style are 1.5 MB together, 0.6 MB gzipped:
	// compressed once here rather than on every load.
	if len(body) > 1024 {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		if z.Len() < len(body) {
			f.gzipped = z.Bytes()
		}
	}
	return f, nil
}
