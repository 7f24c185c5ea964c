package blob_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

func TestSignedLinks(t *testing.T) {
	s := blob.NewSigner([]byte("0123456789abcdef0123456789abcdef"), "http://loupe.test/")
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	link := s.URL("GET", "t1/items/i1/poster file.png", now, blob.LinkValidity)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, "http://loupe.test/blobs/t1/items/i1/poster%20file.png?") {
		t.Fatalf("link = %s", link)
	}
	key := strings.TrimPrefix(u.Path, blob.PathPrefix)
	q := u.Query()

	tamper := func(k, v string) url.Values {
		c := url.Values{}
		for kk, vv := range q {
			c[kk] = append([]string(nil), vv...)
		}
		c.Set(k, v)
		return c
	}
	cases := []struct {
		name   string
		method string
		key    string
		q      url.Values
		at     time.Time
		want   error
	}{
		{"valid", "GET", key, q, now, nil},
		{"valid until the last second", "GET", key, q, now.Add(blob.LinkValidity - time.Second), nil},
		{"expired", "GET", key, q, now.Add(blob.LinkValidity), blob.ErrExpired},
		{"other key", "GET", "t1/items/i2/poster file.png", q, now, blob.ErrBadSignature},
		{"other method", "PUT", key, q, now, blob.ErrBadSignature},
		{"method in query changed", "PUT", key, tamper("method", "PUT"), now, blob.ErrBadSignature},
		{"expiry extended", "GET", key, tamper("expires", "99999999999"), now, blob.ErrBadSignature},
		{"signature changed", "GET", key, tamper("signature", strings.Repeat("0", 64)), now, blob.ErrBadSignature},
		{"signature missing", "GET", key, tamper("signature", ""), now, blob.ErrBadSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := s.Verify(c.method, c.key, c.q, c.at); !errors.Is(got, c.want) {
				t.Fatalf("Verify = %v, want %v", got, c.want)
			}
		})
	}

	other := blob.NewSigner([]byte("another key of at least 32 bytes!"), "http://loupe.test")
	if err := other.Verify("GET", key, q, now); !errors.Is(err, blob.ErrBadSignature) {
		t.Fatalf("a link signed with another key verified: %v", err)
	}
}
