package store

import (
	"database/sql"
	"database/sql/driver"
	"net/url"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// DSN adds the connection settings Loupe relies on to a Postgres URL:
// binary_parameters=yes makes lib/pq send a parameterised query in one round
// trip instead of two.
func DSN(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		return dbURL // a key=value DSN: left as the operator wrote it
	}
	q := u.Query()
	if q.Get("binary_parameters") == "" {
		q.Set("binary_parameters", "yes")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens a pool on dbURL. Idle connections are kept up to the pool size:
// database/sql's default of 2 makes a loaded server reconnect constantly.
// Each of wrap, in order, wraps the driver's connector (tracing.SQL: a span
// per statement); without any the pool is lib/pq's own.
func Open(dbURL string, pool int, wrap ...func(driver.Connector) driver.Connector) (*sqlx.DB, error) {
	if len(wrap) == 0 {
		db, err := sql.Open("postgres", DSN(dbURL))
		if err != nil {
			return nil, err
		}
		return NewDB(db, pool), nil
	}
	conn, err := pq.NewConnector(DSN(dbURL))
	if err != nil {
		return nil, err
	}
	var c driver.Connector = conn
	for _, w := range wrap {
		c = w(c)
	}
	return NewDB(sql.OpenDB(c), pool), nil
}

// NewDB wraps an opened pool (tests pass one that counts statements).
func NewDB(db *sql.DB, pool int) *sqlx.DB {
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	return sqlx.NewDb(db, "postgres")
}
