package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/store"
)

// openDatabase connects to DATABASE_URL, or, when it is unset, to the
// embedded cluster (created on first use, reused after), and migrates
// before it returns; dbURL is the one it connected to. closeDB also stops
// the embedded cluster.
func openDatabase(ctx context.Context, c config) (db *sqlx.DB, dbURL string, closeDB func(), err error) {
	dbURL = c.DatabaseURL
	stop := func() {}
	if dbURL == "" {
		cl, toolLog, err := startEmbedded(ctx, c)
		if err != nil {
			return nil, "", nil, err
		}
		stop = func() {
			if err := cl.Stop(); err != nil {
				slog.Error("stopping the embedded Postgres cluster", "err", err)
			} else if cl.Owned() {
				slog.Info("embedded Postgres stopped", "dir", cl.Dir())
			}
			toolLog.Close()
		}
		if err := cl.EnsureDatabase(ctx, "loupe"); err != nil {
			stop()
			return nil, "", nil, err
		}
		dbURL = cl.URL("loupe")
	}
	db, err = store.Open(dbURL, c.DBPool, sqlTracing(c)...)
	if err != nil {
		stop()
		return nil, "", nil, fmt.Errorf("opening database: %w", err)
	}
	if err := migrate(ctx, c, db); err != nil {
		db.Close()
		stop()
		return nil, "", nil, err
	}
	return db, dbURL, func() { db.Close(); stop() }, nil
}

// startEmbedded starts (first making) the embedded cluster. What initdb and
// pg_ctl print goes to a log file beside the data directory, kept open
// until the cluster is stopped (pg_ctl stop writes to it too: closed, its
// writes would end in SIGPIPE); the console gets one line saying where the
// data lives.
func startEmbedded(ctx context.Context, c config) (*pgcluster.Cluster, *os.File, error) {
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil { // blob.key, blobs
		return nil, nil, err
	}
	dir, err := embeddedPGDir(c)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, nil, err
	}
	toolLog := filepath.Join(filepath.Dir(dir), "pg-tools.log")
	logf, err := os.OpenFile(toolLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	cl, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Port: c.PGPort, Log: logf})
	if err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("embedded Postgres (log: %s): %w", toolLog, err)
	}
	msg := "embedded Postgres started"
	if cl.Created() {
		msg = "embedded Postgres: new cluster made"
	}
	slog.Info(msg, "dir", cl.Dir(), "port", cl.Port(), "log", cl.LogFile())
	return cl, logf, nil
}

// fallbackPGRoot holds the embedded clusters of a root-run loupe whose data
// directory the postgres OS user cannot reach (docs/decisions.md).
const fallbackPGRoot = "/var/lib/loupe"

// embeddedPGDir is the embedded cluster's data directory: LOUPE_PG_DIR,
// else LOUPE_DATA_DIR/pg. Run as root, the server runs as the OS user
// postgres; when that user cannot reach LOUPE_DATA_DIR (a checkout in
// /root, any mode-0700 directory) the cluster lives under
// /var/lib/loupe/<data dir's path>-<hash>/pg instead: one per checkout,
// kept across restarts, and nothing of the checkout's permissions loosened.
func embeddedPGDir(c config) (string, error) {
	if c.PGDir != "" {
		return filepath.Abs(c.PGDir)
	}
	data, err := filepath.Abs(c.DataDir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(data, "pg")
	switch err := pgcluster.Reachable(dir); {
	case err == nil:
		return dir, nil
	case errors.Is(err, pgcluster.ErrUnreachable):
		return filepath.Join(fallbackPGRoot, clusterKey(data), "pg"), nil
	default:
		return "", err
	}
}

// clusterKey names a data directory's fallback cluster: its path, readable,
// with a hash that tells apart paths the readable part makes alike.
func clusterKey(dataDir string) string {
	var b strings.Builder
	for _, r := range strings.Trim(dataDir, "/") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) > 64 {
		name = name[len(name)-64:]
	}
	sum := sha256.Sum256([]byte(dataDir))
	return name + "-" + hex.EncodeToString(sum[:4])
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
