package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file starts ingest scans (docs/ingest.md): the scan job is inserted
// in the transaction that marks the configuration queued, so that a scan
// asked for is a scan that runs.

const (
	lockIngestConfigSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

	userEmailSQL = `SELECT email FROM users WHERE tenant_id = $1 AND id = $2`
)

// TriggerScan asks for a scan of a configuration and answers it. While a
// scan waits or runs, that scan is the one asked for (nothing changes);
// a scan that was interrupted (state scanning, no job left) resumes from
// its position; otherwise the scan starts from the top of the prefix.
// Returns ENOTFOUND for a missing id, EINVALID for a disabled configuration.
func (s *Store) TriggerScan(ctx context.Context, tenantID, id string) (*loupe.IngestStorageConfig, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.IngestStorageConfig
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &out, lockIngestConfigSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock ingest config: %w")
		}
		if out.IsDisabled {
			return loupe.Invalid("the ingest configuration is disabled: enable it to scan it")
		}
		run := out.ScanRun
		unfinished := out.ScanState != nil && (*out.ScanState == loupe.ScanScanning || *out.ScanState == loupe.ScanQueued)
		if !unfinished {
			run++
		}
		res, err := s.enqueue(ctx, tx, jobs.ScanArgs{TenantID: tenantID, ConfigID: id, Run: run}, nil)
		if err != nil {
			return fmt.Errorf("store: unable to ask for a scan: %w", err)
		}
		if res.UniqueSkippedAsDuplicate || unfinished {
			return nil // the scan waiting or running, or one interrupted that resumes
		}
		if _, err := tx.ExecContext(ctx, `UPDATE ingest_configs SET scan_run = $3 WHERE tenant_id = $1 AND id = $2`, tenantID, id, run); err != nil {
			return fmt.Errorf("store: unable to number the scan: %w", err)
		}
		empty := ""
		return setScanState(ctx, tx, tenantID, id, loupe.ScanQueued, "waiting for a worker", &empty, &loupe.ScanCounts{})
	})
	if err != nil {
		var le *loupe.Error
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, err
	}
	return s.IngestConfig(ctx, tenantID, id)
}

// ScanPrincipal is who a configuration's ingest acts as: its creator, with
// an admin's rights (only admins write configurations).
func (s *Store) ScanPrincipal(ctx context.Context, c *loupe.IngestStorageConfig) (*loupe.Principal, error) {
	p := &loupe.Principal{TenantID: c.TenantID, UserID: c.CreatedBy, IsAdmin: true}
	if err := s.db.GetContext(ctx, &p.Email, userEmailSQL, c.TenantID, c.CreatedBy); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to read user: %w", err)
	}
	return p, nil
}
