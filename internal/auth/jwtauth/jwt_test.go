package jwtauth_test

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
)

func newVerifier(c *clock, kv ...func(*jwtauth.Options)) *jwtauth.Verifier {
	opt := jwtauth.Options{Audience: audience, AllowPrivateNetworks: true, Now: c.Now}
	for _, f := range kv {
		f(&opt)
	}
	return jwtauth.NewVerifier(opt)
}

// TestVerify runs good tokens and attacks against one key set holding an
// RSA key, an EC key and a symmetric key (which must never be used).
func TestVerify(t *testing.T) {
	rsa1, ec1 := rsaKey1(), ecKey1()
	pemPub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&rsa1.PublicKey))})
	nB64 := b64(rsa1.N.Bytes())
	srv := newJWKSServer(t,
		rsaJWK("rsa-1", &rsa1.PublicKey),
		ecJWK("ec-1", &ec1.PublicKey),
		jwk{"kty": "oct", "kid": "hmac-1", "k": nB64},
	)
	good := sign(hdr("RS256", "rsa-1"), claims(), rsa1)
	parts := strings.Split(good, ".")

	type tc struct {
		token   string
		ok      bool
		noFetch bool   // refused before the key set is fetched
		reason  string // substring of the error
		check   func(*testing.T, *jwtauth.Claims)
	}
	cases := map[string]tc{
		"valid RS256": {token: good, ok: true, check: func(t *testing.T, c *jwtauth.Claims) {
			want := jwtauth.Claims{Subject: "user-42", Email: "ada@example.com", Groups: []string{"editors", "viewers"},
				Issuer: "https://idp.example", Expiry: t0.Add(time.Hour)}
			if c.Subject != want.Subject || c.Email != want.Email || !slices.Equal(c.Groups, want.Groups) ||
				c.Issuer != want.Issuer || !c.Expiry.Equal(want.Expiry) {
				t.Fatalf("got %+v, want %+v", *c, want)
			}
		}},
		"valid ES256":  {token: sign(hdr("ES256", "ec-1"), claims(), ec1), ok: true},
		"aud as array": {token: sign(hdr("RS256", "rsa-1"), claims("aud", []string{"other", audience}), rsa1), ok: true},
		"email and groups absent": {token: sign(hdr("RS256", "rsa-1"), claims("email", drop{}, "groups", drop{}), rsa1), ok: true,
			check: func(t *testing.T, c *jwtauth.Claims) {
				if c.Email != "" || c.Groups != nil {
					t.Fatalf("got email %q groups %#v, want empty and nil", c.Email, c.Groups)
				}
			}},
		"email not verified is dropped": {token: sign(hdr("RS256", "rsa-1"), claims("email_verified", false), rsa1), ok: true,
			check: func(t *testing.T, c *jwtauth.Claims) {
				if c.Email != "" {
					t.Fatalf("got email %q from an unverified address", c.Email)
				}
			}},
		"email verified is kept": {token: sign(hdr("RS256", "rsa-1"), claims("email_verified", true), rsa1), ok: true,
			check: func(t *testing.T, c *jwtauth.Claims) {
				if c.Email != "ada@example.com" {
					t.Fatalf("got email %q", c.Email)
				}
			}},
		"one group as a string": {token: sign(hdr("RS256", "rsa-1"), claims("groups", "admins"), rsa1), ok: true,
			check: func(t *testing.T, c *jwtauth.Claims) {
				if !slices.Equal(c.Groups, []string{"admins"}) {
					t.Fatalf("got groups %q", c.Groups)
				}
			}},
		"groups not strings":     {token: sign(hdr("RS256", "rsa-1"), claims("groups", []any{"a", 1}), rsa1), reason: "groups"},
		"groups with null":       {token: sign(hdr("RS256", "rsa-1"), claims("groups", []any{"a", nil}), rsa1), reason: "groups"},
		"fractional exp":         {token: sign(hdr("RS256", "rsa-1"), claims("exp", float64(t0.Add(time.Hour).Unix())+0.5), rsa1), ok: true},
		"no kid, one RS256 key":  {token: sign(hdr("RS256", ""), claims(), rsa1), ok: true},
		"no kid, one ES256 key":  {token: sign(hdr("ES256", ""), claims(), ec1), ok: true},
		"typ absent":             {token: sign(hdr("RS256", "rsa-1", "typ", drop{}), claims(), rsa1), ok: true},
		"unknown header ignored": {token: sign(hdr("RS256", "rsa-1", "x-custom", 1), claims(), rsa1), ok: true},

		// Algorithms: refused from the header, before any key is fetched.
		"alg none":               {token: sign(hdr("none", ""), claims(), nil), noFetch: true, reason: "alg"},
		"alg none with kid":      {token: sign(hdr("none", "rsa-1"), claims(), rawSig("x")), noFetch: true, reason: "alg"},
		"alg None":               {token: sign(hdr("None", ""), claims(), rawSig("x")), noFetch: true, reason: "alg"},
		"alg missing":            {token: sign(hdr("RS256", "rsa-1", "alg", drop{}), claims(), rsa1), noFetch: true, reason: "alg"},
		"alg rs256 lowercase":    {token: sign(hdr("rs256", "rsa-1"), claims(), rsa1), noFetch: true, reason: "alg"},
		"HS256 with PEM pub key": {token: sign(hdr("HS256", "rsa-1"), claims(), hmacSecret(pemPub)), noFetch: true, reason: "alg"},
		"HS256 with JWK n text":  {token: sign(hdr("HS256", "rsa-1"), claims(), hmacSecret(nB64)), noFetch: true, reason: "alg"},
		"HS256 with n bytes":     {token: sign(hdr("HS256", "rsa-1"), claims(), hmacSecret(rsa1.N.Bytes())), noFetch: true, reason: "alg"},
		"HS256 with oct key":     {token: sign(hdr("HS256", "hmac-1"), claims(), hmacSecret(rsa1.N.Bytes())), noFetch: true, reason: "alg"},
		"RS384":                  {token: sign(hdr("RS384", "rsa-1"), claims(), rsa1), noFetch: true, reason: "alg"},
		"PS256":                  {token: sign(hdr("PS256", "rsa-1"), claims(), rsa1), noFetch: true, reason: "alg"},
		"ES384":                  {token: sign(hdr("ES384", "ec-1"), claims(), ec1), noFetch: true, reason: "alg"},

		// Key binding: kty must match alg, and keys come only from the set.
		"RS256 naming an EC key":   {token: sign(hdr("RS256", "ec-1"), claims(), rsa1), reason: "no RS256 key"},
		"ES256 naming an RSA key":  {token: sign(hdr("ES256", "rsa-1"), claims(), ec1), reason: "no ES256 key"},
		"RS256 naming the oct key": {token: sign(hdr("RS256", "hmac-1"), claims(), rsa1), reason: "no RS256 key"},
		"other RSA key, same kid":  {token: sign(hdr("RS256", "rsa-1"), claims(), rsaKey2()), reason: "does not verify"},
		"other EC key, same kid":   {token: sign(hdr("ES256", "ec-1"), claims(), ecKey2()), reason: "does not verify"},
		"unknown kid":              {token: sign(hdr("RS256", "rsa-9"), claims(), rsa1), reason: "rsa-9"},
		"jku header ignored":       {token: sign(hdr("RS256", "evil", "jku", "https://attacker.example/jwks"), claims(), rsaKey2()), reason: "evil"},
		"embedded jwk ignored": {token: sign(hdr("RS256", "evil", "jwk", rsaJWK("evil", &rsaKey2().PublicKey)), claims(), rsaKey2()),
			reason: "evil"},
		"ES256 ASN.1 signature": {token: sign(hdr("ES256", "ec-1"), claims(), asn1Signer{ec1}), reason: "64"},
		"crit header":           {token: sign(hdr("RS256", "rsa-1", "crit", []string{"exp"}, "exp", 1), claims(), rsa1), noFetch: true, reason: "crit"},

		// Integrity.
		"tampered payload":   {token: parts[0] + "." + b64(mustJSON(claims("sub", "admin"))) + "." + parts[2], reason: "does not verify"},
		"tampered signature": {token: parts[0] + "." + parts[1] + "." + flipBit(parts[2]), reason: "does not verify"},
		"tampered ES256 signature": {token: func() string {
			p := strings.Split(sign(hdr("ES256", "ec-1"), claims(), ec1), ".")
			return p[0] + "." + p[1] + "." + flipBit(p[2])
		}(), reason: "does not verify"},
		"truncated signature": {token: parts[0] + "." + parts[1] + "." + b64(must(base64.RawURLEncoding.DecodeString(parts[2]))[:255]), reason: "does not verify"},
		"empty signature":     {token: parts[0] + "." + parts[1] + ".", noFetch: true, reason: "signature"},

		// Encoding: one token, one spelling.
		"padded signature":   {token: good + "==", noFetch: true, reason: "base64url"},
		"newline in segment": {token: parts[0] + "." + parts[1][:10] + "\n" + parts[1][10:] + "." + parts[2], noFetch: true, reason: "base64url"},
		"std alphabet":       {token: parts[0] + "." + parts[1] + "." + strings.NewReplacer("-", "+", "_", "/").Replace(parts[2]) + "+", noFetch: true, reason: "base64url"},
		"non-zero pad bits":  {token: nonCanonical(good), noFetch: true, reason: "signature"},
		"two parts":          {token: parts[0] + "." + parts[1], noFetch: true, reason: "parts"},
		"four parts":         {token: good + "." + parts[2], noFetch: true, reason: "parts"},
		"header not JSON":    {token: b64([]byte("RS256")) + "." + parts[1] + "." + parts[2], noFetch: true, reason: "header"},
		"payload not object": {token: sign(hdr("RS256", "rsa-1"), `["sub"]`, rsa1), reason: "payload"},
		"oversized token": {token: sign(hdr("RS256", "rsa-1"), claims("pad", strings.Repeat("x", 17<<10)), rsa1),
			noFetch: true, reason: "bytes"},
		"large but allowed token": {token: sign(hdr("RS256", "rsa-1"), claims("pad", strings.Repeat("x", 10<<10)), rsa1), ok: true},

		// Claims.
		"expired":               {token: sign(hdr("RS256", "rsa-1"), claims("exp", t0.Add(-2*time.Minute).Unix()), rsa1), reason: "expired"},
		"expired within leeway": {token: sign(hdr("RS256", "rsa-1"), claims("exp", t0.Add(-30*time.Second).Unix()), rsa1), ok: true},
		"exp missing":           {token: sign(hdr("RS256", "rsa-1"), claims("exp", drop{}), rsa1), reason: "exp"},
		"exp null":              {token: sign(hdr("RS256", "rsa-1"), claims("exp", nil), rsa1), reason: "exp"},
		"exp past year 9999":    {token: sign(hdr("RS256", "rsa-1"), claims("exp", 1e12), rsa1), reason: "range"},
		"exp negative":          {token: sign(hdr("RS256", "rsa-1"), claims("exp", -1), rsa1), reason: "range"},
		"exp as string":         {token: sign(hdr("RS256", "rsa-1"), claims("exp", "4102444800"), rsa1), reason: "NumericDate"},
		"nbf in the future":     {token: sign(hdr("RS256", "rsa-1"), claims("nbf", t0.Add(5*time.Minute).Unix()), rsa1), reason: "not valid before"},
		"nbf within leeway":     {token: sign(hdr("RS256", "rsa-1"), claims("nbf", t0.Add(30*time.Second).Unix()), rsa1), ok: true},
		"iat in the future":     {token: sign(hdr("RS256", "rsa-1"), claims("iat", t0.Add(5*time.Minute).Unix()), rsa1), reason: "issued"},
		"wrong audience":        {token: sign(hdr("RS256", "rsa-1"), claims("aud", "https://other.example"), rsa1), reason: "aud"},
		"aud array without us":  {token: sign(hdr("RS256", "rsa-1"), claims("aud", []string{"a", "b"}), rsa1), reason: "aud"},
		"aud missing":           {token: sign(hdr("RS256", "rsa-1"), claims("aud", drop{}), rsa1), reason: "aud"},
		"aud a prefix of ours":  {token: sign(hdr("RS256", "rsa-1"), claims("aud", "https://loupe.example"), rsa1), reason: "aud"},
		"sub missing":           {token: sign(hdr("RS256", "rsa-1"), claims("sub", drop{}), rsa1), reason: "sub"},
		"sub empty":             {token: sign(hdr("RS256", "rsa-1"), claims("sub", ""), rsa1), reason: "sub"},
		"Sub is not sub":        {token: sign(hdr("RS256", "rsa-1"), claims("sub", drop{}, "Sub", "user-42"), rsa1), reason: "sub"},
		"EXP is not exp":        {token: sign(hdr("RS256", "rsa-1"), claims("exp", drop{}, "EXP", t0.Add(time.Hour).Unix()), rsa1), reason: "exp"},
		"Aud is not aud":        {token: sign(hdr("RS256", "rsa-1"), claims("aud", drop{}, "Aud", audience), rsa1), reason: "aud"},
		"duplicate claim": {token: sign(hdr("RS256", "rsa-1"),
			fmt.Sprintf(`{"sub":"user-42","aud":%q,"exp":%d,"sub":"admin"}`, audience, t0.Add(time.Hour).Unix()), rsa1), reason: "twice"},
		"ALG is not alg":    {token: sign(hdr("RS256", "rsa-1", "alg", drop{}, "ALG", "RS256"), claims(), rsa1), noFetch: true, reason: "alg"},
		"duplicate alg":     {token: sign(`{"alg":"HS256","kid":"rsa-1","alg":"RS256"}`, claims(), rsa1), noFetch: true, reason: "twice"},
		"data after header": {token: sign(`{"alg":"RS256","kid":"rsa-1"} {}`, claims(), rsa1), noFetch: true, reason: "after"},
		"sub a number":      {token: sign(hdr("RS256", "rsa-1"), claims("sub", 42), rsa1), reason: "payload"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			v := newVerifier(newClock())
			before := srv.hits.Load()
			got, err := v.Verify(context.Background(), srv.jwksURL(), c.token)
			if c.noFetch && srv.hits.Load() != before {
				t.Errorf("key set fetched for a token refused by its shape")
			}
			if c.ok {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if c.check != nil {
					c.check(t, got)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify accepted it: %+v", got)
			}
			if !errors.Is(err, jwtauth.ErrInvalidToken) {
				t.Errorf("error %v does not wrap ErrInvalidToken", err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Errorf("error %q does not mention %q", err, c.reason)
			}
		})
	}
}

func TestVerifyWithoutAudienceRefusesAll(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsaKey1().PublicKey))
	c := newClock()
	v := newVerifier(c, func(o *jwtauth.Options) { o.Audience = "" })
	for _, aud := range []any{"", audience, drop{}} {
		tok := sign(hdr("RS256", "rsa-1"), claims("aud", aud), rsaKey1())
		if _, err := v.Verify(context.Background(), srv.jwksURL(), tok); !errors.Is(err, jwtauth.ErrInvalidToken) {
			t.Fatalf("aud %v: got %v, want ErrInvalidToken", aud, err)
		}
	}
}

func TestLeewayOption(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsaKey1().PublicKey))
	tok := sign(hdr("RS256", "rsa-1"), claims("exp", t0.Add(-5*time.Second).Unix()), rsaKey1())
	cases := []struct {
		leeway time.Duration
		ok     bool
	}{{0, true}, {10 * time.Second, true}, {time.Second, false}, {-1, false}}
	for _, c := range cases {
		v := newVerifier(newClock(), func(o *jwtauth.Options) { o.Leeway = c.leeway })
		_, err := v.Verify(context.Background(), srv.jwksURL(), tok)
		if got := err == nil; got != c.ok {
			t.Errorf("leeway %v: accepted %v, want %v (%v)", c.leeway, got, c.ok, err)
		}
	}
}

func TestLooksLikeJWT(t *testing.T) {
	cases := map[string]bool{
		"RS256 token":        true,
		"ES256 token":        true,
		"alg none, unsigned": true,
	}
	tokens := map[string]string{
		"RS256 token":        sign(hdr("RS256", "rsa-1"), claims(), rsaKey1()),
		"ES256 token":        sign(hdr("ES256", "ec-1"), claims(), ecKey1()),
		"alg none, unsigned": sign(hdr("none", ""), claims(), nil),
	}
	notJWT := map[string]string{
		"empty":             "",
		"word":              "garbage",
		"three words":       "a.b.c",
		"loupe key, fixed":  "loupe." + strings.Repeat("ab", 16) + "." + strings.Repeat("A", 43),
		"no alg":            b64([]byte(`{"typ":"JWT"}`)) + ".e30.c2ln",
		"empty alg":         b64([]byte(`{"alg":""}`)) + ".e30.c2ln",
		"alg not a string":  b64([]byte(`{"alg":256}`)) + ".e30.c2ln",
		"header an array":   b64([]byte(`["alg"]`)) + ".e30.c2ln",
		"header null":       b64([]byte(`null`)) + ".e30.c2ln",
		"two parts":         b64([]byte(`{"alg":"RS256"}`)) + ".e30",
		"four parts":        b64([]byte(`{"alg":"RS256"}`)) + ".e30.c2ln.c2ln",
		"padded header":     base64.URLEncoding.EncodeToString([]byte(`{"alg":"RS256","xy":1}`)) + ".e30.c2ln",
		"empty payload":     b64([]byte(`{"alg":"RS256"}`)) + "..c2ln",
		"bad signature b64": b64([]byte(`{"alg":"RS256"}`)) + ".e30.c2l*",
		"oversized":         b64([]byte(`{"alg":"RS256"}`)) + "." + strings.Repeat("A", 17<<10) + ".c2ln",
		"spaces":            " " + tokens["RS256 token"],
	}
	for name, tok := range notJWT {
		tokens[name] = tok
		cases[name] = false
	}
	for name, tok := range tokens {
		t.Run(name, func(t *testing.T) {
			if got := jwtauth.LooksLikeJWT(tok); got != cases[name] {
				t.Fatalf("LooksLikeJWT(%.60q) = %v, want %v", tok, got, cases[name])
			}
		})
	}
	// API keys have three dot-separated parts too; none may pass for a JWT.
	for i := 0; i < 2000; i++ {
		id, secret := make([]byte, 16), make([]byte, 32)
		rand.Read(id)
		rand.Read(secret)
		key := "loupe." + hex.EncodeToString(id) + "." + b64(secret)
		if jwtauth.LooksLikeJWT(key) {
			t.Fatalf("API key %q taken for a JWT", key)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// flipBit changes one bit in the middle of a base64url segment.
func flipBit(seg string) string {
	b := must(base64.RawURLEncoding.DecodeString(seg))
	b[len(b)/2] ^= 1
	return b64(b)
}

// nonCanonical re-spells a token's signature with non-zero trailing bits:
// the same bytes to a lax decoder, a different string.
func nonCanonical(token string) string {
	p := strings.Split(token, ".")
	sig := p[2]
	// A 256-byte signature encodes to 342 characters with 4 spare bits in
	// the last one; setting one of them keeps the decoded bytes.
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", sig[len(sig)-1])
	alt := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last|1]
	return p[0] + "." + p[1] + "." + sig[:len(sig)-1] + string(alt)
}
