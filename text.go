package loupe

import (
	"strings"
	"unicode/utf8"
)

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
