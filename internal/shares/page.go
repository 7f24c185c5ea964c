package shares

import (
	"embed"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/loupe-mam/loupe/internal/platform/webassets"
)

// The outsider's page: one document for every link (its script reads the
// token from the address), its script and its style, all in the binary —
// no CDN, nothing inline, so that a strict Content-Security-Policy holds.
// index.html is a template naming the others (asset).
//
//go:embed page
var pageFiles embed.FS

// pages are built on first use: a server nobody opens a share on never
// pays for them. The files are embedded: only a broken checkout fails, and
// the package's tests catch it first.
var pages = sync.OnceValue(func() *webassets.Set {
	root, err := fs.Sub(pageFiles, "page")
	if err == nil {
		// A file's URL is relative to the page (/share/<token>: "assets/…"
		// is /share/assets/…, behind a proxy's prefix too).
		var set *webassets.Set
		if set, err = webassets.Build(root, "index.html", "assets/"); err == nil {
			return set
		}
	}
	panic("shares: the page: " + err.Error())
})

// pageCSP is the page's policy: everything from the server itself, and
// the media links from where they are signed for (media: origins other
// than the page's). Scripts and styles only from files (no inline, no
// eval); the strip's WebVTT map is fetched (connect-src), its sprite
// sheets drawn as CSS backgrounds (img-src).
func pageCSP(media []string) string {
	m := ""
	for _, o := range media {
		m += " " + o
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:" + m + "; media-src 'self'" + m +
		"; connect-src 'self'" + m + "; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}

// mediaOrigins are the origins of the signed media links other than the
// page's own: Loupe's /blobs/ links' base, and the bucket's when files are
// downloaded from S3 directly (a presigned link shows its origin).
func (h *Handler) mediaOrigins(r *http.Request) []string {
	if h.Blobs == nil {
		return nil
	}
	self := "http://"
	if r.TLS != nil {
		self = "https://"
	}
	self = strings.ToLower(self + r.Host)
	var out []string
	for _, link := range []string{h.Blobs.BaseURL(), h.Blobs.URL("GET", "share-page/origin", time.Now(), time.Minute)} {
		u, err := url.Parse(link)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if o := strings.ToLower(u.Scheme + "://" + u.Host); o != self && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// pageHeaders are every answer's of the page's: the token is in the page's
// path, so no Referer ever leaves it.
func pageHeaders(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Robots-Tag", "noindex, nofollow")
}

// page serves the outsider's page: the same document whatever the token
// (its script reads the token from location.pathname and asks the API),
// never cached, under its Content-Security-Policy.
func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	w.Header().Set("Content-Security-Policy", pageCSP(h.mediaOrigins(r)))
	w.Header().Set("Cache-Control", "no-store")
	pages().Page.Serve(w, r, false)
}

// asset serves the page's files; a file named with its version (?v=, as
// the page names them) is kept for good, others revalidate by ETag.
func (h *Handler) asset(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	// A file is no document: nothing it could load or run.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	if !pages().ServeAsset(w, r, chi.URLParam(r, "*")) {
		w.Header().Del("Content-Security-Policy")
		http.NotFound(w, r)
	}
}
