package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loupe-mam/loupe/internal/jobs"
)

// Enqueuer inserts background work (internal/jobs' River client is one).
type Enqueuer interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertManyTx(ctx context.Context, tx *sql.Tx, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobCancelTx(ctx context.Context, tx *sql.Tx, jobID int64) (*rivertype.JobRow, error)
}

// errNoJobs is returned by a change that asks for background work on a
// store that has no queue (a tool that opened the store without one).
var errNoJobs = errors.New("store: no job queue to ask for background work")

// SetJobs gives the store the queue its changes insert jobs into, inside
// their own transactions: the work is asked for exactly when the change
// commits.
func (s *Store) SetJobs(j Enqueuer) { s.jobs = j }

// enqueue inserts one job in tx.
func (s *Store) enqueue(ctx context.Context, tx *sqlx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	if s.jobs == nil {
		return nil, errNoJobs
	}
	return s.jobs.InsertTx(ctx, tx.Tx, args, opts)
}

const (
	// itemJobsSQL finds the unfinished jobs of kinds $3 of items $2 (River
	// indexes args with GIN, which @> uses).
	itemJobsSQL = `
SELECT j.id FROM unnest($2::text[]) AS x(item_id)
JOIN river_job j ON j.args @> jsonb_build_object('tenantId', $1::text, 'itemId', x.item_id)
WHERE j.kind = ANY($3::text[]) AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`

	// requeueRestoredSQL marks queued again the restored items whose
	// processing a deletion cancelled, answering their last run keys.
	requeueRestoredSQL = `
UPDATE items SET transcoding_state = 'queued'
WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND transcoding_state IN ('queued', 'processing')
RETURNING id::text, COALESCE(media->'progressInfo'->>'runKey', '') AS run_key`
)

// cancelProcessingTx cancels in tx the processing of items being deleted:
// waiting jobs never run; a running one stops at its next progress write
// (the item is gone to it) and leaves its outputs unswitched.
func (s *Store) cancelProcessingTx(ctx context.Context, tx *sqlx.Tx, tenantID string, itemIDs []string) error {
	if s.jobs == nil || len(itemIDs) == 0 {
		return nil
	}
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, itemJobsSQL, tenantID, pq.Array(itemIDs), pq.Array([]string{jobs.ProcessArgs{}.Kind()})); err != nil {
		return fmt.Errorf("store: unable to find the jobs of deleted items: %w", err)
	}
	for _, id := range ids {
		if _, err := s.jobs.JobCancelTx(ctx, tx.Tx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
			return fmt.Errorf("store: unable to cancel job %d: %w", id, err)
		}
	}
	return nil
}

// requeueRestoredTx asks again in tx for the processing of restored items
// that a deletion stopped.
func (s *Store) requeueRestoredTx(ctx context.Context, tx *sqlx.Tx, tenantID string, itemIDs []string) error {
	if s.jobs == nil || len(itemIDs) == 0 {
		return nil
	}
	var rows []struct {
		ID     string `db:"id"`
		RunKey string `db:"run_key"`
	}
	if err := tx.SelectContext(ctx, &rows, requeueRestoredSQL, tenantID, pq.Array(itemIDs)); err != nil {
		return fmt.Errorf("store: unable to queue restored items: %w", err)
	}
	for _, r := range rows {
		args := jobs.ProcessArgs{TenantID: tenantID, ItemID: r.ID, Reason: "restore", After: r.RunKey}
		if _, err := s.enqueue(ctx, tx, args, ProcessInsertOpts(jobs.QueueInteractive)); err != nil {
			return err
		}
	}
	return nil
}
