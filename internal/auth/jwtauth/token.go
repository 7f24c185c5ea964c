package jwtauth

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// MaxTokenSize caps a presented token before any decoding: real ID and
// access tokens are a few KiB, and the cap bounds the work an anonymous
// caller can ask for.
const MaxTokenSize = 16 << 10

// The only algorithms accepted. Anything else (none, HS256, RS384, PS256, …)
// is refused from the header alone, before a key is looked at, so a token
// cannot choose how the server's public keys are used.
const (
	algRS256 = "RS256"
	algES256 = "ES256"
)

// header is the part of a JWS header the verifier reads. jku, x5u and jwk
// are deliberately not read: keys come only from the tenant's key set, never
// from the token.
type header struct {
	Alg, Kid string
}

// compact is a split compact JWS: the signed input as received, and the
// decoded parts.
type compact struct {
	signingInput string // "<header>.<payload>", the bytes the signature covers
	header       header
	payload      []byte
	signature    []byte
}

// parseCompact splits and decodes a compact JWS and checks its header; it
// does not look at the payload's claims or the signature's validity.
func parseCompact(token string) (*compact, error) {
	if len(token) > MaxTokenSize {
		return nil, invalid("token is %d bytes, more than %d", len(token), MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, invalid("token has %d parts, not 3", len(parts))
	}
	hb, err := decodeSegment(parts[0])
	if err != nil {
		return nil, invalid("header: %v", err)
	}
	o, err := parseObject(hb)
	if err != nil {
		return nil, invalid("header: %v", err)
	}
	m := &members{o: o}
	h := header{Alg: str(m, "alg"), Kid: str(m, "kid")}
	if m.err != nil {
		return nil, invalid("header: %v", m.err)
	}
	if h.Alg != algRS256 && h.Alg != algES256 {
		return nil, invalid("alg %q is not accepted (only RS256, ES256)", h.Alg)
	}
	// RFC 7515 4.1.11: an extension the recipient does not understand and
	// that is marked critical must make the token invalid. None is understood.
	if _, ok := o["crit"]; ok {
		return nil, invalid("crit header is not supported")
	}
	payload, err := decodeSegment(parts[1])
	if err != nil {
		return nil, invalid("payload: %v", err)
	}
	if parts[2] == "" {
		return nil, invalid("signature is empty")
	}
	sig, err := decodeSegment(parts[2])
	if err != nil {
		return nil, invalid("signature: %v", err)
	}
	return &compact{
		signingInput: token[:len(parts[0])+1+len(parts[1])],
		header:       h,
		payload:      payload,
		signature:    sig,
	}, nil
}

// decodeSegment decodes unpadded base64url strictly. The alphabet is
// checked first because the decoder silently skips CR and LF, and Strict
// makes it refuse non-zero trailing bits: one token has one spelling.
func decodeSegment(s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("empty segment")
	}
	for i := 0; i < len(s); i++ {
		if !isBase64URL(s[i]) {
			return nil, fmt.Errorf("byte %d (%q) is not unpadded base64url", i, s[i])
		}
	}
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// LooksLikeJWT reports whether a bearer credential is a JWT: three
// dot-separated base64url parts whose first decodes to a JSON object with a
// string "alg". It answers only "which verifier should look at this", not
// "is it valid": an alg-none token looks like a JWT, so that it is refused
// by the JWT verifier. An API key "loupe.<id>.<secret>" also has three
// parts, but "loupe" is not base64url of a JSON header, so it is not one.
func LooksLikeJWT(s string) bool {
	if len(s) > MaxTokenSize {
		return false
	}
	h, rest, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	p, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sig, ".") {
		return false
	}
	hb, err := decodeSegment(h)
	if err != nil {
		return false
	}
	if _, err := decodeSegment(p); err != nil {
		return false
	}
	// An unsigned token has an empty third part; anything else must decode.
	if sig != "" {
		if _, err := decodeSegment(sig); err != nil {
			return false
		}
	}
	o, err := parseObject(hb)
	if err != nil {
		return false
	}
	alg, err := member[string](o, "alg")
	return err == nil && alg != nil && *alg != ""
}
