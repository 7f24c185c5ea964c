package sqlcount

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
)

// countingConn counts statements run directly on the connection (QueryContext,
// ExecContext) and hands out counting prepared statements. Everything else is
// delegated; where the inner connection lacks an optional interface the
// wrapper answers as database/sql would have without it (driver.ErrSkip for
// the query paths, so database/sql falls back to Prepare, which is counted
// per execution). Transaction control (BEGIN/COMMIT/ROLLBACK) is not counted.
type countingConn struct {
	inner   driver.Conn
	counter *Counter
}

var (
	_ driver.Conn               = (*countingConn)(nil)
	_ driver.ConnBeginTx        = (*countingConn)(nil)
	_ driver.QueryerContext     = (*countingConn)(nil)
	_ driver.ExecerContext      = (*countingConn)(nil)
	_ driver.ConnPrepareContext = (*countingConn)(nil)
	_ driver.Pinger             = (*countingConn)(nil)
	_ driver.SessionResetter    = (*countingConn)(nil)
	_ driver.Validator          = (*countingConn)(nil)
	_ driver.NamedValueChecker  = (*countingConn)(nil)
)

func (c *countingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var (
		st  driver.Stmt
		err error
	)
	if p, ok := c.inner.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err = c.inner.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &countingStmt{inner: st, conn: c, counter: c.counter, copyIn: isCopy(query)}, nil
}

func (c *countingConn) Close() error { return c.inner.Close() }

func (c *countingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		return nil, errors.New("sqlcount: driver does not support non-default transaction options")
	}
	return c.inner.Begin() //nolint:staticcheck // fallback for drivers without BeginTx
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.inner.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	rows, err := q.QueryContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		c.counter.add() // sent, whether or not Postgres liked it
	}
	return rows, err
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	res, err := e.ExecContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		c.counter.add()
	}
	return res, err
}

func (c *countingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *countingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.inner.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// isCopy reports whether query is a COPY, as prepared by pq.CopyIn.
func isCopy(query string) bool {
	q := strings.TrimSpace(query)
	return len(q) >= 4 && strings.EqualFold(q[:4], "COPY")
}
