// Package store is Loupe's persistence: domain types and raw SQL over
// sqlx/lib/pq. Every query is scoped by tenant; a row of another tenant is
// indistinguishable from a missing one.
package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/loupe-mam/loupe"
)

// Store reads and writes Loupe's data.
type Store struct {
	db   *sqlx.DB
	prep preparedCache
	// authHooks run after a committed change that can alter what a stored
	// key authenticates (see OnAuthChange).
	authHooks []func(tenantID, userID string)
	// cacheHooks wait for every node's caches after a committed change they
	// depend on (see OnCacheChange).
	cacheHooks []func(ctx context.Context)
	// forms is the node's form cache for creates (CacheForms); nil reads
	// every time.
	forms *formCache
	// usage counts events (tenant_usage_counters.go); nil counts nothing.
	usage UsageRecorder
	// jobs takes background work asked for inside transactions (store_jobs.go).
	jobs Enqueuer
	// searchBound is how many search hits are counted exactly (0: the
	// default; SetSearchExactBound).
	searchBound int
}

// New wraps an open database handle.
func New(db *sqlx.DB) *Store { return &Store{db: db} }

// On is the store over another pool of the same database, with s's job
// queue, usage counters and pooler mode (UnderTransactionPooler): for
// background readers whose statements are not a request's
// (server/events.go). Call it once s is set up.
func (s *Store) On(db *sqlx.DB) *Store {
	return &Store{db: db, usage: s.usage, jobs: s.jobs, prep: preparedCache{unnamed: s.prep.unnamed}, searchBound: s.searchBound}
}

// OnAuthChange registers fn to run after every committed change this store
// makes to a user's keys, the user or their groups (userID "" for a change
// that concerns every user), before the change is answered: the
// authentication cache forgets what it holds of them, so that a key deleted
// through this server fails on the very next request. Register before
// serving.
func (s *Store) OnAuthChange(fn func(tenantID, userID string)) {
	s.authHooks = append(s.authHooks, fn)
}

func (s *Store) authChanged(tenantID, userID string) {
	for _, fn := range s.authHooks {
		fn(tenantID, userID)
	}
}

// DB is the underlying handle, for health checks and tests.
func (s *Store) DB() *sqlx.DB { return s.db }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// inTx runs fn in a transaction, committing when it returns nil. Writes and
// their audit records go through here so that they land together or not at all.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: unable to begin transaction: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit: %w", err)
	}
	return nil
}

// validIDs keeps the ids that can name a row.
func validIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if loupe.ValidID(id) {
			out = append(out, id)
		}
	}
	return out
}

// now is the time writes are stamped with: UTC, at the microsecond
// resolution Postgres keeps, so what a write returns equals what a read gets.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// stringArray passes ids as one text[] parameter (cast to uuid[] in SQL).
func stringArray(ids []string) pq.StringArray { return pq.StringArray(ids) }
