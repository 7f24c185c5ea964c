package jwtauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
)

// RSA keys shorter than this are skipped (RFC 7518 3.3 asks for 2048);
// longer than maxRSABits too, so a key set cannot make each verification
// arbitrarily expensive.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// key is one usable verification key of a set, bound to the one algorithm
// it may verify. A JWK is turned into a key only if its kty, crv, alg and
// use all agree with that algorithm: this binding is what defeats alg
// confusion, since the token's alg can select a key but never reinterpret it.
type key struct {
	kid string
	alg string // algRS256 or algES256
	rsa *rsa.PublicKey
	ec  *ecdsa.PublicKey
}

// jwk is one key of a set (RFC 7517, 7518), the members this verifier reads.
type jwk struct {
	Kty, Kid, Alg, Use, N, E, Crv, X, Y string
	KeyOps                              *[]string
}

// parseKey turns a JWK into a usable key, or says why it is not one.
// Unusable keys are skipped by the caller, not fatal: sets commonly carry
// encryption keys or algorithms this server does not accept.
func parseKey(raw json.RawMessage) (*key, error) {
	o, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("not a JWK: %v", err)
	}
	m := &members{o: o}
	j := jwk{
		Kty: str(m, "kty"), Kid: str(m, "kid"), Alg: str(m, "alg"), Use: str(m, "use"),
		N: str(m, "n"), E: str(m, "e"), Crv: str(m, "crv"), X: str(m, "x"), Y: str(m, "y"),
		KeyOps: get[[]string](m, "key_ops"),
	}
	if m.err != nil {
		return nil, fmt.Errorf("not a JWK: %v", m.err)
	}
	if j.Use != "" && j.Use != "sig" {
		return nil, fmt.Errorf("use %q is not sig", j.Use)
	}
	if j.KeyOps != nil && !slices.Contains(*j.KeyOps, "verify") {
		return nil, fmt.Errorf("key_ops %q lacks verify", *j.KeyOps)
	}
	switch j.Kty {
	case "RSA":
		if j.Alg != "" && j.Alg != algRS256 {
			return nil, fmt.Errorf("RSA key with alg %q", j.Alg)
		}
		pub, err := rsaKey(j.N, j.E)
		if err != nil {
			return nil, err
		}
		return &key{kid: j.Kid, alg: algRS256, rsa: pub}, nil
	case "EC":
		if j.Alg != "" && j.Alg != algES256 {
			return nil, fmt.Errorf("EC key with alg %q", j.Alg)
		}
		if j.Crv != "P-256" {
			return nil, fmt.Errorf("EC curve %q is not P-256", j.Crv)
		}
		pub, err := p256Key(j.X, j.Y)
		if err != nil {
			return nil, err
		}
		return &key{kid: j.Kid, alg: algES256, ec: pub}, nil
	default:
		return nil, fmt.Errorf("kty %q is not RSA or EC", j.Kty)
	}
}

func rsaKey(n64, e64 string) (*rsa.PublicKey, error) {
	nb, err := decodeSegment(n64)
	if err != nil {
		return nil, fmt.Errorf("RSA n: %v", err)
	}
	eb, err := decodeSegment(e64)
	if err != nil {
		return nil, fmt.Errorf("RSA e: %v", err)
	}
	n := new(big.Int).SetBytes(nb)
	if bits := n.BitLen(); bits < minRSABits || bits > maxRSABits {
		return nil, fmt.Errorf("RSA key of %d bits (want %d to %d)", bits, minRSABits, maxRSABits)
	}
	if len(eb) > 4 {
		return nil, errors.New("RSA e is too large")
	}
	e := 0
	for _, b := range eb {
		e = e<<8 | int(b)
	}
	if e < 3 || e%2 == 0 {
		return nil, fmt.Errorf("RSA e = %d is not an odd number ≥ 3", e)
	}
	return &rsa.PublicKey{N: n, E: e}, nil
}

func p256Key(x64, y64 string) (*ecdsa.PublicKey, error) {
	x, err := decodeSegment(x64)
	if err != nil {
		return nil, fmt.Errorf("EC x: %v", err)
	}
	y, err := decodeSegment(y64)
	if err != nil {
		return nil, fmt.Errorf("EC y: %v", err)
	}
	// RFC 7518 6.2.1.2: coordinates are the full 32 bytes, leading zeros kept.
	if len(x) != 32 || len(y) != 32 {
		return nil, fmt.Errorf("P-256 coordinates of %d and %d bytes (want 32)", len(x), len(y))
	}
	// The parser refuses points not on the curve (invalid-curve attacks).
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, fmt.Errorf("EC point: %v", err)
	}
	return pub, nil
}

// verifySignature checks sig over input with k, which the caller has
// already matched to the token's alg.
func (k *key) verifySignature(input string, sig []byte) error {
	sum := sha256.Sum256([]byte(input))
	switch k.alg {
	case algRS256:
		if err := rsa.VerifyPKCS1v15(k.rsa, crypto.SHA256, sum[:], sig); err != nil {
			return invalid("RS256 signature does not verify with key %q", k.kid)
		}
		return nil
	case algES256:
		// JWS ES256 is the fixed-size r||s (RFC 7518 3.4), not ASN.1 DER:
		// a DER signature is refused by its length alone.
		if len(sig) != 64 {
			return invalid("ES256 signature is %d bytes, not 64 (r||s)", len(sig))
		}
		r := new(big.Int).SetBytes(sig[:32])
		s := new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(k.ec, sum[:], r, s) {
			return invalid("ES256 signature does not verify with key %q", k.kid)
		}
		return nil
	}
	return invalid("no verifier for alg %q", k.alg)
}
