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
func Handler() http.Handler { return webassets.PageHandler(Path, csp, build) }
