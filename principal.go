package loupe

// Principal is who makes a request: a user of one tenant, as proven by a
// credential. The tenant of every query comes from here and nowhere else.
type Principal struct {
	TenantID string
	UserID   string
	Email    string
	IsAdmin  bool
	// Groups holds the user's group names.
	Groups []string
	// Tokens are what an access rule may name to admit the user: its group
	// ids and "<tenant_id>:<group_name>" for each group (spec 2.10).
	Tokens []string
	// KeyID is the API key the request was made with ("" for a token of
	// the tenant's identity provider).
	KeyID string
	// System is the server-level scope (`loupe system-key create`): no
	// tenant, only the system endpoints.
	System bool
}

// AdminOnly is the one rule of what only a tenant's admins may do: nil for
// an admin, else EFORBIDDEN with msg (the operation's own sentence).
func (p *Principal) AdminOnly(msg string) error {
	if !p.IsAdmin {
		return Forbidden("%s", msg)
	}
	return nil
}
