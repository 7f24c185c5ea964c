package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	_ "time/tzdata" // tenantWideTimezone is checked against the IANA database, present or not on the host

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file reads and merges the tenant configuration (spec 2.12); its keys,
// their rules and the defaults are loupe.TenantConfig's.

const (
	// The tenant's name comes along: it is organizationLabel's default.
	tenantConfigSQL = `
SELECT t.name, c.config
FROM tenants t LEFT JOIN tenant_config c ON c.tenant_id = t.id
WHERE t.id = $1`

	// mergeTenantConfigSQL merges $2 into the stored keys under the row's
	// lock, so that concurrent writers of different keys both land.
	mergeTenantConfigSQL = `
WITH m AS (
    INSERT INTO tenant_config AS c (tenant_id, config, modified_by, modified_on)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (tenant_id) DO UPDATE
    SET config = c.config || EXCLUDED.config, modified_by = EXCLUDED.modified_by, modified_on = EXCLUDED.modified_on
    RETURNING tenant_id, config
)
SELECT t.name, m.config FROM m JOIN tenants t ON t.id = m.tenant_id`
)

// tenantConfigRow is what the reads answer.
type tenantConfigRow struct {
	Name   string     `db:"name"`
	Config loupe.JSON `db:"config"`
}

// config lays the stored keys over the defaults.
func (r *tenantConfigRow) config() (*loupe.TenantConfig, error) {
	c := loupe.DefaultTenantConfig()
	c.OrganizationLabel = r.Name
	if !r.Config.IsNull() {
		if err := jsonUnmarshal(r.Config, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// TenantConfig returns the tenant's configuration: every key, defaults for
// those never written. Returns ENOTFOUND for an unknown tenant.
func (s *Store) TenantConfig(ctx context.Context, tenantID string) (*loupe.TenantConfig, error) {
	if !loupe.ValidID(tenantID) {
		return nil, loupe.NotFound()
	}
	var row tenantConfigRow
	if err := s.getPrepared(ctx, &row, tenantConfigSQL, tenantID); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch tenant config: %w")
	}
	return row.config()
}

// ShareLimits is the tenant's shareLimits over their defaults (docs/shares.md).
func (s *Store) ShareLimits(ctx context.Context, tenantID string) (*loupe.ShareLimits, error) {
	c, err := s.TenantConfig(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return loupe.ParseShareLimits(c.ShareLimits)
}

// UpdateTenantConfig merges in (a JSON object of some keys) into the
// principal's tenant configuration and returns all of it. The caller has
// checked that the principal may. Returns EINVALID naming the first unknown
// key or wrong value (keys in name order), or for a document that would grow
// beyond loupe.MaxTenantConfigBytes; nothing is written then.
func (s *Store) UpdateTenantConfig(ctx context.Context, p *loupe.Principal, in loupe.JSON) (*loupe.TenantConfig, error) {
	delta, err := loupe.ValidateTenantConfig(in)
	if err != nil {
		return nil, err
	}
	if len(delta) == 0 {
		return s.TenantConfig(ctx, p.TenantID)
	}
	var c *loupe.TenantConfig
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var row tenantConfigRow
		if err := tx.GetContext(ctx, &row, mergeTenantConfigSQL, p.TenantID, loupe.JSONOf(delta), p.UserID, now()); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.NotFound()
			}
			return fmt.Errorf("store: unable to write tenant config: %w", err)
		}
		if len(row.Config) > loupe.MaxTenantConfigBytes {
			return loupe.Invalid("the tenant configuration would be larger than %d bytes", loupe.MaxTenantConfigBytes)
		}
		var err error
		c, err = row.config()
		return err
	})
	return c, err
}
