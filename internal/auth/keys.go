package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// KeyPrefix starts every Loupe API key, so that leaked keys are recognisable
// by secret scanners.
const KeyPrefix = "loupe"

// A key is "<prefix>.<keyId>.<secret>": a 16-byte key id in hex and a 32-byte
// (256-bit) secret in unpadded base64url.
const (
	keyIDBytes  = 16
	secretBytes = 32
)

var errMalformed = errors.New("auth: malformed api key")

// Key is a freshly generated API key. Header is shown to its owner once;
// only Hash is stored.
type Key struct {
	ID     string
	Header string
	Hash   []byte
}

// NewKey generates a key.
func NewKey() (*Key, error) {
	id := make([]byte, keyIDBytes)
	secret := make([]byte, secretBytes)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	s := base64.RawURLEncoding.EncodeToString(secret)
	k := &Key{ID: hex.EncodeToString(id), Hash: HashSecret(s)}
	k.Header = KeyPrefix + "." + k.ID + "." + s
	return k, nil
}

// HashSecret is what is stored of a secret.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// ParseKey splits a presented key into its id and secret, rejecting anything
// not of the exact shape before the database is asked.
func ParseKey(presented string) (id, secret string, err error) {
	prefix, rest, ok := strings.Cut(presented, ".")
	if !ok || prefix != KeyPrefix {
		return "", "", errMalformed
	}
	id, secret, ok = strings.Cut(rest, ".")
	if !ok || len(id) != 2*keyIDBytes || len(secret) != base64.RawURLEncoding.EncodedLen(secretBytes) {
		return "", "", errMalformed
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", "", errMalformed
	}
	if _, err := base64.RawURLEncoding.DecodeString(secret); err != nil {
		return "", "", errMalformed
	}
	return id, secret, nil
}

// SecretMatches compares a presented secret with a stored hash in constant time.
func SecretMatches(secret string, hash []byte) bool {
	return subtle.ConstantTimeCompare(HashSecret(secret), hash) == 1
}
