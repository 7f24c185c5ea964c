package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's ingest storage configurations (spec 2.14,
// /ingest/api/v1/ingestStorageConfigs): a bucket and prefix, the credentials
// that reach them (the secret sealed like a storage location's, never
// answered), what an ingest of their objects does, and the state of the
// configuration's scan (docs/ingest.md). Rows of type
// default_upload_location are the tenant's upload locations (2.15). The
// entity and its rules are loupe.IngestStorageConfig.

// decodeIngestSettings fills the settings of configurations read from their
// settings column.
func decodeIngestSettings(cs ...*loupe.IngestStorageConfig) error {
	for _, c := range cs {
		c.IngestSettings = loupe.IngestSettings{}
		if c.SettingsDoc.IsNull() {
			continue
		}
		if err := json.Unmarshal(c.SettingsDoc, &c.IngestSettings); err != nil {
			return fmt.Errorf("store: ingest config %s has unreadable settings: %w", c.ID, err)
		}
	}
	return nil
}

// MaxIngestConfigs bounds a tenant's ingest configurations.
const MaxIngestConfigs = 1000

const ingestConfigColumns = `tenant_id, id, title, ingest_config_type, is_disabled, source_bucket, source_key_prefix,
source_endpoint, access_type, access_key, external_id, secret_sealed, settings, created_by, created_on, modified_on,
scan_state, scan_message, scan_modified_on, scan_after, scan_counts, scan_run`

const (
	ingestConfigsSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs WHERE tenant_id = $1
ORDER BY created_on, id LIMIT $2`

	ingestConfigsOfTypeSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs
WHERE tenant_id = $1 AND ingest_config_type = $2 ORDER BY created_on, id LIMIT $3`

	ingestConfigSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs WHERE tenant_id = $1 AND id = $2`

	countIngestConfigsSQL = `SELECT count(*) FROM ingest_configs WHERE tenant_id = $1`

	lockIngestConfigsSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.ingest_configs:' || $1::text, 0))`

	insertIngestConfigSQL = `INSERT INTO ingest_configs (tenant_id, id, title, ingest_config_type, is_disabled,
source_bucket, source_key_prefix, source_endpoint, access_type, access_key, external_id, secret_sealed, settings, created_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING ` + ingestConfigColumns

	deleteIngestConfigSQL = `DELETE FROM ingest_configs WHERE tenant_id = $1 AND id = $2`

	// setScanStateSQL writes the scan's state; $4 (when not null) the
	// position and $5 the counts.
	setScanStateSQL = `UPDATE ingest_configs SET scan_state = $3, scan_message = $4, scan_modified_on = clock_timestamp(),
scan_after = COALESCE($5, scan_after), scan_counts = COALESCE($6::jsonb, scan_counts)
WHERE tenant_id = $1 AND id = $2`
)

// IngestConfigs returns the tenant's configurations, oldest first (of one
// type when typ is not empty).
func (s *Store) IngestConfigs(ctx context.Context, tenantID, typ string) ([]*loupe.IngestStorageConfig, error) {
	out := []*loupe.IngestStorageConfig{}
	var err error
	if typ == "" {
		err = s.selectPrepared(ctx, &out, ingestConfigsSQL, tenantID, MaxIngestConfigs)
	} else {
		err = s.selectPrepared(ctx, &out, ingestConfigsOfTypeSQL, tenantID, typ, MaxIngestConfigs)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to list ingest configs: %w", err)
	}
	return out, decodeIngestSettings(out...)
}

// IngestConfig returns one configuration. Returns ENOTFOUND when it is
// missing or of another tenant.
func (s *Store) IngestConfig(ctx context.Context, tenantID, id string) (*loupe.IngestStorageConfig, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.IngestStorageConfig
	if err := s.getPrepared(ctx, &out, ingestConfigSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch ingest config: %w")
	}
	return &out, decodeIngestSettings(&out)
}

// CreateIngestConfig adds c (its ID chosen by the caller, who sealed the
// secret for it). Its default metadata is checked against its form.
// Returns EINVALID for a bad configuration, ECONFLICT at MaxIngestConfigs.
func (s *Store) CreateIngestConfig(ctx context.Context, p *loupe.Principal, c *loupe.IngestStorageConfig) (*loupe.IngestStorageConfig, error) {
	if !loupe.ValidID(c.ID) {
		return nil, fmt.Errorf("store: ingest config without an id")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var out loupe.IngestStorageConfig
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockIngestConfigsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to lock ingest configs: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, countIngestConfigsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count ingest configs: %w", err)
		}
		if n >= MaxIngestConfigs {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d ingest configurations, the most it may have", MaxIngestConfigs)
		}
		if !c.DefaultMetadata.IsNull() {
			formID, data, _ := c.DefaultMetadataForm()
			if _, err := newFormData(ctx, tx, p.TenantID, formID, data); err != nil {
				var le *loupe.Error
				if errors.As(err, &le) {
					return loupe.Invalid("defaultMetadata: %s", le.Message)
				}
				return err
			}
		}
		return tx.GetContext(ctx, &out, insertIngestConfigSQL, p.TenantID, c.ID, c.Title, c.IngestConfigType,
			c.IsDisabled, c.SourceBucket, c.SourceKeyPrefix, c.SourceEndpoint, c.AccessType, c.AccessKey,
			c.ExternalID, c.SecretSealed, loupe.JSONOf(c.IngestSettings), p.UserID)
	})
	if err != nil {
		var le *loupe.Error
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, fmt.Errorf("store: unable to create ingest config: %w", err)
	}
	return &out, decodeIngestSettings(&out)
}

// DeleteIngestConfig removes a configuration (what it ingested stays).
// Returns ENOTFOUND for a missing id.
func (s *Store) DeleteIngestConfig(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteIngestConfigSQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete ingest config: %w", err)
	}
	return oneRow(res)
}

// SetScanState records a scan's state and message; after (when not nil)
// moves its position and counts (when not nil) replaces its counts.
func (s *Store) SetScanState(ctx context.Context, tenantID, id, state, message string, after *string, counts *loupe.ScanCounts) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		return setScanState(ctx, tx, tenantID, id, state, message, after, counts)
	})
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func setScanState(ctx context.Context, q execer, tenantID, id, state, message string, after *string, counts *loupe.ScanCounts) error {
	var c any
	if counts != nil {
		c = loupe.JSONOf(counts)
	}
	res, err := q.ExecContext(ctx, setScanStateSQL, tenantID, id, state, message, after, c)
	if err != nil {
		return fmt.Errorf("store: unable to set scan state: %w", err)
	}
	if err := oneRow(res); err != nil {
		return err
	}
	if state != loupe.ScanComplete && state != loupe.ScanFailed {
		return nil
	}
	data := map[string]any{"ingestStorageConfigId": id, "state": state, "message": message}
	if counts != nil {
		data["counts"] = counts
	}
	return emitTx(ctx, q, tenantID, now(), NewEvent{Type: loupe.EventIngestScanCompletion, Data: data})
}
