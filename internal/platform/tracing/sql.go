package tracing

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// MaxStatement bounds the statement text a span carries.
const MaxStatement = 2048

// SQL wraps a database/sql connector (store.Open's) so that each
// statement run inside a traced context is a client span, a child of
// the context's span, made by that span's own provider: a statement
// outside any trace (the key cache's listener, a background reader's
// poll) makes none. The span is named by the statement's first keyword
// (SELECT, INSERT, …) and carries the statement text as db.statement —
// Loupe's statements are constants with $n placeholders, and the bound
// values are never recorded. A query's span ends when its rows are
// closed. Transaction control (BEGIN, COMMIT) is not spanned.
//
// Install it only when tracing is on: off, nothing is wrapped.
func SQL(inner driver.Connector) driver.Connector { return &sqlConnector{inner: inner} }

type sqlConnector struct{ inner driver.Connector }

func (c *sqlConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sqlConn{inner: conn}, nil
}

func (c *sqlConnector) Driver() driver.Driver { return sqlDriver{c.inner.Driver()} }

// sqlDriver is what sql.DB.Driver answers; its connections are traced too.
type sqlDriver struct{ inner driver.Driver }

func (d sqlDriver) Open(name string) (driver.Conn, error) {
	conn, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &sqlConn{inner: conn}, nil
}

// startStatement starts query's span when ctx is traced (nil otherwise).
func startStatement(ctx context.Context, query string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	text := query
	if len(text) > MaxStatement {
		text = text[:MaxStatement]
	}
	return parent.TracerProvider().Tracer(ScopeName).Start(ctx, operation(query),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.String("db.statement", text)))
}

// endStatement ends span (if any) with err.
func endStatement(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil && !errors.Is(err, driver.ErrSkip) {
		span.RecordError(err)
		span.SetStatus(codes.Error, "statement failed")
	}
	span.End()
}

// keywords are the statements' first words that name spans; any other
// statement is "SQL".
var keywords = map[string]string{}

func init() {
	for _, k := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "MERGE", "COPY", "CREATE", "ALTER",
		"DROP", "TRUNCATE", "LOCK", "LISTEN", "NOTIFY", "UNLISTEN", "SET", "SHOW", "VALUES", "CALL", "DO", "ANALYZE"} {
		keywords[k] = k
	}
}

// operation is query's first keyword (upper case) when it is one of
// keywords.
func operation(query string) string {
	q := strings.TrimLeft(query, " \t\r\n(")
	end := strings.IndexFunc(q, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(q)
	}
	if k, ok := keywords[strings.ToUpper(q[:end])]; ok {
		return k
	}
	return "SQL"
}

// sqlConn traces statements run on the connection and hands out traced
// prepared statements. Everything else is delegated; where the inner
// connection lacks an optional interface the wrapper answers as
// database/sql would have without it (driver.ErrSkip for the query paths,
// so that database/sql falls back to Prepare).
type sqlConn struct{ inner driver.Conn }

var (
	_ driver.Conn               = (*sqlConn)(nil)
	_ driver.ConnBeginTx        = (*sqlConn)(nil)
	_ driver.QueryerContext     = (*sqlConn)(nil)
	_ driver.ExecerContext      = (*sqlConn)(nil)
	_ driver.ConnPrepareContext = (*sqlConn)(nil)
	_ driver.Pinger             = (*sqlConn)(nil)
	_ driver.SessionResetter    = (*sqlConn)(nil)
	_ driver.Validator          = (*sqlConn)(nil)
	_ driver.NamedValueChecker  = (*sqlConn)(nil)
)

func (c *sqlConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *sqlConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
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
	if operation(query) == "COPY" {
		return st, nil // pq.CopyIn "executes" once per row: not spanned
	}
	return &sqlStmt{inner: st, conn: c, query: query}, nil
}

func (c *sqlConn) Close() error { return c.inner.Close() }

func (c *sqlConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *sqlConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		return nil, errors.New("tracing: driver does not support non-default transaction options")
	}
	return c.inner.Begin() //nolint:staticcheck // fallback for drivers without BeginTx
}

func (c *sqlConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.inner.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span := startStatement(ctx, query)
	rows, err := q.QueryContext(ctx, query, args)
	if err != nil || span == nil {
		endStatement(span, err)
		return rows, err
	}
	return &sqlRows{inner: rows, span: span}, nil
}

func (c *sqlConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span := startStatement(ctx, query)
	res, err := e.ExecContext(ctx, query, args)
	endStatement(span, err)
	return res, err
}

func (c *sqlConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *sqlConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *sqlConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *sqlConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.inner.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// sqlStmt traces each execution of a prepared statement.
type sqlStmt struct {
	inner driver.Stmt
	conn  *sqlConn
	query string
}

var (
	_ driver.Stmt              = (*sqlStmt)(nil)
	_ driver.StmtExecContext   = (*sqlStmt)(nil)
	_ driver.StmtQueryContext  = (*sqlStmt)(nil)
	_ driver.NamedValueChecker = (*sqlStmt)(nil)
)

func (s *sqlStmt) Close() error  { return s.inner.Close() }
func (s *sqlStmt) NumInput() int { return s.inner.NumInput() }

func (s *sqlStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.inner.Exec(args) //nolint:staticcheck // delegating the legacy interface
}

func (s *sqlStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.inner.Query(args) //nolint:staticcheck // delegating the legacy interface
}

func (s *sqlStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ctx, span := startStatement(ctx, s.query)
	var (
		res driver.Result
		err error
	)
	if e, ok := s.inner.(driver.StmtExecContext); ok {
		res, err = e.ExecContext(ctx, args)
	} else {
		var values []driver.Value
		if values, err = namedToValues(ctx, args); err == nil {
			res, err = s.inner.Exec(values) //nolint:staticcheck // the fallback database/sql would take
		}
	}
	endStatement(span, err)
	return res, err
}

func (s *sqlStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	ctx, span := startStatement(ctx, s.query)
	var (
		rows driver.Rows
		err  error
	)
	if q, ok := s.inner.(driver.StmtQueryContext); ok {
		rows, err = q.QueryContext(ctx, args)
	} else {
		var values []driver.Value
		if values, err = namedToValues(ctx, args); err == nil {
			rows, err = s.inner.Query(values) //nolint:staticcheck // the fallback database/sql would take
		}
	}
	if err != nil || span == nil {
		endStatement(span, err)
		return rows, err
	}
	return &sqlRows{inner: rows, span: span}, nil
}

func (s *sqlStmt) CheckNamedValue(nv *driver.NamedValue) error {
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
			return nil, errors.New("tracing: driver does not support the use of Named Parameters")
		}
		values[i] = nv.Value
	}
	return values, nil
}

// sqlRows ends a query's span when its rows are closed (read or not).
// The column type interfaces answer, where the inner rows lack one, what
// database/sql would have without it.
type sqlRows struct {
	inner driver.Rows
	span  trace.Span
	err   error
}

var (
	_ driver.Rows                           = (*sqlRows)(nil)
	_ driver.RowsNextResultSet              = (*sqlRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*sqlRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*sqlRows)(nil)
	_ driver.RowsColumnTypeLength           = (*sqlRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*sqlRows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*sqlRows)(nil)
)

func (r *sqlRows) Columns() []string { return r.inner.Columns() }

func (r *sqlRows) Close() error {
	err := r.inner.Close()
	if r.span != nil {
		if r.err != nil {
			endStatement(r.span, r.err)
		} else {
			endStatement(r.span, err)
		}
		r.span = nil
	}
	return err
}

func (r *sqlRows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return err
}

func (r *sqlRows) HasNextResultSet() bool {
	n, ok := r.inner.(driver.RowsNextResultSet)
	return ok && n.HasNextResultSet()
}

func (r *sqlRows) NextResultSet() error {
	if n, ok := r.inner.(driver.RowsNextResultSet); ok {
		return n.NextResultSet()
	}
	return io.EOF
}

func (r *sqlRows) ColumnTypeScanType(i int) reflect.Type {
	if c, ok := r.inner.(driver.RowsColumnTypeScanType); ok {
		return c.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *sqlRows) ColumnTypeDatabaseTypeName(i int) string {
	if c, ok := r.inner.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return c.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *sqlRows) ColumnTypeLength(i int) (int64, bool) {
	if c, ok := r.inner.(driver.RowsColumnTypeLength); ok {
		return c.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *sqlRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if c, ok := r.inner.(driver.RowsColumnTypeNullable); ok {
		return c.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *sqlRows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if c, ok := r.inner.(driver.RowsColumnTypePrecisionScale); ok {
		return c.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}
