package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/crossorigin"
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	usagefig "github.com/loupe-mam/loupe/internal/usage"
	"github.com/loupe-mam/loupe/server"
	"github.com/loupe-mam/loupe/store"
)

// shutdownGrace bounds how long in-flight requests may finish after SIGTERM.
const shutdownGrace = 15 * time.Second

// gcPercent is the server's GOGC unless the environment sets one. Go's
// default (100) collects whenever the heap doubles; a server's live heap is
// a few MiB, so under load it collected hundreds of times a second. 800
// costs about eight live heaps of memory, which stays small because
// /graphql admits a few operations at a time (measurements:
// docs/performance.md).
//
// memoryLimit (unless GOMEMLIMIT is set) is the soft bound that keeps it
// so: nearing it, the collector runs as often as it must, so that the
// process stays under the 150 MB budget whatever the load.
const (
	gcPercent   = 800
	memoryLimit = 120 << 20
	// jobsPool is the job queue's connection pool size.
	jobsPool = 6
)

func cmdServe(ctx context.Context, c config) error {
	// The settings are checked as a whole before anything starts.
	if err := checkSettings(c); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	// A bad setting stops the server before anything starts: serving
	// without it would answer 401 to every integration that relies on it.
	headers, err := auth.ParseKeyHeaders(c.APIKeyHeaders)
	if err != nil {
		return fmt.Errorf("LOUPE_API_KEY_HEADERS: %w", err)
	}
	c.App.APIKeyHeaders = headers
	if c.App.CORSOrigins, err = crossorigin.ParseOrigins(c.CORSOrigins); err != nil {
		return fmt.Errorf("LOUPE_CORS_ORIGINS: %w", err)
	}
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
	// The file store before the bootstrap: a wrong bucket or key stops the
	// start before the first tenant's key (shown once) is printed. (After
	// the database: it makes the data directory the blobs go under.)
	files, err := openFiles(ctx, c)
	if err != nil {
		return err
	}
	st := newStore(c, db)
	if err := bootstrap(ctx, st, c); err != nil {
		return err
	}
	key, err := blobKey(c)
	if err != nil {
		return err
	}
	c.App.Blobs = blob.NewSigner(key, c.PublicURL)
	if p, ok := files.(*blob.S3); ok && c.DirectDownloads {
		c.App.Blobs.DirectDownloads(p)
		if len(c.App.CORSOrigins) > 0 {
			// Loupe leaves a bucket's configuration alone: say where the
			// rest of the setting must go.
			slog.Warn("media links go straight to the bucket: its own CORS rules must allow LOUPE_CORS_ORIGINS too (docs/cors.md)",
				"bucket", c.S3.Bucket)
		}
	}
	if c.App.Credentials, err = credentialsBox(c); err != nil {
		return err
	}
	c.App.Files = files
	// The key cache's and the events feed's LISTEN need a session of their
	// own: the database itself, not a transaction pooler (pooler.go).
	c.App.DatabaseURL = directURL(c, dbURL)
	// The usage recorder outlives the server: what it counted while
	// requests finished is written after they have.
	rec := usagefig.New(st, slog.Default())
	c.App.Usage = rec
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rec.Close(ctx); err != nil {
			slog.Error("usage counters not written at shutdown", "err", err)
		}
	}()

	stopJobs, err := startJobs(&c, st, dbURL)
	if err != nil {
		return err
	}
	// After the HTTP server (defers run last first): running jobs get the
	// grace to finish.
	defer stopJobs()

	srv := &http.Server{
		Addr:              c.Addr,
		Handler:           server.New(ctx, c.App, st),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	if c.PprofAddr != "" {
		// Profiling stays off the public address: only on an operator's
		// own (LOUPE_PPROF_ADDR, e.g. 127.0.0.1:6060).
		go func() {
			slog.Info("pprof serving", "addr", c.PprofAddr)
			if err := http.ListenAndServe(c.PprofAddr, pprofMux()); err != nil {
				slog.Error("pprof", "err", err)
			}
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	slog.Info("loupe is serving", "addr", c.Addr, "playground", c.PublicURL+"/playground")

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	slog.Info("shutting down: finishing in-flight requests", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bootstrap makes the tenant "default" on a database with no tenants and
// prints its admin key, which is shown this once.
func bootstrap(ctx context.Context, st *store.Store, c config) error {
	n, err := st.CountTenants(ctx)
	if err != nil || n > 0 {
		return err
	}
	out, key, err := createTenant(ctx, st, "default", "admin@localhost")
	if err != nil {
		return err
	}
	fmt.Printf(`
  Created tenant "default" (%s) with admin user admin@localhost.
  Admin API key (shown once, keep it):

    %s

  Playground: %s/playground#key=%s
              (the page keeps the key in your browser and drops it from the address)
  REST:       curl -H 'Authorization: Bearer <key>' %s/api/v1/items/<id>

`, out.TenantID, key, c.PublicURL, key, c.PublicURL)
	return nil
}

// blobKey is the secret signed links are made with. Instances behind one
// load balancer must share it (LOUPE_BLOB_KEY); the embedded setup keeps one
// in its data directory.
func blobKey(c config) ([]byte, error) {
	if c.BlobKey != "" {
		k, err := hex.DecodeString(c.BlobKey)
		if err != nil || len(k) < 32 {
			return nil, errors.New("LOUPE_BLOB_KEY must be at least 32 bytes in hex")
		}
		return k, nil
	}
	if c.DatabaseURL != "" {
		slog.Warn("LOUPE_BLOB_KEY is unset: signed links are valid only on this instance until it restarts")
		return randomKey()
	}
	path := filepath.Join(c.DataDir, "blob.key")
	if b, err := os.ReadFile(path); err == nil {
		return hex.DecodeString(strings.TrimSpace(string(b)))
	}
	k, err := randomKey()
	if err != nil {
		return nil, err
	}
	return k, os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600)
}

// credentialsBox seals storage locations' secret keys
// (docs/storage-locations.md). Every instance on one database must have
// the same key (LOUPE_CREDENTIALS_KEY); the embedded setup keeps one in
// its data directory. A random key would lose every saved secret at the
// next start, so with DATABASE_URL and no key there is none: key-user
// storage locations are then refused, saying why.
func credentialsBox(c config) (*secretbox.Box, error) {
	const msg = "LOUPE_CREDENTIALS_KEY must be at least 32 bytes in hex"
	if c.CredentialsKey != "" {
		k, err := hex.DecodeString(c.CredentialsKey)
		if err != nil || len(k) < secretbox.MinKeySize {
			return nil, errors.New(msg)
		}
		return secretbox.New(k)
	}
	if c.DatabaseURL != "" {
		slog.Warn("LOUPE_CREDENTIALS_KEY is unset: storage locations with a secret key cannot be saved or used")
		return nil, nil
	}
	path := filepath.Join(c.DataDir, "credentials.key")
	if b, err := os.ReadFile(path); err == nil {
		k, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(k) < secretbox.MinKeySize {
			return nil, fmt.Errorf("%s: at least 32 bytes in hex", path)
		}
		return secretbox.New(k)
	}
	k, err := randomKey()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return secretbox.New(k)
}

func randomKey() ([]byte, error) {
	k := make([]byte, 32)
	_, err := rand.Read(k)
	return k, err
}

func pprofMux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/debug/pprof/", pprof.Index)
	m.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	m.HandleFunc("/debug/pprof/profile", pprof.Profile)
	m.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	m.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return m
}

// startJobs starts this node's job queue (internal/jobs) on a small pool of
// its own — its polling and workers do not take the connections requests
// wait for — and answers how to stop it: running jobs get the shutdown
// grace to finish; one that does not runs again later.
func startJobs(c *config, st *store.Store, dbURL string) (func(), error) {
	jobsDB, err := sql.Open("postgres", store.DSN(dbURL))
	if err != nil {
		return nil, err
	}
	jobsDB.SetMaxOpenConns(jobsPool)
	c.App.JobsDB = jobsDB
	// One name for this node in upload locks and job rows.
	if c.App.InstanceID == "" {
		c.App.InstanceID = upload.NewInstanceID()
	}
	ctx, cancel := context.WithCancel(context.Background())
	jc, err := server.StartJobs(ctx, c.App, st)
	if err != nil {
		cancel()
		jobsDB.Close()
		return nil, err
	}
	return func() {
		if jc != nil {
			sctx, scancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer scancel()
			if err := jc.Stop(sctx); err != nil {
				// Jobs still running after the grace are cancelled and
				// so recorded as failed attempts: they run again at
				// once (here or elsewhere), not after their timeout.
				slog.Warn("jobs still running at shutdown are stopped and will run again", "err", err)
				cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer ccancel()
				if err := jc.StopAndCancel(cctx); err != nil {
					slog.Warn("jobs not stopped at shutdown run again after their timeout", "err", err)
				}
			}
		}
		cancel()
		jobsDB.Close()
	}, nil
}
