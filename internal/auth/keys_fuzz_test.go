package auth

import "testing"

// FuzzParseKey: any presented string either parses into an id and secret
// that spell it exactly, or is refused before the database is asked.
func FuzzParseKey(f *testing.F) {
	k, err := NewKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(k.Header)
	f.Add(KeyPrefix + ".zz." + "x")
	f.Add("")
	f.Add(KeyPrefix + "..")
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, err := ParseKey(s)
		if err != nil {
			return
		}
		if KeyPrefix+"."+id+"."+secret != s || len(id) != 2*keyIDBytes {
			t.Fatalf("ParseKey(%q) = %q, %q", s, id, secret)
		}
	})
}
