package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Hot queries run as prepared statements: Postgres then plans them once per
// connection (and settles on a generic plan) instead of on every request:
// planning a one-row read costs more than executing it. database/sql prepares a statement on each
// connection the first time it runs there.
type preparedCache struct {
	mu    sync.Mutex
	stmts map[string]*sqlx.Stmt
}

// prepared returns the statement for query, preparing it on first use.
func (s *Store) prepared(ctx context.Context, query string) (*sqlx.Stmt, error) {
	s.prep.mu.Lock()
	defer s.prep.mu.Unlock()
	if st, ok := s.prep.stmts[query]; ok {
		return st, nil
	}
	st, err := s.db.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("store: unable to prepare statement: %w", err)
	}
	if s.prep.stmts == nil {
		s.prep.stmts = map[string]*sqlx.Stmt{}
	}
	s.prep.stmts[query] = st
	return st, nil
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
