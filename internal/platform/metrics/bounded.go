package metrics

// Label values chosen outside the code (GraphQL operation names, which
// clients choose; job kinds, read from the queue's table) are bounded:
// a value must look like a name, and after a cap of distinct values every
// new one counts as Other.

// Other is the label value of whatever is over a cap or not a name.
const Other = "other"

// validName reports whether s matches ^[A-Za-z_][A-Za-z0-9_]{0,63}$.
func validName(s string) bool {
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
