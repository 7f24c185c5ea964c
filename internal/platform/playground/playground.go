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
	"net/http"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe/internal/platform/webassets"
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
	set, err := build()
	if err != nil {
		// The files are embedded: only a broken checkout gets here, and
		// the package's tests catch it first.
		panic("playground: " + err.Error())
	}
	return &handler{set}
})

type handler struct{ *webassets.Set }

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
		h.Page.Serve(w, r, false)
	case sub && name == "":
		// The page's links are relative to Path: send /playground/ there,
		// relatively too (http.Redirect would make the path absolute, and
		// lose a proxy's prefix).
		w.Header().Set("Location", "../playground")
		w.WriteHeader(http.StatusMovedPermanently)
	case sub && h.ServeAsset(w, r, name):
		// The page names each file with its hash (?v=): that URL's content
		// never changes, so browsers keep it; other URLs revalidate.
	default:
		http.NotFound(w, r)
	}
}
