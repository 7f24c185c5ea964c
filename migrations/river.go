package migrations

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
)

// riverLockID serialises River's own migrations between instances starting
// at once: rivermigrate takes no lock of its own.
const riverLockID = lockID + 1

// upRiver brings the job queue's tables (River's, see internal/jobs) to the
// version of the River module this binary is built with. River keeps its
// schema in its own migration line, so it is applied by its own migrator
// rather than copied into goose files that would drift from the module.
func upRiver(ctx context.Context, db *sql.DB) error {
	m, err := rivermigrate.New(riverdatabasesql.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	// River's migrations each run in their own transaction (an enum value
	// added in one is used in the next), so the lock is a session's, held
	// on a connection of its own while they run on others.
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(riverLockID)); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(riverLockID)) //nolint:errcheck // closing the session releases it too
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}
