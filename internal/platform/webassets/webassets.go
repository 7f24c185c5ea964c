// Package webassets serves a page embedded in the binary and its files:
// each file versioned by its content's hash (the page names it with ?v=,
// so browsers keep it for good), gzipped once when that is worth it, and
// revalidated by ETag. The playground and the shares' page use it.
package webassets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// File is one answer, ready to send.
type File struct {
	body        []byte
	gzipped     []byte // nil when not worth it
	contentType string
	// Version is the start of the body's sha256: the ETag, and the ?v= of
	// the URL the page names the file by.
	Version string
}

// contentTypes by extension; anything else (VERSIONS, licences) is text.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".yaml": "application/yaml",
}

// Set is a page and the files it names.
type Set struct {
	Page   *File
	assets map[string]*File
}

// Build reads every file of root but page, then renders page — an
// html/template whose function asset names a file — with each file's URL
// as prefix + name + "?v=" + its version.
func Build(root fs.FS, page, prefix string) (*Set, error) {
	s := &Set{assets: map[string]*File{}}
	err := fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == page {
			return err
		}
		b, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		s.assets[name], err = NewFile(name, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New(page).Funcs(template.FuncMap{
		"asset": func(name string) (string, error) {
			f := s.assets[name]
			if f == nil {
				return "", fmt.Errorf("%s names %s, which is not among its files", page, name)
			}
			return prefix + name + "?v=" + f.Version, nil
		},
	}).ParseFS(root, page)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, nil); err != nil {
		return nil, err
	}
	s.Page, err = NewFile(page, b.Bytes())
	return s, err
}

// Asset is the file name (nil: none).
func (s *Set) Asset(name string) *File { return s.assets[name] }

// ServeAsset answers the file name, cached for good when the request names
// its current version; false when there is no such file.
func (s *Set) ServeAsset(w http.ResponseWriter, r *http.Request, name string) bool {
	f := s.assets[name]
	if f == nil {
		return false
	}
	f.Serve(w, r, r.URL.Query().Get("v") == f.Version)
	return true
}

// NewFile makes a File of body, gzipping it once when that is worth it.
func NewFile(name string, body []byte) (*File, error) {
	sum := sha256.Sum256(body)
	f := &File{body: body, Version: hex.EncodeToString(sum[:8])}
	f.contentType = contentTypes[path.Ext(name)]
	if f.contentType == "" {
		f.contentType = "text/plain; charset=utf-8"
	}
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

// Serve answers f, gzipped when the client takes it, with revalidation by
// ETag; immutable: browsers may keep it for good (its URL names its
// version), else they revalidate.
func (f *File) Serve(w http.ResponseWriter, r *http.Request, immutable bool) {
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("X-Content-Type-Options", "nosniff")
	if immutable {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else if hdr.Get("Cache-Control") == "" {
		hdr.Set("Cache-Control", "no-cache")
	}
	body, etag := f.body, `"`+f.Version+`"`
	if f.gzipped != nil {
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			body, etag = f.gzipped, `"`+f.Version+`-gz"`
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether Accept-Encoding lists gzip (not refused with
// q=0; browsers always list it).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
