package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-mam/loupe"
)

// SecuritySettings are a tenant's (spec 2.27).
type SecuritySettings struct {
	JwksURL                         *string `db:"jwks_url"`
	AutoAddUsersToOrganizationGroup bool    `db:"auto_add_users_to_org_group"`
}

// SecurityUpdate changes the keys it sets.
type SecurityUpdate struct {
	// SetJwksURL says whether JwksURL is given (nil then removes it).
	SetJwksURL bool
	JwksURL    *string
	AutoAdd    *bool
}

const (
	securitySQL = `SELECT jwks_url, auto_add_users_to_org_group FROM tenants WHERE id = $1`

	updateSecuritySQL = `
UPDATE tenants SET
    jwks_url = CASE WHEN $2 THEN $3 ELSE jwks_url END,
    auto_add_users_to_org_group = COALESCE($4, auto_add_users_to_org_group),
    security_modified_on = $5
WHERE id = $1
RETURNING jwks_url, auto_add_users_to_org_group`
)

// Security returns the tenant's security settings.
func (s *Store) Security(ctx context.Context, tenantID string) (*SecuritySettings, error) {
	if !loupe.ValidID(tenantID) {
		return nil, loupe.NotFound()
	}
	var out SecuritySettings
	if err := s.getPrepared(ctx, &out, securitySQL, tenantID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.NotFound()
		}
		return nil, fmt.Errorf("store: unable to read security settings: %w", err)
	}
	return &out, nil
}

// UpdateSecurity changes the principal's tenant's security settings. The
// caller has checked that the principal may, and the URL
// (internal/auth/jwtauth).
func (s *Store) UpdateSecurity(ctx context.Context, p *loupe.Principal, u SecurityUpdate) (*SecuritySettings, error) {
	var out SecuritySettings
	if err := s.db.GetContext(ctx, &out, updateSecuritySQL, p.TenantID, u.SetJwksURL, u.JwksURL, u.AutoAdd, time.Now().UTC()); err != nil {
		return nil, fmt.Errorf("store: unable to write security settings: %w", err)
	}
	return &out, nil
}
