// Package apireference serves /reference: the REST interface's OpenAPI
// document (/openapi.json, rest/openapi) rendered by Scalar's API reference,
// wholly from files embedded in the binary, so that it works on a network
// without internet and under a strict Content-Security-Policy.
//
// assets/ holds Scalar's standalone browser bundle (pinned in ./refresh,
// listed with its sha256 in assets/VERSIONS) and our own page (index.html,
// reference.js, reference.css). reference.js starts Scalar with everything
// that would reach beyond the server turned off; docs/api-reference.md says
// what and how to refresh the bundle.
package apireference

import (
	"net/http"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe/internal/platform/webassets"
)

// Path is where the page is served; its files are under Path + "/".
const Path = "/reference"

// csp lets the page load only what the binary serves. The browser test
// fails on any violation, so each source here is one Scalar needs:
//
//   - script-src 'self': the bundle and our script; no inline script and
//     no eval (reference.js turns off the eval probe of the zod inside the
//     bundle, which would otherwise be refused and reported).
//   - style-src 'self' 'unsafe-inline': Scalar carries its CSS as strings
//     and inserts it as <style> elements (the bundle's own styles, the
//     theme, the toasts), and sets style attributes (its scrollbar probe);
//     only the first of those would take a nonce.
//   - img-src 'self' data:: its CSS draws icons as data: SVG masks; the
//     page's favicon is data: too.
//   - connect-src 'self': the document (/openapi.json) and, from "Test
//     Request", the API itself.
//
// Nothing else: no fonts (Scalar's default fonts, from its CDN, are off:
// the system's fonts are used), no frames, no workers, no forms.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at Path and its files at Path/<name>; any other
// name under Path is not found. It holds no data: it needs no
// authentication (the document it renders is public, and "Test Request"
// sends only what the user types). The files are indexed and compressed on
// the first request, not at start: a server nobody opens the reference on
// never pays for them.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { loaded().ServeHTTP(w, r) })
}

// loaded builds the page and indexes the files once, on first use.
var loaded = sync.OnceValue(func() *handler {
	set, err := build()
	if err != nil {
		// The files are embedded: only a broken checkout gets here, and
		// the package's tests catch it first.
		panic("apireference: " + err.Error())
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
		// The page's links are relative to Path: send /reference/ there,
		// relatively too (http.Redirect would make the path absolute, and
		// lose a proxy's prefix).
		w.Header().Set("Location", "../reference")
		w.WriteHeader(http.StatusMovedPermanently)
	case sub && h.ServeAsset(w, r, name):
		// The page names each file with its hash (?v=): that URL's content
		// never changes, so browsers keep it; other URLs revalidate.
	default:
		http.NotFound(w, r)
	}
}
