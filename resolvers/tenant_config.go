package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// Messages of the 403s of tenant administration (docs/tenant-config.md,
// docs/usage.md).
const (
	msgConfigAdminOnly = "Only administrators may change the tenant configuration."
	msgUsageAdminOnly  = "Only administrators may read the tenant's usage figures."
)

// adminOnly returns the principal when it is an admin of its tenant, else
// FORBIDDEN with msg.
func adminOnly(ctx context.Context, msg string) (*loupe.Principal, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, loupe.Forbidden("%s", msg)
	}
	return p, nil
}

// tenantConfig is the caller's tenant configuration. Every user reads it
// (frontends need its switches); a non-admin reads secrets masked.
func (r *Resolver) tenantConfig(ctx context.Context) (*store.TenantConfig, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	c, err := r.Store.TenantConfig(ctx, p.TenantID)
	if err != nil || p.IsAdmin {
		return c, err
	}
	return c.Masked(), nil
}

// updateTenantConfig merges keys into the tenant configuration (admins).
func (r *Resolver) updateTenantConfig(ctx context.Context, in loupe.JSON) (*store.TenantConfig, error) {
	p, err := adminOnly(ctx, msgConfigAdminOnly)
	if err != nil {
		return nil, err
	}
	return r.Store.UpdateTenantConfig(ctx, p, in)
}

// transcriptionLanguageSettings are the tenant's languages (every user).
func (r *Resolver) transcriptionLanguageSettings(ctx context.Context) (*store.TranscriptionLanguageSettings, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.TranscriptionLanguageSettings(ctx, p.TenantID)
}

// systemTranscriptionLanguageSettings are the system's languages (every user).
func (r *Resolver) systemTranscriptionLanguageSettings(ctx context.Context) (*store.TranscriptionLanguageSettings, error) {
	if _, err := auth.Require(ctx); err != nil {
		return nil, err
	}
	return store.SystemTranscriptionLanguageSettings(), nil
}

// setTranscriptionLanguageSettings replaces the tenant's languages (admins).
func (r *Resolver) setTranscriptionLanguageSettings(ctx context.Context, in []*model.TranscriptionLanguageSettingInput) (*store.TranscriptionLanguageSettings, error) {
	p, err := adminOnly(ctx, msgConfigAdminOnly)
	if err != nil {
		return nil, err
	}
	list := make([]*store.TranscriptionLanguageSetting, len(in))
	for i, e := range in {
		list[i] = &store.TranscriptionLanguageSetting{
			LanguageCode: e.LanguageCode, TranscriptionService: e.TranscriptionService, Label: e.Label,
		}
	}
	return r.Store.SetTranscriptionLanguageSettings(ctx, p, list)
}
