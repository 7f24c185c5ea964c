package main

import (
	"context"
	"errors"
	"log/slog"
)

// cmdWorker runs a node that only works background jobs — processing,
// ingest scans, moves of originals — and serves no API: for a machine that
// only transcodes beside the serving nodes (docs/processing.md). It joins
// an existing database (DATABASE_URL) and the same file store (LOUPE_S3_*)
// and credentials key (LOUPE_CREDENTIALS_KEY) as the other nodes.
func cmdWorker(ctx context.Context, c config) error {
	if err := checkSettings(c); err != nil {
		return err
	}
	if c.DatabaseURL == "" {
		return errors.New("worker joins the database of serving nodes: set DATABASE_URL")
	}
	if c.App.Jobs.Workers < 0 {
		return errors.New("worker needs workers: LOUPE_WORKERS must not be negative")
	}
	// A worker's metrics (its jobs, processing throughput, pools) and
	// traces too.
	stopObservability, err := startObservability(&c)
	if err != nil {
		return err
	}
	defer stopObservability()
	db, dbURL, closeDB, err := openDatabase(ctx, c)
	if err != nil {
		return err
	}
	defer closeDB()
	if c.App.Files, err = openFiles(ctx, c); err != nil {
		return err
	}
	if c.App.Credentials, err = credentialsBox(c); err != nil {
		return err
	}
	stop, err := startJobs(&c, newStore(c, db), dbURL)
	if err != nil {
		return err
	}
	slog.Info("loupe worker is working jobs", "node", c.App.InstanceID)
	<-ctx.Done()
	slog.Info("shutting down: finishing running jobs", "grace", shutdownGrace)
	stop()
	return nil
}
