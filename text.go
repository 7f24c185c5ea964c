package loupe

import (
	"strings"
	"unicode/utf8"
)

// ErrNUL and ErrNotUTF8 are the input gate's answers for text no field may
// hold: Postgres refuses U+0000 in text and jsonb, and a client's bytes
// that are not UTF-8 would otherwise be stored changed (as U+FFFD) without
// telling it.
var (
	ErrNUL     = Invalid("must not contain the NUL character (U+0000)")
	ErrNotUTF8 = Invalid("The request body is not valid UTF-8.")
)

// MaxTextBytes bounds every string a client sends as a String or an ID:
// above each field's own limit (the longest, a folder path of 64 names of
// 256 characters, is under 66 KB), it stops a huge string at the gate,
// named, before any field's check quotes it in a message or a query carries
// it. docs/input-limits.md.
const MaxTextBytes = 128 << 10

// ValidText checks a decoded string from a client: no U+0000, at most
// MaxTextBytes.
func ValidText(s string) *Error {
	if strings.IndexByte(s, 0) >= 0 {
		return ErrNUL
	}
	if len(s) > MaxTextBytes {
		return Invalid("a string of %d bytes, over the limit of %d", len(s), MaxTextBytes)
	}
	return nil
}

// RequiredText checks a required, non-blank text value of at most max
// characters, naming field in the error.
func RequiredText(field, v string, max int) error {
	if strings.TrimSpace(v) == "" {
		return Invalid("%s is required", field)
	}
	if utf8.RuneCountInString(v) > max {
		return Invalid("%s: at most %d characters", field, max)
	}
	return nil
}
