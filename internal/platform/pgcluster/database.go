package pgcluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// EnsureDatabase creates database name unless it exists.
func (c *Cluster) EnsureDatabase(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	defer db.Close()
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if exists {
		return nil
	}
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "42P04" { // duplicate_database: somebody raced us
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgcluster: create database %s: %w", name, err)
	}
	return nil
}

// waitReady waits until the server at url accepts a connection, which a
// server still starting up (or recovering) does not.
func waitReady(ctx context.Context, url string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		pingCtx, pingCancel := context.WithTimeout(ctx, 2*time.Second)
		err = db.PingContext(pingCtx)
		pingCancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
