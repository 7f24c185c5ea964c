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
func Handler() http.Handler { return webassets.PageHandler(Path, csp, build) }
