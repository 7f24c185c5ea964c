package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe/migrations"
	"github.com/loupe-mam/loupe/store"
)

// A connection pooler in front of the database (docs/scaling.md, "Several
// nodes"). Several nodes on one Postgres each keep their own pools; a
// pooler in transaction mode (PgBouncer's pool_mode=transaction) lets them
// share fewer server connections. There a client's consecutive
// transactions, and its statements outside one, may each run on another
// server connection, so nothing may outlive a transaction:
//
//   - statements prepared by name: the store sends its hot queries unnamed
//     instead (store.UnderTransactionPooler), and lib/pq must send each
//     query with parameters in one round trip (binary_parameters=yes,
//     which store.DSN adds to a URL): in two, its parse and its execution
//     could reach different server connections;
//   - LISTEN (the key cache, the events feed) and the migrations' session
//     advisory locks: these connect to LOUPE_DATABASE_DIRECT_URL, the
//     database itself.
//
// The job queue stays on DATABASE_URL, through the pooler: River over
// database/sql (riverdatabasesql) has no listener, so it polls (no
// LISTEN), and its locks are transaction-scoped (pg_advisory_xact_lock).

// Values of LOUPE_DATABASE_POOLER.
const (
	poolerNone        = "none"
	poolerTransaction = "transaction"
)

// readPooler reads LOUPE_DATABASE_POOLER and LOUPE_DATABASE_DIRECT_URL
// into c, recording what cannot work.
func readPooler(c *config) {
	c.DatabasePooler = env("LOUPE_DATABASE_POOLER", poolerNone)
	c.DatabaseDirectURL = env("LOUPE_DATABASE_DIRECT_URL", "")
	if c.DatabaseDirectURL != "" && c.DatabaseURL == "" {
		settingProblem("LOUPE_DATABASE_DIRECT_URL", "is the direct address of DATABASE_URL's database: set DATABASE_URL too")
	}
	switch c.DatabasePooler {
	case poolerNone:
	case poolerTransaction:
		switch {
		case c.DatabaseURL == "":
			settingProblem("LOUPE_DATABASE_POOLER", "transaction needs DATABASE_URL, the pooler's address (the embedded cluster has no pooler)")
		case c.DatabaseDirectURL == "":
			settingProblem("LOUPE_DATABASE_DIRECT_URL", "must be set with LOUPE_DATABASE_POOLER=transaction: LISTEN and the migrations' locks need a session of their own, which a transaction pooler does not keep")
		case !oneRoundTrip(c.DatabaseURL):
			settingProblem("DATABASE_URL", "needs binary_parameters=yes behind a transaction pooler (added to a postgres:// URL that does not set it): "+
				"without it lib/pq parses and executes a query in two round trips, which the pooler may send to two server connections")
		}
	default:
		badSetting("LOUPE_DATABASE_POOLER", c.DatabasePooler, "none or transaction")
	}
}

// settingProblem records a setting that cannot work as set, saying why.
func settingProblem(name, why string) {
	settingsRead.Lock()
	defer settingsRead.Unlock()
	settingsRead.problems = append(settingsRead.problems, name+": "+why)
}

// oneRoundTrip says whether lib/pq, given dbURL, sends a query with
// parameters in one round trip (binary_parameters=yes, as store.DSN makes
// a URL; a key=value DSN must say so itself).
func oneRoundTrip(dbURL string) bool {
	dsn := store.DSN(dbURL)
	if u, err := url.Parse(dsn); err == nil && strings.HasPrefix(u.Scheme, "postgres") {
		return u.Query().Get("binary_parameters") == "yes"
	}
	return strings.Contains(dsn, "binary_parameters=yes")
}

// directURL is the database itself, for what needs a session of its own:
// LOUPE_DATABASE_DIRECT_URL, else dbURL (no pooler, or one in session
// mode).
func directURL(c config, dbURL string) string {
	if c.DatabaseDirectURL != "" {
		return c.DatabaseDirectURL
	}
	return dbURL
}

// newStore is the store over db, told when a transaction pooler is
// between them.
func newStore(c config, db *sqlx.DB) *store.Store {
	st := store.New(db)
	if c.DatabasePooler == poolerTransaction {
		st.UnderTransactionPooler()
	}
	return st
}

// migrate applies the migrations on db, or, when the database has a
// direct URL, on a connection of its own there: the migrations hold a
// session advisory lock while they run (several nodes starting at once
// migrate one at a time), which a transaction pooler would leave on a
// server connection other clients then get.
func migrate(ctx context.Context, c config, db *sqlx.DB) error {
	if c.DatabaseDirectURL == "" {
		return migrations.Up(ctx, db.DB)
	}
	direct, err := sql.Open("postgres", store.DSN(c.DatabaseDirectURL))
	if err != nil {
		return fmt.Errorf("LOUPE_DATABASE_DIRECT_URL: %w", err)
	}
	defer direct.Close()
	return migrations.Up(ctx, direct)
}
