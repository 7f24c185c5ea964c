package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Enqueuer inserts background work (internal/jobs' River client is one).
type Enqueuer interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertManyTx(ctx context.Context, tx *sql.Tx, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
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
