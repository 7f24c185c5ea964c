package auth_test

import (
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/auth"
)

func TestNewKeyParsesBack(t *testing.T) {
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	id, secret, err := auth.ParseKey(k.Header)
	if err != nil {
		t.Fatalf("ParseKey(%q): %v", k.Header, err)
	}
	if id != k.ID || !auth.SecretMatches(secret, k.Hash) {
		t.Fatalf("parsed id %q (want %q), secret matches %v", id, k.ID, auth.SecretMatches(secret, k.Hash))
	}
	if strings.Contains(string(k.Hash), secret) || len(k.Hash) != 32 {
		t.Fatalf("stored hash must be the SHA-256 of the secret")
	}
	k2, _ := auth.NewKey()
	if k2.ID == k.ID || k2.Header == k.Header {
		t.Fatal("two keys are equal")
	}
}

func TestParseKeyRejectsMalformed(t *testing.T) {
	k, _ := auth.NewKey()
	p := strings.Split(k.Header, ".")
	cases := map[string]string{
		"empty":           "",
		"no dots":         "loupe",
		"wrong prefix":    "lupe." + p[1] + "." + p[2],
		"two parts":       "loupe." + p[1],
		"short id":        "loupe." + p[1][:30] + "." + p[2],
		"id not hex":      "loupe." + strings.Repeat("z", 32) + "." + p[2],
		"short secret":    "loupe." + p[1] + "." + p[2][:40],
		"secret not b64":  "loupe." + p[1] + "." + strings.Repeat("*", len(p[2])),
		"extra part":      k.Header + ".x",
		"secret too long": k.Header + "AAAA",
	}
	for name, key := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := auth.ParseKey(key); err == nil {
				t.Fatalf("ParseKey(%q) accepted a malformed key", key)
			}
		})
	}
}

func TestSecretMatches(t *testing.T) {
	h := auth.HashSecret("s3cret")
	if !auth.SecretMatches("s3cret", h) || auth.SecretMatches("s3cret ", h) || auth.SecretMatches("", h) {
		t.Fatal("SecretMatches compares wrongly")
	}
}
