package sqlcount

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/lib/pq"
)

// Open returns a pool on dsn (as for lib/pq) whose statements are counted in
// c. Like sql.Open it does not connect; a bad dsn shows up as an error from
// the first use of the pool.
func Open(dsn string, c *Counter) *sql.DB {
	return sql.OpenDB(Connector(dsn, c))
}

// Connector is Open's connector, for a caller that wraps it further
// (loupetest: tracing.SQL).
func Connector(dsn string, c *Counter) driver.Connector {
	inner, err := pq.NewConnector(dsn)
	if err != nil {
		return failingConnector{err}
	}
	return wrap(inner, c)
}

// wrap counts the statements of the connections inner makes.
func wrap(inner driver.Connector, c *Counter) driver.Connector {
	return &connector{inner: inner, counter: c}
}

type connector struct {
	inner   driver.Connector
	counter *Counter
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{inner: conn, counter: c.counter}, nil
}

func (c *connector) Driver() driver.Driver {
	return countingDriver{inner: c.inner.Driver(), counter: c.counter}
}

// countingDriver is what sql.DB.Driver returns; opening a connection through
// it counts as well.
type countingDriver struct {
	inner   driver.Driver
	counter *Counter
}

func (d countingDriver) Open(name string) (driver.Conn, error) {
	conn, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingConn{inner: conn, counter: d.counter}, nil
}

type failingConnector struct{ err error }

func (f failingConnector) Connect(context.Context) (driver.Conn, error) { return nil, f.err }
func (f failingConnector) Driver() driver.Driver                        { return &pq.Driver{} }
