package jwtauth_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The test signer: just enough JWS to make good and bad tokens with the
// standard library, independent of the code under test.

const audience = "https://loupe.example/tenant-1"

var (
	rsaKey1 = sync.OnceValue(func() *rsa.PrivateKey { return genRSA(2048) })
	rsaKey2 = sync.OnceValue(func() *rsa.PrivateKey { return genRSA(2048) })
	ecKey1  = sync.OnceValue(func() *ecdsa.PrivateKey { return genEC(elliptic.P256()) })
	ecKey2  = sync.OnceValue(func() *ecdsa.PrivateKey { return genEC(elliptic.P256()) })
)

func genRSA(bits int) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		panic(err)
	}
	return k
}

func genEC(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// jwk is a key set entry; extra key/value pairs are added or, with value
// drop{}, removed.
type jwk map[string]any

type drop struct{}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if _, ok := kv[i+1].(drop); ok {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func rsaJWK(kid string, pub *rsa.PublicKey, kv ...any) jwk {
	return with(map[string]any{
		"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()),
	}, kv...)
}

func ecJWK(kid string, pub *ecdsa.PublicKey, kv ...any) jwk {
	b, err := pub.Bytes()
	if err != nil {
		panic(err)
	}
	return with(map[string]any{
		"kty": "EC", "kid": kid, "crv": "P-256", "use": "sig", "alg": "ES256",
		"x": b64(b[1:33]), "y": b64(b[33:]),
	}, kv...)
}

// Signers beyond the two key types.
type (
	hmacSecret []byte                      // HS256 with this secret
	asn1Signer struct{ *ecdsa.PrivateKey } // ES256 with a DER signature
	rawSig     []byte                      // this exact signature
)

func signature(input string, signer any) []byte {
	sum := sha256.Sum256([]byte(input))
	switch k := signer.(type) {
	case *rsa.PrivateKey:
		s, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			panic(err)
		}
		return s
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			panic(err)
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out
	case asn1Signer:
		s, err := ecdsa.SignASN1(rand.Reader, k.PrivateKey, sum[:])
		if err != nil {
			panic(err)
		}
		return s
	case hmacSecret:
		m := hmac.New(sha256.New, k)
		m.Write([]byte(input))
		return m.Sum(nil)
	case rawSig:
		return k
	case nil:
		return nil
	}
	panic("unknown signer")
}

// sign makes a compact JWS of header and claims (maps, or raw JSON strings).
func sign(header, claims any, signer any) string {
	enc := func(v any) string {
		if s, ok := v.(string); ok {
			return b64([]byte(s))
		}
		return b64(mustJSON(v))
	}
	input := enc(header) + "." + enc(claims)
	return input + "." + b64(signature(input, signer))
}

func hdr(alg, kid string, kv ...any) map[string]any {
	h := map[string]any{"alg": alg, "typ": "JWT"}
	if kid != "" {
		h["kid"] = kid
	}
	return with(h, kv...)
}

// t0 is the fake clock's start.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// claims are valid at t0 unless overridden.
func claims(kv ...any) map[string]any {
	return with(map[string]any{
		"iss":    "https://idp.example",
		"sub":    "user-42",
		"aud":    audience,
		"email":  "ada@example.com",
		"groups": []string{"editors", "viewers"},
		"iat":    t0.Add(-time.Minute).Unix(),
		"exp":    t0.Add(time.Hour).Unix(),
	}, kv...)
}

// clock is a settable Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// jwksServer serves a key set that tests can replace, and counts requests.
type jwksServer struct {
	*httptest.Server
	hits atomic.Int64

	mu     sync.Mutex
	status int
	body   []byte
	accept string // Accept header of the last request
}

func newJWKSServer(t *testing.T, keys ...jwk) *jwksServer {
	s := &jwksServer{}
	s.setKeys(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		status, body := s.status, s.body
		s.accept = r.Header.Get("Accept")
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) setKeys(keys ...jwk) {
	if keys == nil {
		keys = []jwk{}
	}
	s.setBody(http.StatusOK, mustJSON(map[string]any{"keys": keys}))
}

func (s *jwksServer) setBody(status int, body []byte) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *jwksServer) jwksURL() string { return s.URL + "/.well-known/jwks.json" }

func ellipticP384() elliptic.Curve { return elliptic.P384() }
