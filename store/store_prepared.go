package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Hot queries run as prepared statements: Postgres then plans them once per
// connection (and settles on a generic plan) instead of on every request:
// planning a one-row read costs more than executing it. database/sql prepares a statement on each
// connection the first time it runs there.
//
// Behind a pooler in transaction mode (PgBouncer's pool_mode=transaction,
// LOUPE_DATABASE_POOLER=transaction: see UnderTransactionPooler) there are
// none: a statement prepared by name lives on one server connection, and
// the pooler hands the next statement outside a transaction to whichever
// server connection is free, which does not know the name ("prepared
// statement "1" does not exist"). The queries are then sent unnamed, each
// parsed, bound and executed in one round trip (lib/pq with
// binary_parameters=yes, which store.DSN sets), so planned every time.
type preparedCache struct {
	mu    sync.Mutex
	stmts map[string]*sqlx.Stmt
	// unnamed: prepare nothing, send every query as it is (a transaction
	// pooler is between us and the database).
	unnamed bool
}

// UnderTransactionPooler tells the store that its pool reaches Postgres
// through a pooler in transaction mode: from then on it prepares no
// statement by name (see preparedCache). Call it before the store is used;
// stores made from it by On inherit it.
func (s *Store) UnderTransactionPooler() { s.prep.unnamed = true }

// statement is a query prepared on the pool, or, under a transaction
// pooler, the query itself, sent unnamed each time it runs.
type statement struct {
	*sqlx.Stmt // nil: unnamed
	db         *sqlx.DB
	query      string
}

// QueryRowContext runs the statement for one row.
func (st statement) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	if st.Stmt == nil {
		return st.db.QueryRowContext(ctx, st.query, args...)
	}
	return st.Stmt.QueryRowContext(ctx, args...)
}

// QueryContext runs the statement for its rows.
func (st statement) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	if st.Stmt == nil {
		return st.db.QueryContext(ctx, st.query, args...)
	}
	return st.Stmt.QueryContext(ctx, args...)
}

// GetContext scans the statement's one row into dest.
func (st statement) GetContext(ctx context.Context, dest any, args ...any) error {
	if st.Stmt == nil {
		return st.db.GetContext(ctx, dest, st.query, args...)
	}
	return st.Stmt.GetContext(ctx, dest, args...)
}

// SelectContext scans the statement's rows into dest.
func (st statement) SelectContext(ctx context.Context, dest any, args ...any) error {
	if st.Stmt == nil {
		return st.db.SelectContext(ctx, dest, st.query, args...)
	}
	return st.Stmt.SelectContext(ctx, dest, args...)
}

// prepared returns the statement for query, preparing it on first use
// (unless a transaction pooler is between us and the database).
func (s *Store) prepared(ctx context.Context, query string) (statement, error) {
	if s.prep.unnamed {
		return statement{db: s.db, query: query}, nil
	}
	s.prep.mu.Lock()
	defer s.prep.mu.Unlock()
	if st, ok := s.prep.stmts[query]; ok {
		return statement{Stmt: st}, nil
	}
	st, err := s.db.PreparexContext(ctx, query)
	if err != nil {
		return statement{}, fmt.Errorf("store: unable to prepare statement: %w", err)
	}
	if s.prep.stmts == nil {
		s.prep.stmts = map[string]*sqlx.Stmt{}
	}
	s.prep.stmts[query] = st
	return statement{Stmt: st}, nil
}

// getPrepared is GetContext through a prepared statement.
func (s *Store) getPrepared(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, args...)
}

// selectPrepared is SelectContext through a prepared statement.
func (s *Store) selectPrepared(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}
