package blob_test

import (
	"context"
	"mime"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// The header names the file exactly, for every browser: plain ASCII in
// filename, anything else also in filename* (which parsers prefer).
func TestAttachmentDisposition(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"clip.mov", `attachment; filename="clip.mov"`},
		{`say "hi".mp4`, `attachment; filename="say _hi_.mp4"; filename*=UTF-8''say%20%22hi%22.mp4`},
		{"Café été 100%.wav", `attachment; filename="Caf_ _t_ 100%.wav"; filename*=UTF-8''Caf%C3%A9%20%C3%A9t%C3%A9%20100%25.wav`},
		{"a;b=c'd.mxf", `attachment; filename="a;b=c'd.mxf"`},
	} {
		got := blob.AttachmentDisposition(c.name)
		if got != c.want {
			t.Errorf("AttachmentDisposition(%q) = %s, want %s", c.name, got, c.want)
		}
		kind, params, err := mime.ParseMediaType(got)
		if err != nil || kind != "attachment" || params["filename"] != c.name {
			t.Errorf("%s parses as %q %q (%v), want attachment %q", got, kind, params["filename"], err, c.name)
		}
	}
}

// A download link answers the blob as an attachment under its signed name,
// with ranges; its name, expiry and signature cannot be changed, nor the
// name dropped to make it a plain link.
func TestDownloadLinks(t *testing.T) {
	s := newServer(t, 0)
	const key = "t1/items/i1/original/u1/clip.bin"
	content := strings.Repeat("0123456789", 100)
	if _, err := s.store.Put(context.Background(), key, strings.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	link := s.signer.DownloadURL(key, "Clip été.bin", s.now, blob.LinkValidity)
	resp, body := do(t, "GET", link, nil)
	if resp.StatusCode != 200 || body != content || resp.Header.Get("Content-Disposition") != blob.AttachmentDisposition("Clip été.bin") {
		t.Fatalf("download: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Disposition"), len(body))
	}
	resp, body = do(t, "GET", link, nil, "Range", "bytes=100-199")
	if resp.StatusCode != 206 || body != content[100:200] || resp.Header.Get("Content-Range") != "bytes 100-199/1000" {
		t.Fatalf("range: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Range"), body)
	}
	if other, err := s.signer.PresignDownload(context.Background(), key, "x.bin", time.Hour); err != nil || !strings.Contains(other, "filename=x.bin") {
		t.Fatalf("PresignDownload = %s, %v", other, err)
	}
	u, _ := url.Parse(link)
	for name, change := range map[string]func(q url.Values){
		"renamed":          func(q url.Values) { q.Set("filename", "other.exe") },
		"name dropped":     func(q url.Values) { q.Del("filename") },
		"expiry extended":  func(q url.Values) { q.Set("expires", "99999999999") },
		"signature zeroed": func(q url.Values) { q.Set("signature", strings.Repeat("0", 64)) },
	} {
		q := u.Query()
		change(q)
		v := *u
		v.RawQuery = q.Encode()
		resp, body := do(t, "GET", v.String(), nil)
		envelope(t, resp, body, 403, blob.MsgBadSignature)
		if resp.Header.Get("Content-Disposition") != "" {
			t.Errorf("%s: refused with Content-Disposition %q", name, resp.Header.Get("Content-Disposition"))
		}
	}
	s.now = s.now.Add(blob.LinkValidity)
	resp, body = do(t, "GET", link, nil)
	envelope(t, resp, body, 403, blob.MsgExpired)
}
