package loupe_test

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// FuzzReadJSON: the gate never panics, accepts only valid UTF-8 JSON, and
// what it accepts survives CheckJSON's encoding as valid JSON within the
// limit, or is refused with a JSONError.
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":null}]}`, `{"a":1,"a":2}`, `[[[[]]]]`, "\"\xff\"", `"\u0000"`, `1e999`, `{"":{}}`} {
		f.Add([]byte(s))
	}
	limit := loupe.JSONLimit{Bytes: 1 << 10, Depth: 4, Keys: 8, Items: 8}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := loupe.ReadJSON(b)
		if err != nil {
			var le *loupe.Error
			if !errors.Is(err, loupe.ErrJSONSyntax) && (!errors.As(err, &le) || le.Kind != loupe.EINVALID) {
				t.Fatalf("ReadJSON(%q): error %v is neither a syntax error nor EINVALID", b, err)
			}
			return
		}
		if !utf8.Valid(b) || !json.Valid(b) {
			t.Fatalf("ReadJSON accepted %q, which is not UTF-8 JSON", b)
		}
		j, err := loupe.CheckJSON(limit, v)
		if err != nil {
			if _, ok := err.(*loupe.JSONError); !ok {
				t.Fatalf("CheckJSON: %T %v", err, err)
			}
			return
		}
		if !json.Valid(j) || len(j) > limit.Bytes {
			t.Fatalf("CheckJSON(%q) returned %q", b, j)
		}
	})
}
