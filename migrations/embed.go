// Package migrations holds the database schema as goose SQL files, embedded in
// the binary, and applies them under a Postgres advisory lock so that several
// instances may start at once.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var FS embed.FS

// lockID is the advisory lock key every Loupe instance takes while migrating.
const lockID = 0x4c6f757065 // "Loupe"

// Up applies every pending migration. Concurrent callers wait on the lock;
// the later ones find nothing to do.
func Up(ctx context.Context, db *sql.DB) error {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	return upRiver(ctx, db)
}
