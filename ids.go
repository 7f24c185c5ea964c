package loupe

import "github.com/google/uuid"

// NewID returns a fresh UUIDv7: time-ordered, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
