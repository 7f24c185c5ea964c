package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/blob"
	"github.com/loupe-mam/loupe/store"
)

// This file answers API keys, security settings and the system scope
// (spec 2.19, 2.27, 4.7, section 5; docs/security.md).

// indefinite is the expiryDate of a key that does not expire.
const indefinite = "indefinite"

// maxJwksURL bounds a key set URL (browsers' practical limit).
const maxJwksURL = 2048

func (r *Resolver) apiKeys(ctx context.Context) ([]*store.APIKey, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.APIKeys(ctx, p)
}

func apiKeyExpiry(k *store.APIKey) string {
	if k.ExpiresOn == nil {
		return indefinite
	}
	return k.ExpiresOn.UTC().Format(scalar.Layout)
}

func (r *Resolver) createAPIKey(ctx context.Context, in model.CreateAPIKeyInput) (*store.APIKey, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	create := store.APIKeyInput{Label: in.Label, MaxUnusedDays: in.MaxUnusedDays}
	if in.ExpiryDate != nil && *in.ExpiryDate != indefinite {
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*in.ExpiryDate))
		if err != nil {
			return nil, loupe.Invalid(`expiryDate must be an RFC 3339 timestamp or "indefinite", got %q`, *in.ExpiryDate)
		}
		create.ExpiresOn = &t
	}
	k, err := auth.NewKey()
	if err != nil {
		return nil, err
	}
	return r.Store.CreateAPIKey(ctx, p, create, store.NewKey{ID: k.ID, SecretHash: k.Hash}, k.Header)
}

func (r *Resolver) deleteAPIKey(ctx context.Context, keyID string) (*store.APIKey, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.DeleteAPIKey(ctx, p, keyID)
}

func (r *Resolver) securitySettings(ctx context.Context) (*store.SecuritySettings, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, loupe.Forbidden("only admins read the security settings")
	}
	return r.Store.Security(ctx, p.TenantID)
}

func (r *Resolver) updateSecuritySettings(ctx context.Context, in model.SecuritySettingsInput, given map[string]any) (*store.SecuritySettings, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, loupe.Forbidden("only admins change the security settings")
	}
	u := store.SecurityUpdate{AutoAdd: in.AutoAddUsersToOrganizationGroup}
	if _, u.SetJwksURL = given["jwksUrl"]; u.SetJwksURL && in.JwksURL != nil {
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

func (r *Resolver) tenantIDs(ctx context.Context) (*model.TenantIds, error) {
	if _, err := auth.RequireSystem(ctx, loupe.Forbidden("the tenant id list needs the system scope")); err != nil {
		return nil, err
	}
	ids, err := r.Store.TenantIDs(ctx)
	if err != nil {
		return nil, err
	}
	return &model.TenantIds{Ids: ids}, nil
}

func (r *Resolver) storageManagers(ctx context.Context) ([]*model.StorageManager, error) {
	if _, err := auth.RequireSystem(ctx, wrongScope()); err != nil {
		return nil, err
	}
	m := &model.StorageManager{ID: "files", Type: "disk", Status: "ok"}
	c, ok := r.Files.(blob.Checker)
	switch {
	case r.Files == nil:
		m.Status, m.Message = "unavailable", ptr("no file store is configured")
	case ok:
		if err := c.Check(ctx); err != nil {
			m.Status, m.Message = "unavailable", ptr(err.Error())
		}
	}
	return []*model.StorageManager{m}, nil
}

func ptr[T any](v T) *T { return &v }

// rawInput is the field's input argument as the client sent it, to tell a
// key given as null from a key not given.
func rawInput(ctx context.Context) map[string]any {
	args := graphql.GetFieldContext(ctx).Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)
	m, _ := args["input"].(map[string]any)
	return m
}
