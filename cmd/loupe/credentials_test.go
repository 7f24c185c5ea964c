package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The credentials key: given, kept in the embedded setup's data directory,
// or (with a database of one's own and none given) absent.
func TestCredentialsBox(t *testing.T) {
	dir := t.TempDir()
	c := config{DataDir: dir}
	box, err := credentialsBox(c)
	if err != nil || box == nil {
		t.Fatalf("embedded: %v, %v", box, err)
	}
	path := filepath.Join(dir, "credentials.key")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials.key: %v, %v", fi, err)
	}
	sealed := box.Seal([]byte("secret"), []byte("row"))
	again, err := credentialsBox(c)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := again.Open(sealed, []byte("row")); err != nil || !bytes.Equal(plain, []byte("secret")) {
		t.Fatalf("the kept key does not open what the first start sealed: %v", err)
	}

	given := config{DataDir: dir, CredentialsKey: hex.EncodeToString(bytes.Repeat([]byte{1}, 32))}
	if box, err := credentialsBox(given); err != nil || box == nil {
		t.Fatalf("given: %v, %v", box, err)
	}
	for _, bad := range []string{"zz", hex.EncodeToString(bytes.Repeat([]byte{1}, 31))} {
		if _, err := credentialsBox(config{DataDir: dir, CredentialsKey: bad}); err == nil || !strings.Contains(err.Error(), "LOUPE_CREDENTIALS_KEY") {
			t.Errorf("key %q: %v", bad, err)
		}
	}
	if box, err := credentialsBox(config{DataDir: t.TempDir(), DatabaseURL: "postgres://x"}); err != nil || box != nil {
		t.Fatalf("shared database without a key: %v, %v", box, err)
	}
}
