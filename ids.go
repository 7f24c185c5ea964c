package loupe

import "github.com/google/uuid"

// NewID returns a fresh UUIDv7: time-ordered, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// ValidID reports whether s is a UUID. Ids arrive from paths and bodies;
// one that cannot be a UUID cannot name a row, so it is answered as
// missing instead of reaching Postgres as a cast error.
func ValidID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}

// PlainName reports whether s is a plain identifier of at most 64 bytes
// (^[A-Za-z_][A-Za-z0-9_]{0,63}$): how a name chosen outside the code (a
// GraphQL operation's, a job kind read from the queue) may appear in a
// metric's label or a span's name, which must stay a bounded, readable set.
func PlainName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
