package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe/internal/pgcluster"
	"github.com/loupe-mam/loupe/migrations"
	"github.com/loupe-mam/loupe/store"
)

// openDatabase connects to DATABASE_URL, or, when it is unset, to the
// embedded cluster under LOUPE_DATA_DIR/pg (created on first use, reused
// after). It migrates before it returns. closeDB also stops the embedded
// cluster.
// openDatabase opens (and migrates) the configured database, or the embedded
// cluster's; dbURL is the one it connected to.
func openDatabase(ctx context.Context, c config) (db *sqlx.DB, dbURL string, closeDB func(), err error) {
	dbURL = c.DatabaseURL
	stop := func() {}
	if dbURL == "" {
		if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
			return nil, "", nil, err
		}
		slog.Info("no DATABASE_URL: starting the embedded Postgres cluster", "dir", c.pgDir(), "port", c.PGPort)
		cl, err := pgcluster.Start(ctx, pgcluster.Options{Dir: c.pgDir(), Port: c.PGPort, Log: os.Stderr})
		if err != nil {
			return nil, "", nil, err
		}
		stop = func() {
			if err := cl.Stop(); err != nil {
				slog.Error("stopping the embedded Postgres cluster", "err", err)
			}
		}
		if err := cl.EnsureDatabase(ctx, "loupe"); err != nil {
			stop()
			return nil, "", nil, err
		}
		dbURL = cl.URL("loupe")
	}
	db, err = store.Open(dbURL, c.DBPool)
	if err != nil {
		stop()
		return nil, "", nil, fmt.Errorf("opening database: %w", err)
	}
	if err := migrations.Up(ctx, db.DB); err != nil {
		db.Close()
		stop()
		return nil, "", nil, err
	}
	return db, dbURL, func() { db.Close(); stop() }, nil
}

func cmdMigrate(ctx context.Context, c config) error {
	_, _, closeDB, err := openDatabase(ctx, c)
	if err != nil {
		return err
	}
	closeDB()
	fmt.Println("migrations applied")
	return nil
}
