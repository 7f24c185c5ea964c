// Package auth proves who a request comes from: API keys presented as
// "Authorization: Bearer <key>" or "X-API-Key: <key>", verified against the
// SHA-256 of their secret, and the Principal they stand for.
package auth

import (
	"context"

	"github.com/loupe-mam/loupe/store"
)

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *store.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the request's principal, or nil for an unauthenticated context.
func From(ctx context.Context) *store.Principal {
	p, _ := ctx.Value(principalKey{}).(*store.Principal)
	return p
}

// Require returns the request's principal, or EUNAUTHORIZED.
func Require(ctx context.Context) (*store.Principal, error) {
	if p := From(ctx); p != nil {
		return p, nil
	}
	return nil, &store.Error{Kind: store.EUNAUTHORIZED, Message: store.MsgUnauthenticated}
}
