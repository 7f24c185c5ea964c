package store

import (
	"database/sql"
	"net/url"
	"strings"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the driver
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
func Open(dbURL string, pool int) (*sqlx.DB, error) {
	db, err := sql.Open("postgres", DSN(dbURL))
	if err != nil {
		return nil, err
	}
	return NewDB(db, pool), nil
}

// NewDB wraps an opened pool (tests pass one that counts statements).
func NewDB(db *sql.DB, pool int) *sqlx.DB {
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	return sqlx.NewDb(db, "postgres")
}
