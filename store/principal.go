package store

// Principal is who makes a request: a user of one tenant, as proven by a
// credential. The tenant of every query comes from here and nowhere else.
type Principal struct {
	TenantID string
	UserID   string
	Email    string
	IsAdmin  bool
	// Groups holds the user's group names.
	Groups []string
	// KeyID is the API key the request was made with.
	KeyID string
}
