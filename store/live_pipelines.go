package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's live pipelines (spec 2.21, 4.6;
// docs/live.md): their list, their writes, the measurements of their
// sources, and the due measurements the scheduler takes across tenants.
// The entity and its rules are loupe.LivePipeline.

const livePipelineColumns = `tenant_id, id, name, sources, current, list_key, cidr, location_id, object_output,
audio_only, mxf_with_ts_proxy, status, reason, error_message, measured_key, measured, checked_on, stale_after,
created_by, created_on, modified_on`

const (
	livePipelinesSQL = `SELECT ` + livePipelineColumns + ` FROM live_pipelines WHERE tenant_id = $1
ORDER BY created_on, id LIMIT $2`
	livePipelineSQL       = `SELECT ` + livePipelineColumns + ` FROM live_pipelines WHERE tenant_id = $1 AND id = $2`
	countLivePipelineSQL  = `SELECT count(*) FROM live_pipelines WHERE tenant_id = $1`
	lockLivePipelinesSQL  = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.live_pipelines:' || $1::text, 0))`
	insertLivePipelineSQL = `INSERT INTO live_pipelines (tenant_id, id, name, sources, current, list_key, cidr, location_id,
object_output, audio_only, mxf_with_ts_proxy, next_probe_on, created_by, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $12, $12) RETURNING ` + livePipelineColumns
	// updateLivePipelineSQL writes a change of the pipeline as read at $3;
	// $13 true forgets the measurement (what it measured changed) and
	// makes the next one due now. A measurement running meanwhile is
	// dropped (liveProbedSQL), so its lease is let go.
	updateLivePipelineSQL = `UPDATE live_pipelines SET name = $4, sources = $5, current = $6, list_key = $7, cidr = $8,
location_id = $9, object_output = $10, audio_only = $11, mxf_with_ts_proxy = $12,
status = CASE WHEN $13 THEN 'unknown' ELSE status END,
reason = CASE WHEN $13 THEN '' ELSE reason END,
error_message = CASE WHEN $13 THEN '' ELSE error_message END,
measured_key = CASE WHEN $13 THEN '' ELSE measured_key END,
measured = CASE WHEN $13 THEN NULL ELSE measured END,
checked_on = CASE WHEN $13 THEN NULL ELSE checked_on END,
stale_after = CASE WHEN $13 THEN NULL ELSE stale_after END,
next_probe_on = CASE WHEN $13 THEN $14 ELSE next_probe_on END,
probe_lease = NULL, modified_on = $14
WHERE tenant_id = $1 AND id = $2 AND modified_on = $3 RETURNING ` + livePipelineColumns
	// deleteLivePipelineSQL removes a pipeline nothing is to record from.
	deleteLivePipelineSQL = `DELETE FROM live_pipelines WHERE tenant_id = $1 AND id = $2
AND NOT EXISTS (SELECT 1 FROM live_recordings r WHERE r.tenant_id = $1 AND r.pipeline_id = $2
                  AND r.state IN ('scheduled', 'recording', 'finishing'))
AND NOT EXISTS (SELECT 1 FROM live_series s WHERE s.tenant_id = $1 AND s.pipeline_id = $2)`
	livePipelineExistsSQL = `SELECT EXISTS (SELECT 1 FROM live_pipelines WHERE tenant_id = $1 AND id = $2)`
	// liveProbedSQL records a measurement of the pipeline as it was at $3
	// (a pipeline changed since is left alone) and when the next is due.
	liveProbedSQL = `UPDATE live_pipelines SET status = $4, reason = $5, error_message = $6, measured_key = $7,
measured = $8, checked_on = $9, stale_after = $10, next_probe_on = $11, probe_lease = NULL
WHERE tenant_id = $1 AND id = $2 AND modified_on = $3`
	// claimDueLiveSQL takes up to $1 due measurements across tenants for
	// $2 (a lease; a node that dies lets it lapse), SKIP LOCKED so that
	// nodes ticking at once share them — not of a pipeline that records:
	// the recording reads the source (a source may take one reader, like
	// an SRT listener), and its segments say more than a probe.
	claimDueLiveSQL = `UPDATE live_pipelines p SET probe_lease = $2
FROM (SELECT tenant_id, id FROM live_pipelines l WHERE next_probe_on <= $3 AND (probe_lease IS NULL OR probe_lease < $3)
        AND NOT EXISTS (SELECT 1 FROM live_recordings r WHERE r.tenant_id = l.tenant_id AND r.pipeline_id = l.id
                          AND r.state = 'recording')
      ORDER BY next_probe_on LIMIT $1 FOR UPDATE OF l SKIP LOCKED) due
WHERE p.tenant_id = due.tenant_id AND p.id = due.id RETURNING ` + "p.tenant_id, p.id, p.name, p.sources, p.current, p.list_key, p.cidr, p.location_id, p.object_output, p.audio_only, p.mxf_with_ts_proxy, p.status, p.reason, p.error_message, p.measured_key, p.measured, p.checked_on, p.stale_after, p.created_by, p.created_on, p.modified_on"
)

// decodedLive fills a pipeline's sources from their column.
func decodedLive(p *loupe.LivePipeline) *loupe.LivePipeline {
	p.Sources = []loupe.LiveSource{}
	_ = json.Unmarshal(p.SourcesJSON, &p.Sources)
	return p
}

// LivePipelines returns the tenant's pipelines, oldest first.
func (s *Store) LivePipelines(ctx context.Context, tenantID string) ([]*loupe.LivePipeline, error) {
	out := []*loupe.LivePipeline{}
	if err := s.selectPrepared(ctx, &out, livePipelinesSQL, tenantID, loupe.MaxLivePipelines); err != nil {
		return nil, fmt.Errorf("store: unable to list live pipelines: %w", err)
	}
	for _, p := range out {
		decodedLive(p)
	}
	return out, nil
}

// LivePipeline returns one pipeline; ENOTFOUND when missing or another
// tenant's.
func (s *Store) LivePipeline(ctx context.Context, tenantID, id string) (*loupe.LivePipeline, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.LivePipeline
	if err := s.getPrepared(ctx, &out, livePipelineSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch live pipeline: %w")
	}
	return decodedLive(&out), nil
}

// CreateLivePipeline adds a checked pipeline, its first measurement due
// now. ECONFLICT at MaxLivePipelines.
func (s *Store) CreateLivePipeline(ctx context.Context, p *loupe.Principal, in loupe.LiveSettings) (*loupe.LivePipeline, error) {
	var out loupe.LivePipeline
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockLivePipelinesSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to lock live pipelines: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, countLivePipelineSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count live pipelines: %w", err)
		}
		if n >= loupe.MaxLivePipelines {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d live pipelines, the most it may have", loupe.MaxLivePipelines)
		}
		if err := tx.GetContext(ctx, &out, insertLivePipelineSQL, p.TenantID, loupe.NewID(), in.Name,
			loupe.JSONOf(in.Sources), in.Current, in.ListKey, in.CIDR, in.LocationID, in.ObjectOutput, in.AudioOnly,
			in.MxfWithTsProxy, now(), p.UserID); err != nil {
			return fmt.Errorf("store: unable to create live pipeline: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return decodedLive(&out), nil
}

// UpdateLivePipeline writes the settings of the pipeline as read at
// modifiedOn; remeasure forgets its measurement and makes the next due
// now. ECONFLICT when it changed meanwhile, ENOTFOUND when it is gone.
func (s *Store) UpdateLivePipeline(ctx context.Context, tenantID, id string, modifiedOn time.Time, in loupe.LiveSettings,
	remeasure bool) (*loupe.LivePipeline, error) {
	var out loupe.LivePipeline
	err := s.db.GetContext(ctx, &out, updateLivePipelineSQL, tenantID, id, modifiedOn, in.Name, loupe.JSONOf(in.Sources),
		in.Current, in.ListKey, in.CIDR, in.LocationID, in.ObjectOutput, in.AudioOnly, in.MxfWithTsProxy, remeasure, now())
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			if _, gone := s.LivePipeline(ctx, tenantID, id); gone != nil {
				return nil, gone
			}
			return nil, loupe.Errorf(loupe.ECONFLICT, "the live pipeline changed meanwhile; send the change again")
		}
		return nil, fmt.Errorf("store: unable to update live pipeline: %w", err)
	}
	return decodedLive(&out), nil
}

// DeleteLivePipeline removes a pipeline; ENOTFOUND when missing, EINVALID
// while a recording or a series is to record from it.
func (s *Store) DeleteLivePipeline(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteLivePipelineSQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete live pipeline: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var exists bool
	if err := s.db.GetContext(ctx, &exists, livePipelineExistsSQL, tenantID, id); err != nil {
		return fmt.Errorf("store: unable to delete live pipeline: %w", err)
	}
	if !exists {
		return loupe.NotFound()
	}
	return loupe.Invalid("the pipeline has recordings to make or a series: cancel them (and delete the series) first")
}

// LiveProbed records a measurement of the pipeline as it was at
// modifiedOn, and when the next one is due. It answers false when the
// pipeline changed or went meanwhile (the measurement is of something
// else and is dropped).
func (s *Store) LiveProbed(ctx context.Context, tenantID, id string, modifiedOn time.Time, r loupe.LiveProbeResult,
	next time.Time) (bool, error) {
	var measured any
	if r.Measured != nil {
		measured = loupe.JSONOf(r.Measured)
	}
	res, err := s.db.ExecContext(ctx, liveProbedSQL, tenantID, id, modifiedOn, r.Status, r.Reason, r.Message, r.SourceKey,
		measured, r.CheckedOn, r.StaleAfter, next)
	if err != nil {
		return false, fmt.Errorf("store: unable to record the live pipeline's measurement: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ClaimDueLivePipelines takes up to n pipelines whose measurement is due,
// across tenants, leased until lease (the scheduler's; internal/live).
func (s *Store) ClaimDueLivePipelines(ctx context.Context, n int, lease time.Time) ([]*loupe.LivePipeline, error) {
	var out []*loupe.LivePipeline
	if err := s.db.SelectContext(ctx, &out, claimDueLiveSQL, n, lease, now()); err != nil {
		return nil, fmt.Errorf("store: unable to take due live measurements: %w", err)
	}
	for _, p := range out {
		decodedLive(p)
	}
	return out, nil
}
