package loupe

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of an API key's settings.
const (
	maxKeyLabel      = 200 // characters, not bytes
	maxUnusedDaysCap = 3650
)

// Validate checks a key to create at now and trims its label. Returns
// EINVALID for a bad label, a past expiry or a bad maxUnusedDays.
func (in *APIKeyInput) Validate(now time.Time) error {
	in.Label = strings.TrimSpace(in.Label)
	switch {
	case in.Label == "":
		return Invalid("label is required")
	case utf8.RuneCountInString(in.Label) > maxKeyLabel:
		return Invalid("label is longer than %d characters", maxKeyLabel)
	case ValidText(in.Label) != nil:
		return Invalid("label: %s", ErrNUL.Message)
	case in.ExpiresOn != nil && !in.ExpiresOn.After(now):
		return Invalid("expiryDate must be in the future")
	case in.MaxUnusedDays != nil && (*in.MaxUnusedDays < 1 || *in.MaxUnusedDays > maxUnusedDaysCap):
		return Invalid("maxUnusedDays must be between 1 and %d", maxUnusedDaysCap)
	}
	return nil
}
