package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/server"
)

// corsOrigins configures the origins a test server allows.
func corsOrigins(origins ...string) loupetest.Option {
	return func(c *server.Config) { c.CORSOrigins = origins }
}

// preflight sends what a browser sends before a request it may not make
// unasked: OPTIONS with the origin, the method and the headers to come.
func preflight(t *testing.T, c *loupetest.Client, path, origin, method, headers string) *loupetest.Response {
	t.Helper()
	h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
	if headers != "" {
		h["Access-Control-Request-Headers"] = headers
	}
	return c.DoWithHeaders(t, http.MethodOptions, path, h)
}

// allowsOrigin fails unless r lets a page on origin read it, with or
// without credentials, and Vary names Origin (so that no cache hands one
// origin's answer to another).
func allowsOrigin(t *testing.T, r *loupetest.Response, origin string, credentials bool) {
	t.Helper()
	if got := r.Header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Fatalf("%d: Access-Control-Allow-Origin %q, want %q (headers %v)", r.Code, got, origin, r.Header)
	}
	if got := r.Header.Get("Access-Control-Allow-Credentials") == "true"; got != credentials {
		t.Fatalf("Access-Control-Allow-Credentials %v, want %v", got, credentials)
	}
	if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Origin") {
		t.Fatalf("Vary %q does not name Origin", r.Header.Values("Vary"))
	}
}

// refusesOrigin fails if r carries any CORS permission: the browser then
// keeps the answer from the page.
func refusesOrigin(t *testing.T, r *loupetest.Response) {
	t.Helper()
	for k := range r.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Fatalf("%d: %s: %q on an answer to an origin not allowed", r.Code, k, r.Header.Get(k))
		}
	}
}

// An operator allows the origins of its frontends (LOUPE_CORS_ORIGINS):
// their preflights are answered before any key is asked for — for
// /graphql, REST's verbs, tus and signed links, with the operator's key
// header among those allowed — and their answers, errors included, are
// readable, with their request id, validators and ranges. Other origins,
// other headers and other methods get no permission; `*` allows every
// origin but never with credentials; without the setting nothing changes.
func TestCORSForTheOriginsTheOperatorAllows(t *testing.T) {
	const app = "https://app.example.com"
	api := loupetest.New(t, corsOrigins(app, "https://*.studio.example"), func(c *server.Config) {
		c.APIKeyHeaders = []string{"X-Vendor-Key"}
	})
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	anon := api.Anonymous()

	for _, p := range []struct{ path, method, headers string }{
		{"/graphql", "POST", "content-type,x-vendor-key"},
		{"/graphql", "POST", "authorization,content-type,x-request-id"},
		{"/api/v1/items/" + id, "DELETE", "authorization"},
		{"/api/v1/items/" + id, "PUT", "content-type,x-api-key"},
		{"/api/v1/items/" + id + "/metadata", "PATCH", "content-type,x-loupe-tenant"},
		{"/files/", "POST", "tus-resumable,upload-length,upload-metadata,x-api-key"},
		{"/files/abc", "PATCH", "content-type,tus-resumable,upload-offset"},
		{"/blobs/some/key", "GET", "range"},
	} {
		r := preflight(t, anon, p.path, app, p.method, p.headers)
		if r.Code != http.StatusNoContent {
			t.Fatalf("preflight %s %s: %d %s", p.method, p.path, r.Code, r.Body)
		}
		allowsOrigin(t, r, app, true)
		if r.Header.Get("Access-Control-Allow-Methods") != p.method || r.Header.Get("Access-Control-Allow-Headers") != p.headers ||
			r.Header.Get("Access-Control-Max-Age") != "600" {
			t.Fatalf("preflight %s %s: methods %q, headers %q, max age %q", p.method, p.path,
				r.Header.Get("Access-Control-Allow-Methods"), r.Header.Get("Access-Control-Allow-Headers"),
				r.Header.Get("Access-Control-Max-Age"))
		}
	}
	// Any subdomain of a wildcard entry; origins compare without case.
	allowsOrigin(t, preflight(t, anon, "/graphql", "https://edit.studio.example", "POST", "authorization"),
		"https://edit.studio.example", true)
	allowsOrigin(t, preflight(t, anon, "/graphql", "HTTPS://APP.EXAMPLE.COM", "POST", ""), "HTTPS://APP.EXAMPLE.COM", true)

	// No permission for what the operator did not allow.
	for _, p := range []struct{ origin, method, headers string }{
		{"https://evil.example", "POST", "authorization"},
		{"http://app.example.com", "POST", "authorization"},       // another scheme
		{"https://app.example.com:8443", "POST", "authorization"}, // another port
		{"https://studio.example", "POST", "authorization"},       // the wildcard's parent
		{"https://app.example.com.evil.example", "POST", ""},
		{"null", "POST", ""},                     // a sandboxed frame or a file
		{app, "POST", "authorization,x-unknown"}, // a header the API does not take
		{app, "POST", "x-other-key"},             // a key header the operator did not name
		{app, "TRACE", ""},                       // a method the API does not take
	} {
		r := preflight(t, anon, "/graphql", p.origin, p.method, p.headers)
		if r.Code != http.StatusNoContent {
			t.Fatalf("preflight from %s: %d", p.origin, r.Code)
		}
		refusesOrigin(t, r)
	}

	// Actual answers: readable by the allowed origin, with what a page needs
	// to read; the same answer, without permission, to another.
	get := func(c *loupetest.Client, origin string) *loupetest.Response {
		return c.DoWithHeaders(t, "GET", "/api/v1/items/"+id, map[string]string{"Origin": origin})
	}
	r := get(a, app).Status(200)
	allowsOrigin(t, r, app, true)
	exposed := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers"))
	for _, h := range []string{"x-request-id", "etag", "content-range", "content-disposition", "location", "upload-offset"} {
		if !strings.Contains(exposed, h) {
			t.Fatalf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
		}
	}
	refusesOrigin(t, get(a, "https://evil.example").Status(200))
	// An error is readable too: the page can say the key was refused.
	r = get(anon, app)
	r.Envelope(401, msgUnauthenticated)
	allowsOrigin(t, r, app, true)
	// GraphQL with the operator's key header, as a page sends it.
	g := anon.DoWithHeaders(t, "GET", `/graphql?query={__typename}`, map[string]string{"Origin": app, "X-Vendor-Key": a.Key})
	if g.Code != 200 || string(g.Body) != `{"data":{"__typename":"Query"}}` {
		t.Fatalf("/graphql: %d %s", g.Code, g.Body)
	}
	allowsOrigin(t, g, app, true)

	// A signed link (what a <video crossorigin> or a canvas reads).
	if _, err := api.Files.Put(context.Background(), "cors/probe.txt", strings.NewReader("frame")); err != nil {
		t.Fatal(err)
	}
	link := strings.TrimPrefix(api.Blobs.URL("GET", "cors/probe.txt", time.Now(), time.Hour), api.URL)
	b := anon.DoWithHeaders(t, "GET", link, map[string]string{"Origin": app, "Range": "bytes=1-3"})
	if b.Code != http.StatusPartialContent || string(b.Body) != "ram" {
		t.Fatalf("signed link: %d %q", b.Code, b.Body)
	}
	allowsOrigin(t, b, app, true)
	refusesOrigin(t, anon.DoWithHeaders(t, "GET", link, map[string]string{"Origin": "https://evil.example"}).Status(200))

	// `*`: every origin, never with credentials.
	everyone := api.Anonymous().On(api.Another(t, corsOrigins("*")))
	allowsOrigin(t, preflight(t, everyone, "/graphql", "https://anywhere.example", "POST", "authorization,content-type"), "*", false)
	allowsOrigin(t, everyone.DoWithHeaders(t, "GET", "/healthz", map[string]string{"Origin": "https://anywhere.example"}), "*", false)

	// Without the setting: no CORS at all (a preflight goes on to the
	// route, which answers as it answers an OPTIONS).
	plain := api.Anonymous().On(api.Another(t))
	refusesOrigin(t, preflight(t, plain, "/graphql", app, "POST", "authorization").Status(401))
	refusesOrigin(t, preflight(t, plain, "/api/v1/items/"+id, app, "DELETE", "authorization").Status(404))
	refusesOrigin(t, plain.DoWithHeaders(t, "GET", "/healthz", map[string]string{"Origin": app}).Status(200))
}
