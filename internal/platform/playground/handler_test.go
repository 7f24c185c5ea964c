package playground_test

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

	"github.com/loupe-mam/loupe/internal/platform/playground"
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
	linked    = regexp.MustCompile(`(?:src|href)="(playground/[^"]+)"`)
)

// The page: a strict CSP, no inline script, and every file it names served
// from the binary with a type, nosniff and a cache for good.
func TestPageAndItsFiles(t *testing.T) {
	srv := httptest.NewServer(playground.Handler())
	defer srv.Close()

	resp, page := get(t, srv.URL+"/playground")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows more than the server: %q", csp)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("page headers: %v", resp.Header)
	}
	for _, tag := range scriptTag.FindAllString(string(page), -1) {
		if !strings.Contains(tag, ` src="playground/`) {
			t.Errorf("the page has a script not served by the binary: %s", tag)
		}
	}
	if n := strings.Count(string(page), "<script"); n != 4 {
		t.Errorf("%d scripts, want React, ReactDOM, GraphiQL and ours", n)
	}

	links := linked.FindAllStringSubmatch(string(page), -1)
	if len(links) != 6 {
		t.Fatalf("the page names %d files, want 6: %q", len(links), links)
	}
	for _, l := range links {
		url := srv.URL + "/" + strings.ReplaceAll(l[1], "&amp;", "&")
		resp, body := get(t, url)
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("%s: %d", url, resp.StatusCode)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
			t.Errorf("%s: Content-Type %s", url, ct)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") == "" {
			t.Errorf("%s: headers %v", url, resp.Header)
		}
		// Revalidation by ETag.
		again, _ := get(t, url, "If-None-Match", resp.Header.Get("ETag"))
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", url, again.StatusCode)
		}
	}
}

// GraphiQL's megabyte goes gzipped to clients that take it, and the same
// bytes otherwise.
func TestGzip(t *testing.T) {
	srv := httptest.NewServer(playground.Handler())
	defer srv.Close()
	plainResp, plain := get(t, srv.URL+"/playground/graphiql.min.js")
	zResp, z := get(t, srv.URL+"/playground/graphiql.min.js", "Accept-Encoding", "br, gzip")
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
	if resp, _ := get(t, srv.URL+"/playground/graphiql.min.js", "Accept-Encoding", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client refusing it")
	}
}

func TestNotFoundAndRedirect(t *testing.T) {
	srv := httptest.NewServer(playground.Handler())
	defer srv.Close()
	for _, p := range []string{"/playground/nope.js", "/playground/index.html", "/playground/graphiql.min.js.map",
		"/playground/../go.mod", "/playground/assets/playground.js", "/playgroundx"} {
		if resp, _ := get(t, srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
	resp, _ := get(t, srv.URL+"/playground/")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "../playground" {
		t.Errorf("GET /playground/: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Files without a version in the URL are revalidated, not kept.
	resp, _ = get(t, srv.URL+"/playground/playground.js")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("unversioned URL: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	resp, _ = get(t, srv.URL+"/playground/licenses/graphiql.LICENSE")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("licence: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// assets/VERSIONS lists what ./refresh copied: the files served are those.
func TestVersionsMatchTheFiles(t *testing.T) {
	srv := httptest.NewServer(playground.Handler())
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
		resp, body := get(t, srv.URL+"/playground/"+fields[3])
		sum := sha256.Sum256(body)
		if resp.StatusCode != 200 || hex.EncodeToString(sum[:]) != fields[4] {
			t.Errorf("%s (%s): %d, sha256 %x, VERSIONS says %s", fields[3], fields[0], resp.StatusCode, sum, fields[4])
		}
		n++
	}
	if n != 7 {
		t.Errorf("VERSIONS lists %d files, want 7 (GraphiQL's script, style and licence; React's and ReactDOM's script and licence)", n)
	}
}
