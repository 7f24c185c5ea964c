// Package auth proves who a request comes from: API keys presented as
// "Authorization: Bearer <key>", "X-API-Key: <key>" or in a header the
// operator names (headers.go), verified against the SHA-256 of their
// secret, and the Principal they stand for.
package auth

import (
	"context"

	"github.com/loupe-mam/loupe"
)

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *loupe.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the request's principal, or nil for an unauthenticated context.
func From(ctx context.Context) *loupe.Principal {
	p, _ := ctx.Value(principalKey{}).(*loupe.Principal)
	return p
}

// Require returns the request's principal, a user of a tenant, or
// EUNAUTHORIZED: a system key is the wrong scope for tenant operations.
func Require(ctx context.Context) (*loupe.Principal, error) {
	if p := From(ctx); p != nil && !p.System {
		return p, nil
	}
	return nil, unauthenticated()
}

// RequireAdmin returns the request's principal when it is an admin of its
// tenant (Principal.AdminOnly: else EFORBIDDEN with msg).
func RequireAdmin(ctx context.Context, msg string) (*loupe.Principal, error) {
	p, err := Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.AdminOnly(msg); err != nil {
		return nil, err
	}
	return p, nil
}

// RequireSystem returns the request's principal when it has the system
// scope; a tenant's user gets wrongScope (the spec answers 403 for the
// tenant id list, 401 for storage managers).
func RequireSystem(ctx context.Context, wrongScope error) (*loupe.Principal, error) {
	p := From(ctx)
	if p == nil {
		return nil, unauthenticated()
	}
	if !p.System {
		return nil, wrongScope
	}
	return p, nil
}
