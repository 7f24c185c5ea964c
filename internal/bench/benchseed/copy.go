package benchseed

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lib/pq"
)

// copyRows streams rows into table with COPY inside tx: one round trip per
// 64 KiB of rows instead of one per row, and row triggers and foreign keys
// still apply. fill calls emit once per row, values in cols' order; jsonb
// values go as strings (a []byte would be sent as bytea).
func copyRows(ctx context.Context, tx *sql.Tx, table string, cols []string, fill func(emit func(...any) error) error) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn(table, cols...))
	if err != nil {
		return fmt.Errorf("benchseed: copy into %s: %w", table, err)
	}
	emit := func(row ...any) error {
		_, err := stmt.ExecContext(ctx, row...)
		return err
	}
	if err := fill(emit); err != nil {
		stmt.Close()
		return fmt.Errorf("benchseed: copy into %s: %w", table, err)
	}
	// The empty Exec ends the COPY; errors of rows already sent surface here.
	if _, err := stmt.ExecContext(ctx); err != nil {
		stmt.Close()
		return fmt.Errorf("benchseed: copy into %s: %w", table, err)
	}
	if err := stmt.Close(); err != nil {
		return fmt.Errorf("benchseed: copy into %s: %w", table, err)
	}
	return nil
}

// inTx runs fn in a transaction. Its commit need not wait for the WAL
// flush: a seed that dies half-way is re-run, never recovered.
func inTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("benchseed: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		return fmt.Errorf("benchseed: %w", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("benchseed: commit: %w", err)
	}
	return nil
}
