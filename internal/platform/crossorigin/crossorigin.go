// Package crossorigin lets browsers on other origins use Loupe: a frontend
// served from its own origin calling /graphql and REST, a player page
// drawing a proxy's frames into a canvas. Loupe answers CORS (preflights
// and the headers on actual answers) only for the origins the operator
// allows (LOUPE_CORS_ORIGINS); with none, it sends no CORS header at all
// and browsers keep other origins out (docs/cors.md).
//
// The protocol itself is github.com/rs/cors; this package decides what
// Loupe allows.
package crossorigin

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rs/cors"
)

// Any is the setting that allows every origin. It never goes with
// credentials: answers carry `Access-Control-Allow-Origin: *`, which
// browsers refuse to pair with cookies.
const Any = "*"

// maxAge is how long a browser may keep a preflight's answer (seconds):
// long enough that a frontend does not preflight every call, short enough
// that a changed setting reaches browsers within minutes. (Chromium caps
// it at 2 hours, Firefox at 24.)
const maxAge = 600

// methods are the API's: REST's verbs, tus's PATCH and HEAD, and the
// signed links' PUT.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete}

// requestHeaders are those a page may send beside the operator's key
// headers: credentials (Authorization, X-API-Key) and a token's tenant,
// bodies, the request id, conditional and ranged reads, and tus's.
var requestHeaders = []string{
	"Authorization", "X-Api-Key", "X-Loupe-Tenant", "Content-Type", "X-Request-Id",
	"Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Range",
	"Tus-Resumable", "Upload-Length", "Upload-Offset", "Upload-Metadata", "Upload-Defer-Length",
	"Upload-Concat", "X-Http-Method-Override",
}

// exposedHeaders are the answers' headers a page may read beyond the ones
// browsers always show (Content-Type, Content-Length, Last-Modified…):
// the request id to quote in a report, a download's validators, ranges and
// file name, a created upload's Location and tus's offsets.
var exposedHeaders = []string{
	"X-Request-Id", "ETag", "Content-Disposition", "Content-Range", "Accept-Ranges", "Location",
	"Retry-After", "Tus-Resumable", "Tus-Version", "Tus-Extension", "Tus-Max-Size",
	"Upload-Offset", "Upload-Length", "Upload-Metadata", "Upload-Defer-Length", "Upload-Expires",
}

// ParseOrigins reads LOUPE_CORS_ORIGINS: comma-separated origins
// (scheme://host[:port], http or https, no path), a host's leftmost label
// may be `*` (https://*.example.com: every subdomain), or `*` alone for
// every origin. Origins are lower-cased and deduplicated. Returns an error
// naming an entry that is not an origin: a server that ignored a bad entry
// would leave the frontend it names locked out without saying why.
func ParseOrigins(setting string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(setting, ",") {
		o = strings.ToLower(strings.TrimSpace(o))
		if o == "" || slices.Contains(out, o) {
			continue
		}
		if o != Any {
			if err := checkOrigin(o); err != nil {
				return nil, err
			}
		}
		out = append(out, o)
	}
	if slices.Contains(out, Any) && len(out) > 1 {
		return nil, fmt.Errorf("%q stands alone: it allows every origin, so listing others beside it means nothing", Any)
	}
	return out, nil
}

// checkOrigin reports why o is not an origin an Origin header can carry.
func checkOrigin(o string) error {
	bad := func(why string) error {
		return fmt.Errorf("%q is not an origin (scheme://host[:port], as a browser's Origin header names it): %s", o, why)
	}
	host := strings.Replace(o, "://*.", "://wildcard.", 1)
	if strings.Contains(host, "*") {
		return bad("a wildcard only stands for the leftmost labels of the host (https://*.example.com)")
	}
	u, err := url.Parse(host)
	switch {
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("the scheme is http or https")
	case u.Host == "" || u.Hostname() == "":
		return bad("it names no host")
	case u.User != nil:
		return bad("an origin has no user name")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#"):
		return bad("an origin has no path, query or fragment (not even a trailing /)")
	}
	return nil
}

// Middleware answers CORS for origins (ParseOrigins; none: nil, and Loupe
// sends no CORS header) on every route: the API, the tus endpoint and the
// signed /blobs/ links a <video crossorigin> or a canvas reads. keyHeaders
// are the operator's further API key headers (LOUPE_API_KEY_HEADERS),
// which a page must be allowed to send.
//
// A preflight is answered before authentication (a browser sends it
// without the key) and never reaches the routes. Listed origins get
// `Access-Control-Allow-Credentials: true` (a frontend whose client sends
// cookies along still works); `*` never does.
func Middleware(origins, keyHeaders []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		return nil
	}
	everyOrigin := slices.Contains(origins, Any)
	c := cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   methods,
		AllowedHeaders:   append(slices.Clone(requestHeaders), keyHeaders...),
		ExposedHeaders:   exposedHeaders,
		AllowCredentials: !everyOrigin,
		MaxAge:           maxAge,
	})
	return c.Handler
}

// Allows is whether origins (ParseOrigins) allow origin: what a WebSocket,
// which browsers open without a preflight, is checked against.
func Allows(origins []string, origin string) bool {
	origin = strings.ToLower(origin)
	for _, o := range origins {
		if o == Any || o == origin {
			return true
		}
		if pre, suf, ok := strings.Cut(o, "*"); ok && len(origin) > len(pre)+len(suf) &&
			strings.HasPrefix(origin, pre) && strings.HasSuffix(origin, suf) {
			return true
		}
	}
	return false
}
