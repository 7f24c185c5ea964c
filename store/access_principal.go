package store

import "github.com/loupe-mam/loupe"

// aclTokens is the tokens parameter of the access predicates: NULL for an
// admin (every rule admits), else the principal's tokens (possibly none).
func aclTokens(p *loupe.Principal) any {
	if p.IsAdmin {
		return nil
	}
	if p.Tokens == nil {
		return stringArray([]string{})
	}
	return stringArray(p.Tokens)
}
