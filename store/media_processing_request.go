package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

const (
	hasOriginalSQL = `
SELECT COALESCE(media ? 'sourceFileLocation', false) AS has,
       COALESCE(media->'progressInfo'->>'runKey', '') AS run_key
FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`

	// queueProcessingSQL marks the item queued (a run in progress keeps
	// its own state until it ends).
	queueProcessingSQL = `
UPDATE items SET transcoding_state = CASE WHEN transcoding_state = 'processing' THEN transcoding_state ELSE 'queued' END
WHERE tenant_id = $1 AND id = $2`
)

// RequestProcessing queues the item's processing (jobs.ProcessArgs) in
// the same transaction as its queued state. One job per item: a request
// while one waits or runs joins it. ENOTFOUND when the item is gone,
// EINVALID when it has no original.
func (s *Store) RequestProcessing(ctx context.Context, args jobs.ProcessArgs, queue string) error {
	if !loupe.ValidID(args.ItemID) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur struct {
			Has    bool   `db:"has"`
			RunKey string `db:"run_key"`
		}
		if err := tx.GetContext(ctx, &cur, hasOriginalSQL, args.TenantID, args.ItemID); err != nil {
			return notFoundOr(err, "store: unable to read item %s: %w", args.ItemID)
		}
		if !cur.Has {
			return loupe.Invalid("the item has no original to process: upload or ingest its media first")
		}
		if _, err := tx.ExecContext(ctx, queueProcessingSQL, args.TenantID, args.ItemID); err != nil {
			return fmt.Errorf("store: unable to queue processing: %w", err)
		}
		args.After = cur.RunKey
		_, err := s.enqueue(ctx, tx, args, ProcessInsertOpts(queue))
		return err
	})
}

// ProcessInsertOpts are the insert options of a processing job (from an
// upload, an ingest or a request): unique per item (the args'
// river:"unique" fields) while it waits or runs, asked for again after.
func ProcessInsertOpts(queue string) *river.InsertOpts { return uniqueWhilePending(queue) }

// uniqueWhilePending are insert options for a job unique by its args'
// river:"unique" fields while one waits or runs, and asked for again after.
// (River requires the running state among unique states.)
func uniqueWhilePending(queue string) *river.InsertOpts {
	return &river.InsertOpts{Queue: queue, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled}}}
}

// ContinueProcessing ends a processing job and inserts the next phase in
// one transaction: complete ends the running job in tx
// (river.JobCompleteTx), so that the next — unique by the same arguments
// — is not taken for it.
func (s *Store) ContinueProcessing(ctx context.Context, complete func(tx *sql.Tx) error, next jobs.ProcessArgs, queue string, priority int) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := complete(tx.Tx); err != nil {
			return err
		}
		opts := ProcessInsertOpts(queue)
		opts.Priority = priority
		_, err := s.enqueue(ctx, tx, next, opts)
		return err
	})
}
