package auth

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/store"
)

// KeyLookup finds a stored key by id (store.Store satisfies it).
type KeyLookup interface {
	KeyByID(ctx context.Context, keyID string) (*store.KeyRecord, error)
}

// Authenticator turns a request's credential into a Principal.
type Authenticator struct {
	Keys KeyLookup
	Now  func() time.Time
}

// unauthenticated is the one answer for every bad credential: which check
// failed is not told to the caller.
func unauthenticated() error {
	return &store.Error{Kind: store.EUNAUTHORIZED, Message: store.MsgUnauthenticated}
}

// Credential returns the API key a request presents, if any.
func Credential(r *http.Request) string {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return strings.TrimSpace(k)
	}
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// Authenticate verifies a presented key: well formed, known, secret matching,
// active, unexpired, and its user not deactivated. Every failure is
// EUNAUTHORIZED with the spec's message; other errors are the database's.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (*store.Principal, error) {
	id, secret, err := ParseKey(presented)
	if err != nil {
		return nil, unauthenticated()
	}
	k, err := a.Keys.KeyByID(ctx, id)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	if !SecretMatches(secret, k.SecretHash) || !k.IsActive || k.Deactivated ||
		(k.ExpiresOn != nil && !now().Before(*k.ExpiresOn)) {
		return nil, unauthenticated()
	}
	return k.Principal(), nil
}
