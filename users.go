package loupe

import "strings"

// The rules of users and their groups as `loupe tenant create` and
// `loupe user create` name them.

// ValidEmail checks a user's email address (already trimmed).
func ValidEmail(email string) error {
	at := strings.IndexByte(email, '@')
	if at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n") {
		return Invalid("invalid email address %q", email)
	}
	return nil
}

// ValidGroupName checks the name of a group a user is put in: not blank,
// and no colon (an access rule names a group as "<tenant_id>:<group_name>").
func ValidGroupName(name string) error {
	if strings.TrimSpace(name) == "" || strings.Contains(name, ":") {
		return Invalid("invalid group name %q", name)
	}
	return nil
}
