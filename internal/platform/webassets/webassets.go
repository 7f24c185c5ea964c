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
	pathpkg "path"
	"strings"
	"sync"
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
	f.contentType = contentTypes[pathpkg.Ext(name)]
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

// PageHandler serves a Set's page at path, under the Content-Security-Policy
// csp, and its files at path/<name>; any other name under path is not
// found. The set is built by build on the first request, not at start: a
// server nobody opens the page on never pays for it. The playground and the
// API reference serve theirs so.
func PageHandler(path, csp string, build func() (*Set, error)) http.Handler {
	loaded := sync.OnceValue(func() *Set {
		set, err := build()
		if err != nil {
			// The files are embedded: only a broken checkout gets here,
			// and the page's package's tests catch it first.
			panic("webassets: " + path + ": " + err.Error())
		}
		return set
	})
	// The page's links are relative to path: /<page>/ is sent there,
	// relatively too (http.Redirect would make the path absolute, and lose
	// a proxy's prefix).
	back := "../" + pathpkg.Base(path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		s := loaded()
		name, sub := strings.CutPrefix(r.URL.Path, path+"/")
		switch {
		case r.URL.Path == path:
			w.Header().Set("Content-Security-Policy", csp)
			w.Header().Set("Referrer-Policy", "no-referrer")
			s.Page.Serve(w, r, false)
		case sub && name == "":
			w.Header().Set("Location", back)
			w.WriteHeader(http.StatusMovedPermanently)
		case sub && s.ServeAsset(w, r, name):
			// The page names each file with its hash (?v=): that URL's
			// content never changes, so browsers keep it; other URLs
			// revalidate.
		default:
			http.NotFound(w, r)
		}
	})
}
