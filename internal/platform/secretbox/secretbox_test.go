package secretbox_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/loupe-mam/loupe/internal/platform/secretbox"
)

func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	b, err := secretbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	ctx := []byte("tenant/location")
	sealed := b.Seal(secret, ctx)
	if bytes.Contains(sealed, secret) {
		t.Fatal("the sealed value contains the secret")
	}
	if again := b.Seal(secret, ctx); bytes.Equal(again, sealed) {
		t.Fatal("two seals of one secret are equal: the nonce is not random")
	}
	got, err := b.Open(sealed, ctx)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %q, %v", got, err)
	}
	other, _ := secretbox.New(bytes.Repeat([]byte{8}, 32))
	tampered := append([]byte(nil), sealed...)
	tampered[len(tampered)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other key":     func() ([]byte, error) { return other.Open(sealed, ctx) },
		"other context": func() ([]byte, error) { return b.Open(sealed, []byte("tenant/other")) },
		"tampered":      func() ([]byte, error) { return b.Open(tampered, ctx) },
		"short":         func() ([]byte, error) { return b.Open(sealed[:10], ctx) },
	} {
		if _, err := open(); !errors.Is(err, secretbox.ErrOpen) {
			t.Errorf("%s: %v, want ErrOpen", name, err)
		}
	}
	if _, err := secretbox.New(key[:31]); err == nil {
		t.Fatal("a 31-byte key was taken")
	}
}
