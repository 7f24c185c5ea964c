// Package secretbox seals secrets that Loupe must keep and use again (a
// storage location's secret access key) so that the database alone does not
// give them away: AES-256-GCM under a key the server holds outside the
// database (docs/storage-locations.md).
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// MinKeySize is the least key material New accepts, in bytes.
const MinKeySize = 32

// info separates the AES key from other keys derived from the same
// material, should it ever be shared.
const info = "loupe storage credentials v1"

// ErrOpen is the answer to a sealed value that does not open: another key,
// another binding, or changed bytes. It says nothing more.
var ErrOpen = errors.New("secretbox: the sealed value does not open with this server's credentials key")

// Box seals and opens values with one key.
type Box struct {
	aead cipher.AEAD
}

// New makes a box from key material (at least MinKeySize bytes): the AES
// key is derived from it with HKDF-SHA256.
func New(material []byte) (*Box, error) {
	if len(material) < MinKeySize {
		return nil, fmt.Errorf("secretbox: the key must be at least %d bytes", MinKeySize)
	}
	key, err := hkdf.Key(sha256.New, material, nil, info, 32)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plain, bound to context (the row it belongs to: a sealed
// value copied to another row does not open there). The result is nonce ||
// ciphertext || tag.
func (b *Box) Seal(plain, context []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	rand.Read(nonce) //nolint:errcheck // never fails
	return b.aead.Seal(nonce, nonce, plain, context)
}

// Open decrypts what Seal made with the same context. Returns ErrOpen when
// it does not open.
func (b *Box) Open(sealed, context []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], context)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
