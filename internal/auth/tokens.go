package auth

import (
	"context"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
	"github.com/loupe-mam/loupe/store"
)

// TenantHeader names the tenant a bearer JWT is for: a token names no
// Loupe tenant, and the tenant's settings say which key set verifies it.
const TenantHeader = "X-Loupe-Tenant"

// IdentityStore is what token authentication reads (store.Store).
type IdentityStore interface {
	Security(ctx context.Context, tenantID string) (*store.SecuritySettings, error)
	PrincipalForIdentity(ctx context.Context, tenantID string, id store.Identity, autoAdd bool) (*loupe.Principal, error)
}

// Tokens authenticates bearer JWTs of a tenant's identity provider. A
// token's audience must contain the tenant's id, so that a token issued for
// one tenant (or another application of a shared provider) opens no other.
type Tokens struct {
	Store IdentityStore
	// Options are the verifiers' (the audience is set per tenant).
	Options jwtauth.Options

	mu        sync.Mutex
	verifiers map[string]*jwtauth.Verifier // by tenant: each caches key sets
}

// maxVerifiers bounds the verifiers kept (one per tenant using tokens).
const maxVerifiers = 10000

func (t *Tokens) verifier(tenantID string) *jwtauth.Verifier {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.verifiers[tenantID]; ok {
		return v
	}
	if t.verifiers == nil || len(t.verifiers) >= maxVerifiers {
		t.verifiers = map[string]*jwtauth.Verifier{}
	}
	opt := t.Options
	opt.Audience = tenantID
	v := jwtauth.NewVerifier(opt)
	t.verifiers[tenantID] = v
	return v
}

// Authenticate verifies token for tenantID and returns its bearer's
// principal. Every failure is EUNAUTHORIZED; other errors are the
// database's.
func (t *Tokens) Authenticate(ctx context.Context, tenantID, token string) (*loupe.Principal, error) {
	// A tenant id is a UUID, which any mix of cases spells: the canonical
	// (lower-case) spelling is the audience, the principal's tenant and the
	// verifier's key, so that spellings share one key set cache (else each
	// would fetch the key set anew) and ACL tokens match.
	tenantID = strings.ToLower(tenantID)
	if tenantID == "" {
		return nil, unauthenticated()
	}
	sec, err := t.Store.Security(ctx, tenantID)
	if err != nil {
		if loupe.ErrorKind(err) == loupe.ENOTFOUND {
			return nil, unauthenticated()
		}
		return nil, err
	}
	if sec.JwksURL == nil {
		return nil, unauthenticated()
	}
	claims, err := t.verifier(tenantID).Verify(ctx, *sec.JwksURL, token)
	if err != nil {
		// Which check failed is for the operator, not the caller.
		reqlog.From(ctx).Info("bearer token refused", "tenant", tenantID, "reason", err.Error())
		return nil, unauthenticated()
	}
	return t.Store.PrincipalForIdentity(ctx, tenantID,
		store.Identity{Subject: claims.Subject, Email: claims.Email, Groups: claims.Groups}, sec.AutoAddUsersToOrganizationGroup)
}
