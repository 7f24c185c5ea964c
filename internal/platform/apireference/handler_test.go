package apireference_test

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/platform/apireference"
)

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport would ask for gzip and undo it: the test asks itself.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

var (
	scriptTag = regexp.MustCompile(`<script\b[^>]*>`)
	linked    = regexp.MustCompile(`(?:src|href)="(reference/[^"]+)"`)
	versioned = regexp.MustCompile(`^reference/[a-z.]+\?v=[0-9a-f]{16}$`)
	offsite   = regexp.MustCompile(`(?:src|href)="(?:[a-z]+:)?//`)
)

// The page: a strict CSP, no inline script, and every file it names served
// from the binary with a type, nosniff and a cache for good.
func TestPageAndItsFiles(t *testing.T) {
	srv := httptest.NewServer(apireference.Handler())
	defer srv.Close()

	resp, page := get(t, srv.URL+"/reference")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	const want = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	if csp := resp.Header.Get("Content-Security-Policy"); csp != want {
		t.Errorf("CSP\n %q, want\n %q", csp, want)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-cache" ||
		resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("page headers: %v", resp.Header)
	}
	if offsite.Match(page) {
		t.Errorf("the page names something beyond the server:\n%s", page)
	}
	scripts := scriptTag.FindAllString(string(page), -1)
	for _, tag := range scripts {
		if !strings.Contains(tag, ` src="reference/`) {
			t.Errorf("the page has a script not served by the binary: %s", tag)
		}
	}
	// Ours first: it sets what Scalar's bundle reads as it runs.
	if len(scripts) != 2 || !strings.Contains(scripts[0], "reference.js?v=") || !strings.Contains(scripts[1], "scalar.standalone.js?v=") {
		t.Errorf("scripts %q, want reference.js then Scalar's bundle", scripts)
	}

	links := linked.FindAllStringSubmatch(string(page), -1)
	if len(links) != 3 {
		t.Fatalf("the page names %d files, want 3 (our style and script, Scalar's bundle): %q", len(links), links)
	}
	for _, l := range links {
		if !versioned.MatchString(l[1]) {
			t.Errorf("%s is not named by its version", l[1])
		}
		url := srv.URL + "/" + l[1]
		resp, body := get(t, url)
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("%s: %d", url, resp.StatusCode)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" && ct != "text/css; charset=utf-8" {
			t.Errorf("%s: Content-Type %s", url, ct)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") == "" {
			t.Errorf("%s: headers %v", url, resp.Header)
		}
		// The version in the URL is the content's.
		sum := sha256.Sum256(body)
		if !strings.HasSuffix(l[1], "?v="+hex.EncodeToString(sum[:8])) {
			t.Errorf("%s: the body's sha256 is %x", l[1], sum)
		}
		// Revalidation by ETag.
		again, _ := get(t, url, "If-None-Match", resp.Header.Get("ETag"))
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", url, again.StatusCode)
		}
	}

	// A HEAD is answered like a GET, without the body; other methods not.
	req, _ := http.NewRequest("HEAD", srv.URL+"/reference", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD: %v %v", resp, err)
	}
	req, _ = http.NewRequest("POST", srv.URL+"/reference", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %v %v", resp, err)
	}
}

// Our script starts Scalar on the server's document with everything that
// would reach beyond the server off (the browser test sees it work).
func TestScriptSettings(t *testing.T) {
	srv := httptest.NewServer(apireference.Handler())
	defer srv.Close()
	_, js := get(t, srv.URL+"/reference/reference.js")
	for _, want := range []string{
		"__zod_globalConfig", "jitless: true",
		"new URL('openapi.json', document.baseURI)",
		"withDefaultFonts: false", "agent: { disabled: true }", "mcp: { disabled: true }",
		"showDeveloperTools: 'never'", "hideClientButton: true", "telemetry: false", "persistAuth: false",
	} {
		if !strings.Contains(string(js), want) {
			t.Errorf("reference.js lacks %q", want)
		}
	}
	if strings.Contains(string(js), "proxyUrl:") || strings.Contains(string(js), "http") {
		t.Errorf("reference.js names a proxy or another host")
	}
}

// Scalar's 4 MB go gzipped to clients that take it, and the same bytes
// otherwise.
func TestGzip(t *testing.T) {
	srv := httptest.NewServer(apireference.Handler())
	defer srv.Close()
	plainResp, plain := get(t, srv.URL+"/reference/scalar.standalone.js")
	zResp, z := get(t, srv.URL+"/reference/scalar.standalone.js", "Accept-Encoding", "br, gzip")
	if plainResp.Header.Get("Content-Encoding") != "" || zResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding: plain %q, gzip %q", plainResp.Header.Get("Content-Encoding"), zResp.Header.Get("Content-Encoding"))
	}
	if zResp.Header.Get("ETag") == plainResp.Header.Get("ETag") || !strings.Contains(zResp.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("gzip and plain answers share an ETag or lack Vary: %v", zResp.Header)
	}
	if len(z) > len(plain)/2 {
		t.Errorf("gzipped %d bytes of %d", len(z), len(plain))
	}
	r, err := gzip.NewReader(strings.NewReader(string(z)))
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(r)
	if err != nil || string(unz) != string(plain) {
		t.Fatalf("gunzipped body differs (%v)", err)
	}
}

func TestNotFoundAndRedirect(t *testing.T) {
	srv := httptest.NewServer(apireference.Handler())
	defer srv.Close()
	for _, p := range []string{"/reference/nope.js", "/reference/index.html", "/reference/standalone.js",
		"/reference/scalar.standalone.js.map", "/reference/standalone.js.map", "/reference/../go.mod",
		"/reference/assets/reference.js", "/reference/openapi.json", "/referencex", "/reference/licenses/"} {
		if resp, _ := get(t, srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
	resp, _ := get(t, srv.URL+"/reference/")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "../reference" {
		t.Errorf("GET /reference/: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Files without a version in the URL, or with another one, are
	// revalidated, not kept.
	for _, p := range []string{"/reference/reference.js", "/reference/reference.js?v=0000000000000000"} {
		resp, _ = get(t, srv.URL+p)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d %q", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	resp, body := get(t, srv.URL+"/reference/licenses/scalar.LICENSE")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.HasPrefix(string(body), "MIT License") {
		t.Errorf("licence: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// assets/VERSIONS lists what ./refresh copied: the files served are those.
func TestVersionsMatchTheFiles(t *testing.T) {
	srv := httptest.NewServer(apireference.Handler())
	defer srv.Close()
	f, err := os.Open("assets/VERSIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// package@version  file in the package  ->  file in assets/  sha256
		fields := strings.Fields(line)
		if len(fields) != 5 || fields[2] != "->" {
			t.Fatalf("VERSIONS line %q", line)
		}
		resp, body := get(t, srv.URL+"/reference/"+fields[3])
		sum := sha256.Sum256(body)
		if resp.StatusCode != 200 || hex.EncodeToString(sum[:]) != fields[4] {
			t.Errorf("%s (%s): %d, sha256 %x, VERSIONS says %s", fields[3], fields[0], resp.StatusCode, sum, fields[4])
		}
		n++
	}
	if n != 2 {
		t.Errorf("VERSIONS lists %d files, want 2 (Scalar's bundle and its licence)", n)
	}
}
