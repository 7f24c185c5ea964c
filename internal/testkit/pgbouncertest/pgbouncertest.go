// Package pgbouncertest runs a real PgBouncer in transaction pooling mode
// in front of a test's (or the bench's) PostgreSQL server: what several
// Loupe nodes on one database connect through with
// LOUPE_DATABASE_POOLER=transaction (docs/scaling.md, "Several nodes").
//
// PgBouncer is Debian's package (1.18 on bookworm), installed by
// `scripts/deps test` and `scripts/deps bench`. Where it is missing, New
// skips the test saying so — unless LOUPE_PGBOUNCER=require or
// LOUPE_WEBTEST=require (.ci/run), where it fails.
package pgbouncertest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq" // the readiness probe
)

// ErrMissing says pgbouncer is not installed.
var ErrMissing = errors.New("pgbouncer is not installed (scripts/deps test or bench installs it: apt-get install pgbouncer)")

// Binary finds pgbouncer: on PATH, or in /usr/sbin where Debian puts it
// (not on an ordinary user's PATH).
func Binary() (string, error) {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	if p := "/usr/sbin/pgbouncer"; isExecutable(p) {
		return p, nil
	}
	return "", ErrMissing
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Options tune the pooler.
type Options struct {
	// PoolSize is the server connections per database and user
	// (default_pool_size; 20 when 0).
	PoolSize int
	// Log receives PgBouncer's log (nil: discarded).
	Log io.Writer
}

// Bouncer is a running PgBouncer.
type Bouncer struct {
	// Port is the pooler's port on 127.0.0.1.
	Port int

	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
}

// Start runs PgBouncer in transaction mode on a free loopback port in
// front of the server dbURL (a postgres:// URL) points at: every database
// of it, as dbURL's user. The server must let that user in without a
// password or with the one in dbURL (PgBouncer then logs in with it);
// clients are not asked for one (auth_type trust). Stop it with Stop.
func Start(ctx context.Context, dbURL string, opt Options) (*Bouncer, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(dbURL)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		return nil, fmt.Errorf("pgbouncertest: %q is not a postgres:// URL", dbURL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	user := u.User.Username()
	pass, _ := u.User.Password()
	if opt.PoolSize == 0 {
		opt.PoolSize = 20
	}
	listen, err := freePort()
	if err != nil {
		return nil, err
	}
	// 0755 and 0644: run as root, PgBouncer drops to the postgres user
	// (it refuses to run as root), who must still read its files.
	dir, err := os.MkdirTemp("", "loupe-pgbouncer-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	runAs := ""
	if os.Geteuid() == 0 {
		runAs = "user = postgres\n"
	}
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 2000
ignore_startup_parameters = extra_float_digits
log_connections = 0
log_disconnections = 0
%s`, host, port, listen, filepath.Join(dir, "users.txt"), opt.PoolSize, runAs)
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	users := fmt.Sprintf("%q %q\n", user, pass)
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(users), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b := &Bouncer{Port: listen, dir: dir, cmd: cmd, exit: make(chan struct{})}
	go func() { cmd.Wait(); close(b.exit) }() //nolint:errcheck // Stop reports nothing of it
	if err := b.waitReady(ctx, dbURL); err != nil {
		b.Stop()
		return nil, err
	}
	return b, nil
}

// waitReady waits until a query through the pooler answers.
func (b *Bouncer) waitReady(ctx context.Context, dbURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", b.URL(dbURL))
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		var one int
		err := db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
		if err == nil {
			return nil
		}
		select {
		case <-b.exit:
			return errors.New("pgbouncertest: pgbouncer exited at start (its log says why)")
		case <-ctx.Done():
			return fmt.Errorf("pgbouncertest: pgbouncer not answering: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// URL is dbURL through the pooler: the same database, user and
// parameters, at the pooler's address.
func (b *Bouncer) URL(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	u.Host = "127.0.0.1:" + strconv.Itoa(b.Port)
	return u.String()
}

// Exited says whether PgBouncer has exited (crashed: only Stop ends it
// otherwise).
func (b *Bouncer) Exited() bool {
	select {
	case <-b.exit:
		return true
	default:
		return false
	}
}

// Stop ends PgBouncer at once (SIGTERM: its clients' connections close)
// and removes its files.
func (b *Bouncer) Stop() {
	if b.cmd.Process != nil {
		b.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // gone already is fine
		select {
		case <-b.exit:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill() //nolint:errcheck
			<-b.exit
		}
	}
	os.RemoveAll(b.dir)
}

// New starts PgBouncer in front of dbURL's server for the test, stopped
// at its end (before the test's database is dropped, when that was made
// first), or skips the test when PgBouncer is not installed (fails where
// LOUPE_PGBOUNCER=require or LOUPE_WEBTEST=require).
func New(t testing.TB, dbURL string) *Bouncer {
	t.Helper()
	if _, err := Binary(); err != nil {
		if os.Getenv("LOUPE_PGBOUNCER") == "require" || os.Getenv("LOUPE_WEBTEST") == "require" {
			t.Fatalf("pgbouncertest: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	log := &logBuffer{}
	b, err := Start(context.Background(), dbURL, Options{Log: log})
	if err != nil {
		t.Fatalf("pgbouncertest: %v\n%s", err, log.String())
	}
	t.Cleanup(b.Stop)
	return b
}

// logBuffer keeps PgBouncer's log for a failed start's message.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
