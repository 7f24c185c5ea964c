package pgtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe/migrations"
)

// templateLockKey serialises template creation among the test processes
// `go test ./...` runs at once (one per package). Advisory locks are per
// database, and all of them take it in the DATABASE_URL database.
const templateLockKey = 0x4c6f7570655450 // "LoupeTP"

// server is one DATABASE_URL's admin pool and migrated template.
type server struct {
	admin    *sql.DB
	template string
}

var (
	serversMu sync.Mutex
	servers   = map[string]func() (*server, error){}
)

// serverFor prepares the template on admin once per process; tests calling
// at the same time wait for the first.
func serverFor(admin string) (*server, error) {
	serversMu.Lock()
	get, ok := servers[admin]
	if !ok {
		get = sync.OnceValues(func() (*server, error) { return newServer(admin) })
		servers[admin] = get
	}
	serversMu.Unlock()
	return get()
}

func newServer(adminURL string) (*server, error) {
	name, err := templateName(migrations.FS)
	if err != nil {
		return nil, err
	}
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return nil, err
	}
	// Tests in one package run in parallel and other packages run beside
	// them; CREATE/DROP DATABASE need no more than a few connections.
	admin.SetMaxOpenConns(4)
	admin.SetMaxIdleConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := ensureTemplate(ctx, adminURL, admin, name); err != nil {
		admin.Close()
		return nil, err
	}
	// The clone uses the server's default strategy. FILE_COPY would save ~3ms
	// a clone on tmpfs (18ms against 21ms for WAL_LOG) but forces two
	// checkpoints per clone, which is costly on a server with fsync on.
	return &server{admin: admin, template: name}, nil
}

// templateName is loupe_tpl_ and the first 12 hex digits of a hash of the
// migrations, so changing a migration makes a new template.
func templateName(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		// Length-prefixed, so moving bytes between a name and a file changes
		// the hash.
		for _, part := range [][]byte{[]byte(path), b} {
			binary.Write(h, binary.BigEndian, uint64(len(part)))
			h.Write(part)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	return "loupe_tpl_" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// ensureTemplate creates the template unless it exists. The migrations run in
// name_build, which becomes name by a rename only once it is complete, so a
// test process killed half way leaves no half-migrated template behind.
func ensureTemplate(ctx context.Context, adminURL string, admin *sql.DB, name string) error {
	// The lock lives as long as this connection's session; closing lockDB
	// releases it even if unlocking fails.
	lockDB, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer lockDB.Close()
	lockConn, err := lockDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer lockConn.Close()
	if _, err := lockConn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return fmt.Errorf("lock template creation: %w", err)
	}
	defer lockConn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey)

	var exists bool
	if err := admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}

	build := name + "_build"
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(build)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop leftover %s: %w", build, err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(build)); err != nil {
		return fmt.Errorf("create %s: %w", build, err)
	}
	if err := migrate(ctx, withDBName(adminURL, build)); err != nil {
		return fmt.Errorf("migrate %s: %w", build, err)
	}
	// The migration's connections are closed, but their server processes may
	// not have gone yet, and a database in use cannot be renamed or cloned.
	return retryInUse(ctx, func() error {
		_, err := admin.ExecContext(ctx, "ALTER DATABASE "+pq.QuoteIdentifier(build)+" RENAME TO "+pq.QuoteIdentifier(name))
		return err
	})
}

func migrate(ctx context.Context, url string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	return migrations.Up(ctx, db)
}

// clone creates database name as a copy of the template.
func (s *server) clone(ctx context.Context, name string) error {
	err := retryInUse(ctx, func() error {
		_, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)+" TEMPLATE "+pq.QuoteIdentifier(s.template))
		return err
	})
	if err != nil {
		return fmt.Errorf("clone %s: %w", s.template, err)
	}
	return nil
}

// drop drops database name. FORCE: a test that leaked a connection must not
// keep its database alive.
func (s *server) drop(ctx context.Context, name string) error {
	if _, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	return nil
}

// retryInUse retries f while Postgres says a database "is being accessed by
// other users" (object_in_use), which lasts only until exiting backends are
// gone.
func retryInUse(ctx context.Context, f func() error) error {
	delay := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f()
		var pqErr *pq.Error
		if err == nil || !errors.As(err, &pqErr) || pqErr.Code != "55006" || attempt == 10 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}
