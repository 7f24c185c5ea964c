package store

import (
	"context"
	"fmt"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's gateway configs (/config/api/v1/configs/gateway;
// docs/ingest.md): an edge gateway that uploads files into a bucket, with
// the credentials Loupe reads them with (the secret sealed like a storage
// location's, never answered). Each gateway is also an upload location (2.15).
// The entity and its rules are loupe.GatewayConfig.

// MaxGatewayConfigs bounds a tenant's gateways; MaxGatewayPage one page.
const (
	MaxGatewayConfigs = 1000
	MaxGatewayPage    = 1000
)

const gatewayColumns = `tenant_id, id, name, endpoint, bucket_name, path_prefix, access_key, secret_sealed,
delete_enabled, last_obj_server_keys_uploaded_at, created_on, modified_on`

const (
	gatewaysSQL = `SELECT ` + gatewayColumns + ` FROM gateway_configs WHERE tenant_id = $1
ORDER BY created_on, id OFFSET $2 LIMIT $3`
	countGatewaysSQL = `SELECT count(*) FROM gateway_configs WHERE tenant_id = $1`
	gatewaySQL       = `SELECT ` + gatewayColumns + ` FROM gateway_configs WHERE tenant_id = $1 AND id = $2`
	lockGatewaysSQL  = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.gateway_configs:' || $1::text, 0))`
	insertGatewaySQL = `INSERT INTO gateway_configs (tenant_id, id, name, endpoint, bucket_name, path_prefix, access_key,
secret_sealed, delete_enabled) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ` + gatewayColumns
	deleteGatewaySQL = `DELETE FROM gateway_configs WHERE tenant_id = $1 AND id = $2`
	touchGatewaySQL  = `UPDATE gateway_configs SET last_obj_server_keys_uploaded_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2`
)

// GatewayConfigs returns up to size gateways from index (oldest first) and
// how many the tenant has.
func (s *Store) GatewayConfigs(ctx context.Context, tenantID string, index, size int) ([]*loupe.GatewayConfig, int, error) {
	if index < 0 || size < 1 || size > MaxGatewayPage {
		return nil, 0, loupe.Invalid("index must be 0 or more and size 1 to %d", MaxGatewayPage)
	}
	out := []*loupe.GatewayConfig{}
	if err := s.selectPrepared(ctx, &out, gatewaysSQL, tenantID, index, size); err != nil {
		return nil, 0, fmt.Errorf("store: unable to list gateways: %w", err)
	}
	var total int
	if err := s.getPrepared(ctx, &total, countGatewaysSQL, tenantID); err != nil {
		return nil, 0, fmt.Errorf("store: unable to count gateways: %w", err)
	}
	return out, total, nil
}

// loupe.GatewayConfig returns one gateway; ENOTFOUND when missing.
func (s *Store) GatewayConfig(ctx context.Context, tenantID, id string) (*loupe.GatewayConfig, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.GatewayConfig
	if err := s.getPrepared(ctx, &out, gatewaySQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch gateway: %w")
	}
	return &out, nil
}

// CreateGatewayConfig adds g (its id chosen by the caller, who sealed the
// secret for it). Returns EINVALID, or ECONFLICT at MaxGatewayConfigs.
func (s *Store) CreateGatewayConfig(ctx context.Context, tenantID string, g *loupe.GatewayConfig) (*loupe.GatewayConfig, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: unable to begin transaction: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after a commit it does nothing
	if _, err := tx.ExecContext(ctx, lockGatewaysSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to lock gateways: %w", err)
	}
	var n int
	if err := tx.GetContext(ctx, &n, countGatewaysSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to count gateways: %w", err)
	}
	if n >= MaxGatewayConfigs {
		return nil, loupe.Errorf(loupe.ECONFLICT, "the tenant has %d gateways, the most it may have", MaxGatewayConfigs)
	}
	var out loupe.GatewayConfig
	if err := tx.GetContext(ctx, &out, insertGatewaySQL, tenantID, g.ID, g.Name, g.Endpoint, g.BucketName,
		g.PathPrefix, g.AccessKey, g.SecretSealed, g.DeleteEnabled); err != nil {
		return nil, fmt.Errorf("store: unable to create gateway: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: unable to create gateway: %w", err)
	}
	return &out, nil
}

// DeleteGatewayConfig removes a gateway; ENOTFOUND when missing.
func (s *Store) DeleteGatewayConfig(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteGatewaySQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete gateway: %w", err)
	}
	return oneRow(res)
}

// TouchGateway records that the gateway reported a file.
func (s *Store) TouchGateway(ctx context.Context, tenantID, id string) error {
	if _, err := s.db.ExecContext(ctx, touchGatewaySQL, tenantID, id); err != nil {
		return fmt.Errorf("store: unable to touch gateway: %w", err)
	}
	return nil
}
