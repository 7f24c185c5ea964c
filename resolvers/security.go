package resolvers

import (
	"context"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/store"
)

// This file answers API keys, security settings and the system scope
// (spec 2.19, 2.27, 4.7, section 5; docs/security.md).

// indefinite is the expiryDate of a key that does not expire.
const indefinite = "indefinite"

// maxJwksURL bounds a key set URL (browsers' practical limit).
const maxJwksURL = 2048

func apiKeyExpiry(k *store.APIKey) string {
	if k.ExpiresOn == nil {
		return indefinite
	}
	return k.ExpiresOn.UTC().Format(scalar.Layout)
}

func (r *Resolver) updateSecuritySettings(ctx context.Context, in model.SecuritySettingsInput) (*store.SecuritySettings, error) {
	p, written, err := configInput(ctx, msgSecurityAdminOnly, nil, nil)
	if err != nil {
		return nil, err
	}
	u := store.SecurityUpdate{AutoAdd: in.AutoAddUsersToOrganizationGroup, SetJwksURL: written.Given["jwksUrl"]}
	if u.SetJwksURL && in.JwksURL != nil {
		url := strings.TrimSpace(*in.JwksURL)
		if len(url) > maxJwksURL {
			return nil, loupe.Invalid("jwksUrl is longer than %d characters", maxJwksURL)
		}
		if url == "" {
			u.JwksURL = nil
		} else {
			if r.JWKS == nil {
				return nil, loupe.Invalid("this server does not verify identity provider tokens")
			}
			if err := r.JWKS.CheckURL(ctx, url); err != nil {
				return nil, loupe.Invalid("jwksUrl: %v", err)
			}
			u.JwksURL = &url
		}
	}
	return r.Store.UpdateSecurity(ctx, p, u)
}

// wrongScope is the answer of a system endpoint to a tenant's key where
// the spec wants 401 (storage managers).
func wrongScope() error {
	return &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
}

func ptr[T any](v T) *T { return &v }
