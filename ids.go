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
