// Package playground serves /playground: GraphiQL with our page around it,
// wholly from files embedded in the binary, so that it works on a network
// without internet and under a strict Content-Security-Policy. The page asks
// for an API key once (or takes it from the URL fragment #key=…), keeps it in
// the browser and sends it as Authorization: Bearer on every request.
//
// assets/ holds the third-party files (GraphiQL's UMD build and React, pinned
// in ./refresh, listed with their sha256 in assets/VERSIONS) and our own page
// (index.html, playground.js, playground.css). docs/playground.md says why
// GraphiQL 4 and how to refresh them.
package playground

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Path is where the page is served; its files are under Path + "/".
const Path = "/playground"

// csp lets the page load only what the binary serves: scripts only from
// 'self' (no inline script, no eval). GraphiQL's dialogs insert a <style>
// element (react-remove-scroll, under Radix) and its CSS inlines fonts and
// icons as data: URLs; the browser test fails on any violation, so each
// source here is one the page needs.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at Path and its files at Path/<name>; any other
// name under Path is not found. It holds no data: it needs no
// authentication (the page's requests to /graphql carry the key). The
// files are indexed and compressed on the first request, not at start: a
// server nobody opens the playground on never pays for them.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { loaded().ServeHTTP(w, r) })
}

// loaded builds the page and indexes the files once, on first use.
var loaded = sync.OnceValue(func() *handler {
	h, err := build()
	if err != nil {
		// The files are embedded: only a broken checkout gets here, and
		// the package's tests catch it first.
		panic("playground: " + err.Error())
	}
	return h
})

type handler struct {
	page   *file
	assets map[string]*file
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, sub := strings.CutPrefix(r.URL.Path, Path+"/")
	switch {
	case r.URL.Path == Path:
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.page.serve(w, r, false)
	case sub && name == "":
		// The page's links are relative to Path: send /playground/ there,
		// relatively too (http.Redirect would make the path absolute, and
		// lose a proxy's prefix).
		w.Header().Set("Location", "../playground")
		w.WriteHeader(http.StatusMovedPermanently)
	case sub && h.assets[name] != nil:
		f := h.assets[name]
		// The page names each file with its hash (?v=): that URL's content
		// never changes, so browsers keep it; other URLs revalidate.
		f.serve(w, r, r.URL.Query().Get("v") == f.version)
	default:
		http.NotFound(w, r)
	}
}

// serve answers f, gzipped when the client takes it, with revalidation by
// ETag.
func (f *file) serve(w http.ResponseWriter, r *http.Request, immutable bool) {
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("X-Content-Type-Options", "nosniff")
	if immutable {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hdr.Set("Cache-Control", "no-cache")
	}
	body, etag := f.body, `"`+f.version+`"`
	if f.gzipped != nil {
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			body, etag = f.gzipped, `"`+f.version+`-gz"`
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
