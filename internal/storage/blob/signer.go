// Package blob stores attachment and media files and hands out links to them:
// HMAC-signed, expiring URLs that the server itself answers.
package blob

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// LinkValidity is how long a signed link works (spec section 8: 432000 s).
const LinkValidity = 432000 * time.Second

// PathPrefix is where the server answers signed links.
const PathPrefix = "/blobs/"

// Errors of Verify.
var (
	ErrBadSignature = errors.New("blob: bad signature")
	ErrExpired      = errors.New("blob: link expired")
)

// Signer makes and checks signed links. The key is the server's secret;
// every instance behind a load balancer must share it.
type Signer struct {
	key     []byte
	baseURL string
	// direct, when set, makes GET links its presigned URLs
	// (DirectDownloads).
	direct Presigner
}

// NewSigner signs with key; links start with baseURL (e.g. http://host:8080).
func NewSigner(key []byte, baseURL string) *Signer {
	return &Signer{key: key, baseURL: strings.TrimRight(baseURL, "/")}
}

// BaseURL is what links start with.
func (s *Signer) BaseURL() string { return s.baseURL }

// DirectDownloads makes GET links p's presigned URLs (S3's own): the
// bytes then go from the bucket to the client, with the backend's Range,
// ETag and Content-Type, instead of through a Loupe node. Directory links
// (DirURL) stay Loupe's: a presigned URL signs one key only. Call it
// before the signer is shared.
func (s *Signer) DirectDownloads(p Presigner) { s.direct = p }

// URL is a link allowing method (GET to download, PUT to upload) on the blob
// at key until now+ttl: a presigned URL of the backend for a GET with
// DirectDownloads, else the server's own signed link.
func (s *Signer) URL(method, key string, now time.Time, ttl time.Duration) string {
	if method == "GET" && s.direct != nil {
		// Presigning is computed locally; a key it refuses gets Loupe's link.
		if u, err := s.direct.Presign(context.Background(), method, key, min(time.Until(now.Add(ttl)), MaxPresignTTL)); err == nil {
			return u
		}
	}
	exp := strconv.FormatInt(now.Add(ttl).Unix(), 10)
	q := url.Values{"method": {method}, "expires": {exp}, "signature": {s.sign(method, key, exp)}}
	return s.baseURL + PathPrefix + escapeKey(key) + "?" + q.Encode()
}

// Verify checks a link's query for method on key at time now.
func (s *Signer) Verify(method, key string, q url.Values, now time.Time) error {
	return checkLink(q, method, s.sign(method, key, q.Get("expires")), now)
}

// checkLink checks a link's query against the signature it should carry
// (want) for method, and its expiry.
func checkLink(q url.Values, method, want string, now time.Time) error {
	if q.Get("method") != method || !hmac.Equal([]byte(want), []byte(q.Get("signature"))) {
		return ErrBadSignature
	}
	t, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if now.Unix() >= t {
		return ErrExpired
	}
	return nil
}

func (s *Signer) sign(method, key, expires string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(method + "\n" + key + "\n" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

// escapeKey escapes each path segment of a key.
func escapeKey(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// dirMark starts the first path segment of a directory link.
const dirMark = "d~"

// DirURL is a GET link to the blob dir+name that also reaches every other
// blob of dir (dir ends in "/") until now+ttl: the signature is in the
// path, so a relative reference inside the file (a WebVTT map naming its
// sprite sheets "001.jpg") resolves to a link that works too. Only GET,
// only that directory, not below it.
func (s *Signer) DirURL(dir, name string, now time.Time, ttl time.Duration) string {
	exp := strconv.FormatInt(now.Add(ttl).Unix(), 10)
	return s.baseURL + PathPrefix + dirMark + exp + "~" + s.sign("GET-DIR", dir, exp) + "/" + escapeKey(dir+name)
}

// verifyDir checks the path (after PathPrefix) of a directory link and
// answers the key it names.
func (s *Signer) verifyDir(path string, now time.Time) (string, error) {
	first, key, ok := strings.Cut(strings.TrimPrefix(path, dirMark), "/")
	exp, sig, ok2 := strings.Cut(first, "~")
	i := strings.LastIndexByte(key, '/')
	if !ok || !ok2 || i < 0 {
		return "", ErrBadSignature
	}
	want := s.sign("GET-DIR", key[:i+1], exp)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return "", ErrBadSignature
	}
	t, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return "", ErrBadSignature
	}
	if now.Unix() >= t {
		return "", ErrExpired
	}
	return key, nil
}
