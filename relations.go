package loupe

import "regexp"

// relationTypeRE is the syntax of a relation type.
var relationTypeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// ValidRelationType reports whether s can name a relation type: 1 to 64
// letters, digits, _ and -, starting with a letter.
func ValidRelationType(s string) bool { return relationTypeRE.MatchString(s) }
