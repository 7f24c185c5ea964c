package sqlcount

import (
	"context"
	"database/sql/driver"
	"errors"
)

// countingStmt counts each execution of a prepared statement. A COPY
// statement (pq.CopyIn) is "executed" once per row, but rows only feed the
// COPY stream; only the final argument-less Exec that ends it counts.
type countingStmt struct {
	inner   driver.Stmt
	conn    *countingConn
	counter *Counter
	copyIn  bool
}

var (
	_ driver.Stmt              = (*countingStmt)(nil)
	_ driver.StmtExecContext   = (*countingStmt)(nil)
	_ driver.StmtQueryContext  = (*countingStmt)(nil)
	_ driver.NamedValueChecker = (*countingStmt)(nil)
)

func (s *countingStmt) Close() error  { return s.inner.Close() }
func (s *countingStmt) NumInput() int { return s.inner.NumInput() }

func (s *countingStmt) count(args int) {
	if !s.copyIn || args == 0 {
		s.counter.add()
	}
}

func (s *countingStmt) Exec(args []driver.Value) (driver.Result, error) {
	s.count(len(args))
	return s.inner.Exec(args) //nolint:staticcheck // delegating the legacy interface
}

func (s *countingStmt) Query(args []driver.Value) (driver.Rows, error) {
	s.count(len(args))
	return s.inner.Query(args) //nolint:staticcheck // delegating the legacy interface
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := s.inner.(driver.StmtExecContext); ok {
		s.count(len(args))
		return e.ExecContext(ctx, args)
	}
	values, err := namedToValues(ctx, args)
	if err != nil {
		return nil, err
	}
	return s.Exec(values)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if q, ok := s.inner.(driver.StmtQueryContext); ok {
		s.count(len(args))
		return q.QueryContext(ctx, args)
	}
	values, err := namedToValues(ctx, args)
	if err != nil {
		return nil, err
	}
	return s.Query(values)
}

func (s *countingStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.inner.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	// database/sql asks the statement first and would not ask the
	// connection, so do it here.
	return s.conn.CheckNamedValue(nv)
}

// namedToValues is database/sql's fallback for drivers without the context
// interfaces: they cannot take named arguments.
func namedToValues(ctx context.Context, named []driver.NamedValue) ([]driver.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	values := make([]driver.Value, len(named))
	for i, nv := range named {
		if nv.Name != "" {
			return nil, errors.New("sqlcount: driver does not support the use of Named Parameters")
		}
		values[i] = nv.Value
	}
	return values, nil
}
