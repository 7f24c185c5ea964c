package store

import (
	"testing"

	"github.com/loupe-mam/loupe"
)

// FuzzParseContentCursor: any nextToken either is refused EINVALID or reads
// back as a cursor whose own token reads back the same.
func FuzzParseContentCursor(f *testing.F) {
	c := ContentCursor{From: 20, ByName: true, Name: "Clips", ID: loupe.NewID()}
	f.Add(c.Token())
	f.Add("")
	f.Add("W10")     // []
	f.Add("WzEsMV0") // [1,1]
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseContentCursor(s)
		if err != nil {
			if loupe.ErrorKind(err) != loupe.EINVALID {
				t.Fatalf("ParseContentCursor(%q): %v", s, err)
			}
			return
		}
		if got.From < 1 || !loupe.ValidID(got.ID) {
			t.Fatalf("ParseContentCursor(%q) = %+v", s, got)
		}
		again, err := ParseContentCursor(got.Token())
		if err != nil || *again != *got {
			t.Fatalf("token of %+v reads back as %+v, %v", got, again, err)
		}
	})
}
