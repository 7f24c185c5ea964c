package sqlcount

import (
	"context"
	"database/sql/driver"
	"io"
)

// A fake driver with only the mandatory interfaces (fakeConn) or also the
// context query paths (fakeCtxConn), to check the wrapper's fallbacks
// without a server.

type fakeConnector struct{ ctx bool }

func (f fakeConnector) Connect(context.Context) (driver.Conn, error) {
	if f.ctx {
		return &fakeCtxConn{}, nil
	}
	return &fakeConn{}, nil
}
func (f fakeConnector) Driver() driver.Driver { return nil }

type fakeConn struct{}

func (*fakeConn) Prepare(string) (driver.Stmt, error) { return fakeStmt{}, nil }
func (*fakeConn) Close() error                        { return nil }
func (*fakeConn) Begin() (driver.Tx, error)           { return fakeTx{}, nil }

type fakeCtxConn struct{ fakeConn }

func (*fakeCtxConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	return fakeRows{}, nil
}
func (*fakeCtxConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(1), nil
}

type fakeStmt struct{}

func (fakeStmt) Close() error                               { return nil }
func (fakeStmt) NumInput() int                              { return -1 }
func (fakeStmt) Exec([]driver.Value) (driver.Result, error) { return driver.RowsAffected(1), nil }
func (fakeStmt) Query([]driver.Value) (driver.Rows, error)  { return fakeRows{}, nil }

type fakeTx struct{}

func (fakeTx) Commit() error   { return nil }
func (fakeTx) Rollback() error { return nil }

type fakeRows struct{}

func (fakeRows) Columns() []string         { return nil }
func (fakeRows) Close() error              { return nil }
func (fakeRows) Next([]driver.Value) error { return io.EOF }
