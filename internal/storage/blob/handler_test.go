package blob_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

type server struct {
	*httptest.Server
	signer *blob.Signer
	store  *blob.Disk
	now    time.Time
}

func newServer(t *testing.T, maxUpload int64) *server {
	t.Helper()
	s := &server{now: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}
	s.store, _ = newDisk(t)
	s.Server = httptest.NewServer(nil)
	t.Cleanup(s.Close)
	s.signer = blob.NewSigner([]byte("handler-test-key-0123456789abcdef"), s.URL)
	s.Config.Handler = &blob.Handler{Store: s.store, Signer: s.signer, MaxUpload: maxUpload, Now: func() time.Time { return s.now }}
	return s
}

func do(t *testing.T, method, link string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, link, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// envelope checks the spec's error envelope.
func envelope(t *testing.T, resp *http.Response, body string, status int, message string) {
	t.Helper()
	var env struct {
		Error struct {
			StatusCode int    `json:"statusCode"`
			Message    string `json:"message"`
		} `json:"error"`
	}
	if resp.StatusCode != status || json.Unmarshal([]byte(body), &env) != nil ||
		env.Error.StatusCode != status || env.Error.Message != message {
		t.Fatalf("status %d body %s; want %d with message %q", resp.StatusCode, body, status, message)
	}
}

func TestHandlerUploadsAndDownloads(t *testing.T) {
	s := newServer(t, 0)
	cases := []struct {
		key, content, wantType string
	}{
		{"t/items/i/transcripts/en-US-1.json", `{"languageCode":"en-US"}`, "application/json"},
		{"t/items/i/attachments/1.pdf", "%PDF-1.7 not really", "application/pdf"},
		{"t/items/i/thumbnails/0-1", "\x89PNG\r\n\x1a\n....", "image/png"}, // sniffed
		{"t/items/i/attachments/2", "plain words", "text/plain; charset=utf-8"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			resp, body := do(t, "PUT", s.signer.URL("PUT", c.key, s.now, blob.LinkValidity), strings.NewReader(c.content))
			// S3's answer to a presigned PUT: no body, the quoted MD5.
			if sum := md5.Sum([]byte(c.content)); resp.StatusCode != 200 || body != "" ||
				resp.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` {
				t.Fatalf("PUT: %d %q ETag %q", resp.StatusCode, body, resp.Header.Get("ETag"))
			}
			get := s.signer.URL("GET", c.key, s.now, blob.LinkValidity)
			resp, body = do(t, "GET", get, nil)
			if resp.StatusCode != 200 || body != c.content || resp.Header.Get("Content-Type") != c.wantType {
				t.Fatalf("GET: %d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Type"))
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
				t.Fatalf("GET headers %v", resp.Header)
			}
			resp, body = do(t, "HEAD", get, nil)
			if resp.StatusCode != 200 || body != "" || resp.ContentLength != int64(len(c.content)) {
				t.Fatalf("HEAD: %d %q length %d", resp.StatusCode, body, resp.ContentLength)
			}
			resp, body = do(t, "GET", get, nil, "Range", "bytes=1-3")
			if resp.StatusCode != http.StatusPartialContent || body != c.content[1:4] {
				t.Fatalf("range GET: %d %q", resp.StatusCode, body)
			}
			// Revalidation: the validator, then 304 for it.
			etag := resp.Header.Get("ETag")
			if resp, _ = do(t, "GET", get, nil, "If-None-Match", etag); etag == "" || resp.StatusCode != http.StatusNotModified {
				t.Fatalf("revalidation with ETag %q: %d", etag, resp.StatusCode)
			}
		})
	}
}

func TestHandlerRefusals(t *testing.T) {
	s := newServer(t, 16)
	const key = "t/items/i/attachments/a.txt"
	if resp, _ := do(t, "PUT", s.signer.URL("PUT", key, s.now, blob.LinkValidity), strings.NewReader("original")); resp.StatusCode != 200 {
		t.Fatal("setup upload failed")
	}
	get := s.signer.URL("GET", key, s.now, blob.LinkValidity)
	put := s.signer.URL("PUT", key, s.now, blob.LinkValidity)
	other := blob.NewSigner([]byte("some-other-key-0123456789abcdef!!"), s.URL)
	withQuery := func(link, k, v string) string {
		u, _ := url.Parse(link)
		q := u.Query()
		q.Set(k, v)
		u.RawQuery = q.Encode()
		return u.String()
	}
	cases := []struct {
		name    string
		method  string
		link    string
		body    io.Reader
		later   time.Duration
		status  int
		message string
	}{
		{"GET with a PUT link", "GET", put, nil, 0, 403, blob.MsgBadSignature},
		{"PUT with a GET link", "PUT", get, strings.NewReader("x"), 0, 403, blob.MsgBadSignature},
		{"POST", "POST", put, strings.NewReader("x"), 0, 403, blob.MsgBadSignature},
		{"DELETE", "DELETE", get, nil, 0, 403, blob.MsgBadSignature},
		{"tampered signature", "GET", withQuery(get, "signature", "00"), nil, 0, 403, blob.MsgBadSignature},
		{"tampered expiry", "GET", withQuery(get, "expires", "99999999999"), nil, 0, 403, blob.MsgBadSignature},
		{"signed by another key", "GET", other.URL("GET", key, s.now, blob.LinkValidity), nil, 0, 403, blob.MsgBadSignature},
		{"outside the prefix", "GET", strings.Replace(get, blob.PathPrefix, "/other/", 1), nil, 0, 403, blob.MsgBadSignature},
		{"last valid second", "GET", get, nil, blob.LinkValidity - time.Second, 200, ""},
		{"expired GET", "GET", get, nil, blob.LinkValidity, 403, blob.MsgExpired},
		{"expired PUT", "PUT", put, strings.NewReader("x"), blob.LinkValidity, 403, blob.MsgExpired},
		{"declared too large", "PUT", put, strings.NewReader(strings.Repeat("x", 17)), 0, 413, "The upload is larger than 16 bytes."},
		{"streamed too large", "PUT", put, io.MultiReader(strings.NewReader(strings.Repeat("x", 17))), 0, 413, "The upload is larger than 16 bytes."},
		{"signed escape", "GET", s.signer.URL("GET", "../../etc/passwd", s.now, blob.LinkValidity), nil, 0, 404, blob.MsgNotFound},
		{"never uploaded", "GET", s.signer.URL("GET", "t/items/i/attachments/none", s.now, blob.LinkValidity), nil, 0, 404, blob.MsgNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.now = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC).Add(c.later)
			resp, body := do(t, c.method, c.link, c.body)
			if c.status == 200 {
				if resp.StatusCode != 200 || body != "original" {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				return
			}
			envelope(t, resp, body, c.status, c.message)
		})
	}
	if got, err := read(t, s.store, key); err != nil || got != "original" {
		t.Fatalf("after refusals the blob holds %q, %v", got, err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A directory link reaches the blobs of its directory, relative references
// included, and nothing else: not a subdirectory, not a sibling directory,
// not a PUT, not after it expires.
func TestDirectoryLinks(t *testing.T) {
	s := newServer(t, 1<<20)
	ctx := t.Context()
	for _, k := range []string{"m/gen/1/strip/strip.vtt", "m/gen/1/strip/001.jpg", "m/gen/1/strip/sub/x.jpg", "m/gen/1/proxy.mp4"} {
		if _, err := s.store.Put(ctx, k, strings.NewReader("data of "+k)); err != nil {
			t.Fatal(err)
		}
	}
	link := s.signer.DirURL("m/gen/1/strip/", "strip.vtt", s.now, time.Hour)
	if resp, body := do(t, "GET", link, nil); resp.StatusCode != 200 || body != "data of m/gen/1/strip/strip.vtt" {
		t.Fatalf("the link: %d %s", resp.StatusCode, body)
	}
	base, _ := url.Parse(link)
	sheet, _ := base.Parse("001.jpg")
	if resp, body := do(t, "GET", sheet.String(), nil); resp.StatusCode != 200 || body != "data of m/gen/1/strip/001.jpg" {
		t.Fatalf("a relative reference: %d %s", resp.StatusCode, body)
	}
	for _, rel := range []string{"sub/x.jpg", "../proxy.mp4"} {
		u, _ := base.Parse(rel)
		if resp, _ := do(t, "GET", u.String(), nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", rel, resp.StatusCode)
		}
	}
	if resp, _ := do(t, "PUT", link, strings.NewReader("x")); resp.StatusCode != http.StatusForbidden {
		t.Errorf("PUT through a directory link: %d", resp.StatusCode)
	}
	s.now = s.now.Add(2 * time.Hour)
	if resp, _ := do(t, "GET", link, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("expired: %d", resp.StatusCode)
	}
}
