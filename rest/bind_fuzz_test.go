package rest

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// FuzzBodyObject: any body either binds as a JSON object of valid UTF-8 or
// is refused with the client's error kind, never a panic or an internal
// error.
func FuzzBodyObject(f *testing.F) {
	for _, s := range []string{`{"title":"x","itemType":"video"}`, `{"a":1,"a":1}`, `[]`, `{`, "{\"a\":\"\xff\"}", `{"a":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(b))
		m, err := bodyObject(r)
		if err != nil {
			if k := loupe.ErrorKind(err); k != loupe.EINVALID {
				t.Fatalf("bodyObject(%q): %v (kind %s)", b, err, k)
			}
			return
		}
		if m == nil || !utf8.Valid(b) || !json.Valid(b) {
			t.Fatalf("bodyObject accepted %q", b)
		}
	})
}
