// Package shares is the outsider's side of shares (docs/shares.md): the
// links people without an account open, the sessions an open mints, and
// the one function that decides what a session may reach.
package shares

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Prefixes of the two secrets: a link's token and a session's.
const (
	TokenPrefix   = "s_"
	SessionPrefix = "ss_"
)

// newSecret is prefix and 256 random bits, base64url.
func newSecret(prefix string) string {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// NewToken makes a link's token; only its Hash is stored.
func NewToken() string { return newSecret(TokenPrefix) }

// NewSession makes a session's secret; only its Hash is stored.
func NewSession() string { return newSecret(SessionPrefix) }

// Hash is what is stored of a secret, and what it is looked up by.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// wellFormed is whether s can be a secret with prefix: a guess of another
// shape is refused before any query.
func wellFormed(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// Redact is path with every share token and session secret in it cut to
// its prefix: the request log names the page and the API's links without
// the credential in them.
func Redact(path string) string {
	if !strings.Contains(path, TokenPrefix) {
		return path
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		switch {
		case wellFormed(p, TokenPrefix):
			parts[i] = TokenPrefix + "…"
		case wellFormed(p, SessionPrefix):
			parts[i] = SessionPrefix + "…"
		}
	}
	return strings.Join(parts, "/")
}
