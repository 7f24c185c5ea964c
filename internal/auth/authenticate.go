package auth

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
	"github.com/loupe-mam/loupe/store"
)

// KeyLookup finds a stored key by id (store.Store satisfies it).
type KeyLookup interface {
	KeyByID(ctx context.Context, keyID string) (*store.KeyRecord, error)
}

// KeyUses records what a key's use changes: its last use (at most once a
// minute) and its revocation when it went unused too long (store.Store
// satisfies it).
type KeyUses interface {
	TouchAPIKey(ctx context.Context, tenantID, keyID string, now time.Time) error
	RevokeUnusedAPIKey(ctx context.Context, k *store.KeyRecord, now time.Time) (bool, error)
}

// Authenticator turns a request's credential into a Principal.
type Authenticator struct {
	Keys KeyLookup
	Uses KeyUses
	// Tokens, when set, authenticates bearer JWTs of tenants' identity
	// providers; without it a JWT is just a malformed key.
	Tokens *Tokens
	Now    func() time.Time
	// KeyHeaders names further request headers that carry a credential,
	// as Authorization does ("Bearer " optional), for integrations written
	// for another service's header: an operator's setting
	// (LOUPE_API_KEY_HEADERS, ParseKeyHeaders). Loupe names none itself.
	KeyHeaders []string

	// touched holds, per key id, when this process last recorded a use:
	// the cached record's last use is only as fresh as the cache.
	touched sync.Map
}

// touchEvery is how often a key's last use is written at most.
const touchEvery = time.Minute

// unauthenticated is the one answer for every bad credential: which check
// failed is not told to the caller.
func unauthenticated() error {
	return &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
}

// Credential returns the credential a request presents, if any: X-API-Key,
// else the bearer value of Authorization, else the value of the first of
// extra (the operator's Authenticator.KeyHeaders) that is set, a "Bearer "
// prefix taken off.
func Credential(r *http.Request, extra []string) string {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return strings.TrimSpace(k)
	}
	if b, ok := bearer(r.Header.Get("Authorization")); ok {
		return b
	}
	for _, h := range extra {
		v := strings.TrimSpace(r.Header.Get(h))
		if v == "" {
			continue
		}
		if b, ok := bearer(v); ok {
			return b
		}
		return v
	}
	return ""
}

// bearer is the credential of a "Bearer <credential>" value (the scheme in
// any case).
func bearer(h string) (string, bool) {
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:]), true
	}
	return "", false
}

// AuthenticateRequest authenticates a request's credential: an API key, or
// a bearer JWT for the tenant named by TenantHeader.
func (a *Authenticator) AuthenticateRequest(r *http.Request) (*loupe.Principal, error) {
	cred := Credential(r, a.KeyHeaders)
	if cred == "" {
		return nil, unauthenticated()
	}
	if a.Tokens != nil && jwtauth.LooksLikeJWT(cred) {
		return a.Tokens.Authenticate(r.Context(), strings.TrimSpace(r.Header.Get(TenantHeader)), cred)
	}
	return a.Authenticate(r.Context(), cred)
}

// Authenticate verifies a presented key: well formed, known, secret matching,
// active, unexpired, used recently enough (maxUnusedDays) and its user not
// deactivated, and records its use. Every failure is EUNAUTHORIZED with the
// spec's message; other errors are the database's.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (*loupe.Principal, error) {
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
	t := now()
	if !SecretMatches(secret, k.SecretHash) || !k.IsActive || k.Deactivated ||
		(k.ExpiresOn != nil && !t.Before(*k.ExpiresOn)) {
		return nil, unauthenticated()
	}
	if !k.System && a.Uses != nil {
		if err := a.recordUse(ctx, k, t); err != nil {
			return nil, err
		}
	}
	return k.Principal(), nil
}

// recordUse refuses a key unused longer than its maxUnusedDays (revoking
// it) and writes its last use, at most once a minute per key.
func (a *Authenticator) recordUse(ctx context.Context, k *store.KeyRecord, now time.Time) error {
	last := k.CreatedOn
	if k.LastUsedOn != nil && k.LastUsedOn.After(last) {
		last = *k.LastUsedOn
	}
	mine, touchedHere := a.touched.Load(k.KeyID)
	if touchedHere && mine.(time.Time).After(last) {
		last = mine.(time.Time)
	}
	if until := k.UnusedUntil(last); until != nil && !now.Before(*until) {
		// The database decides: another server may have seen a use this
		// one has not.
		revoked, err := a.Uses.RevokeUnusedAPIKey(ctx, k, now)
		if err != nil {
			return err
		}
		if revoked {
			a.touched.Delete(k.KeyID)
			return unauthenticated()
		}
	}
	if touchedHere && now.Sub(mine.(time.Time)) < touchEvery {
		return nil
	}
	if err := a.Uses.TouchAPIKey(ctx, k.TenantID, k.KeyID, now); err != nil {
		return err
	}
	a.touched.Store(k.KeyID, now)
	return nil
}
