package shares_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe/internal/shares"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// pageServer serves the shares' routes, with signed media links from
// mediaBase ("" for none; "self" for the server's own origin).
func pageServer(t *testing.T, mediaBase string) *httptest.Server {
	t.Helper()
	h := &shares.Handler{}
	srv := httptest.NewUnstartedServer(nil)
	switch mediaBase {
	case "":
	case "self":
		h.Blobs = blob.NewSigner([]byte("page-test-key-0123456789abcdef"), "http://"+srv.Listener.Addr().String())
	default:
		h.Blobs = blob.NewSigner([]byte("page-test-key-0123456789abcdef"), mediaBase)
	}
	r := chi.NewRouter()
	h.Routes(r)
	srv.Config.Handler = r
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func pageGet(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const (
	tokenA = "s_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	tokenB = "s_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

var (
	scriptTag   = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	pageLinks   = regexp.MustCompile(`(?:src|href)="(assets/[^"]+)"`)
	inlineStyle = regexp.MustCompile(`(?i)<style\b|\sstyle=|\son[a-z]+=|javascript:`)
)

// The page: one document for every token, which names none, under a
// strict policy that lets it load only what the server (and, for media,
// the signed links' origin) serves; nothing inline; never cached, never a
// Referer (the token is in its path).
func TestSharePageHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, media, want string
	}{
		{"media elsewhere", "http://media.example:9000/", "default-src 'none'; script-src 'self'; style-src 'self'; " +
			"img-src 'self' data: http://media.example:9000; media-src 'self' http://media.example:9000; " +
			"connect-src 'self' http://media.example:9000; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
		{"media on the page's origin", "self", "default-src 'none'; script-src 'self'; style-src 'self'; " +
			"img-src 'self' data:; media-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
		{"no signer", "", "default-src 'none'; script-src 'self'; style-src 'self'; " +
			"img-src 'self' data:; media-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := pageServer(t, tc.media)
			resp, page := pageGet(t, srv.URL+"/share/"+tokenA)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != tc.want {
				t.Errorf("CSP\n got %q\nwant %q", got, tc.want)
			}
			for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
				"Cache-Control": "no-store"} {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			if strings.Contains(page, tokenA) || strings.Contains(page, "AAAAAAAAAA") {
				t.Error("the page names its token")
			}
			if _, other := pageGet(t, srv.URL+"/share/"+tokenB); other != page {
				t.Error("another token's page differs")
			}
		})
	}
}

// Every file the page names is served from the binary, with its type,
// nosniff and a cache for good (the URL names the version), revalidated
// by ETag; anything else under assets/ is not found.
func TestSharePageAssets(t *testing.T) {
	srv := pageServer(t, "self")
	_, page := pageGet(t, srv.URL+"/share/"+tokenA)
	for _, tag := range scriptTag.FindAllString(page, -1) {
		if !strings.Contains(tag, ` src="assets/`) {
			t.Errorf("a script not served by the binary: %s", tag)
		}
	}
	if m := inlineStyle.FindString(page); m != "" {
		t.Errorf("inline style or script in the page: %q", m)
	}
	links := pageLinks.FindAllStringSubmatch(page, -1)
	types := map[string]string{}
	for _, l := range links {
		u := srv.URL + "/share/" + strings.ReplaceAll(l[1], "&amp;", "&")
		resp, body := pageGet(t, u)
		if resp.StatusCode != 200 || len(body) < 100 {
			t.Errorf("%s: %d, %d bytes", u, resp.StatusCode, len(body))
			continue
		}
		name := strings.TrimPrefix(strings.SplitN(l[1], "?", 2)[0], "assets/")
		types[name] = resp.Header.Get("Content-Type")
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "no-referrer" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") == "" {
			t.Errorf("%s: headers %v", u, resp.Header)
		}
		if again, _ := pageGet(t, u, "If-None-Match", resp.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", u, again.StatusCode)
		}
		if z, _ := pageGet(t, u, "Accept-Encoding", "gzip"); z.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped for a client that takes it", u)
		}
	}
	if types["share.js"] != "text/javascript; charset=utf-8" || types["share.css"] != "text/css; charset=utf-8" || len(types) != 2 {
		t.Errorf("the page names %v, want share.js and share.css", types)
	}
	if resp, _ := pageGet(t, srv.URL+"/share/assets/share.js"); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an unversioned URL: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	for _, p := range []string{"/share/assets/index.html", "/share/assets/nope.js", "/share/assets/../page.go", "/share/assets/"} {
		if resp, _ := pageGet(t, srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
	// The script parses (the browser test runs it).
	if node, err := exec.LookPath("node"); err == nil {
		if out, err := exec.Command(node, "--check", "page/share.js").CombinedOutput(); err != nil {
			t.Errorf("share.js: %v\n%s", err, out)
		}
	}
}
