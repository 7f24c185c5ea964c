package blobtest

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

var presignBehaviours = []behaviour{
	{"presigned PUT then GET over plain HTTP", presignRoundtrip},
	{"presigned links allow only their method and key", presignRefusals},
}

func httpDo(t *testing.T, method, link string, body io.Reader, header ...string) (*http.Response, []byte) {
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
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func presign(t *testing.T, b Backend, method, key string) string {
	t.Helper()
	if b.Presigner == nil {
		t.Skip("no presigner")
	}
	link, err := b.Presigner.Presign(ctx, method, key, time.Hour)
	if err != nil {
		t.Fatalf("Presign(%s, %s): %v", method, key, err)
	}
	return link
}

func presignRoundtrip(t *testing.T, b Backend) {
	const key = "t1/items/i1/original/direct upload ü.bin"
	src := body{seed: 20, n: 2*MiB + 3}
	put := presign(t, b, "PUT", key)
	req, err := http.NewRequest("PUT", put, src.reader())
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = src.n
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT: %d %s", resp.StatusCode, msg)
	}
	if n, sum := sumOf(t, b.Store, key); n != src.n || sum != src.sha256() {
		t.Fatalf("after the presigned PUT the store has %d bytes, SHA-256 %s", n, sum)
	}
	get := presign(t, b, "GET", key)
	resp, got := httpDo(t, "GET", get, nil)
	if resp.StatusCode != http.StatusOK || !equalBytes(got, src.bytes()) {
		t.Fatalf("presigned GET: %d, %d bytes", resp.StatusCode, len(got))
	}
	resp, got = httpDo(t, "GET", get, nil, "Range", "bytes=100-199")
	if resp.StatusCode != http.StatusPartialContent || !equalBytes(got, src.bytes()[100:200]) {
		t.Fatalf("presigned ranged GET: %d, %d bytes", resp.StatusCode, len(got))
	}
}

func presignRefusals(t *testing.T, b Backend) {
	const key = "t1/items/i1/attachments/a.txt"
	put(t, b.Store, key, strings.NewReader("original"))
	get := presign(t, b, "GET", key)
	putLink := presign(t, b, "PUT", key)
	otherKey := presign(t, b, "GET", "t1/items/i1/attachments/b.txt")
	if _, err := b.Presigner.Presign(ctx, "DELETE", key, time.Hour); err == nil {
		t.Fatal("a DELETE was presigned")
	}
	// The other key's signature on this key's path.
	u, _ := url.Parse(otherKey)
	forged, _ := url.Parse(get)
	forged.RawQuery = u.RawQuery
	for _, c := range []struct {
		name, method, link string
		body               io.Reader
	}{
		{"PUT with a GET link", "PUT", get, strings.NewReader("evil")},
		{"GET with a PUT link", "GET", putLink, nil},
		{"another key's signature", "GET", forged.String(), nil},
		{"no signature", "GET", strings.SplitN(get, "?", 2)[0], nil},
		{"tampered signature", "GET", tamper(get), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := httpDo(t, c.method, c.link, c.body)
			if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%d %s, want a refusal", resp.StatusCode, body)
			}
		})
	}
	if got := content(t, b.Store, key); got != "original" {
		t.Fatalf("after refused links the blob holds %q", got)
	}
}

// tamper flips the signature's last hex digit.
func tamper(link string) string {
	u, _ := url.Parse(link)
	q := u.Query()
	for _, k := range []string{"signature", "X-Amz-Signature"} {
		if s := q.Get(k); s != "" {
			last := s[len(s)-1]
			repl := byte('0')
			if last == '0' {
				repl = '1'
			}
			q.Set(k, s[:len(s)-1]+string(repl))
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
