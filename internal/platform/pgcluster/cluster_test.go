package pgcluster

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempParent makes a directory for a data directory, reachable by the
// postgres OS user when we are root (t.TempDir is mode 0700).
func tempParent(t *testing.T) string {
	t.Helper()
	if _, err := FindBinDir(); err != nil {
		t.Skip(err)
	}
	dir, err := MkdirTemp("pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func query(t *testing.T, url, q string) string {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s string
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestStartReuseStop(t *testing.T) {
	ctx := context.Background()
	// A space in the path: pg_ctl hands the data directory and log file to
	// a shell.
	dir := filepath.Join(tempParent(t), "a checkout", "data")

	start := time.Now()
	c, err := Start(ctx, Options{Dir: dir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	t.Logf("initdb + start: %v", time.Since(start))
	if !c.Created() || c.Dir() != dir {
		t.Errorf("Created() = %v, Dir() = %s; want true, %s", c.Created(), c.Dir(), dir)
	}

	if got := query(t, c.URL("postgres"), "SHOW fsync"); got != "off" {
		t.Errorf("fsync = %s, want off", got)
	}
	if got := query(t, c.URL("postgres"), "SHOW max_connections"); got != "200" {
		t.Errorf("max_connections = %s, want 200", got)
	}
	if !strings.Contains(c.URL("x"), "/x?") || c.Port() == 0 {
		t.Errorf("URL = %s", c.URL("x"))
	}
	if _, err := os.Stat(c.LogFile()); err != nil {
		t.Errorf("server log: %v", err)
	}

	if err := c.EnsureDatabase(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if err := c.EnsureDatabase(ctx, "app"); err != nil {
		t.Fatalf("second EnsureDatabase: %v", err)
	}
	if got := query(t, c.URL("app"), "SELECT current_database()"); got != "app" {
		t.Errorf("current_database = %s", got)
	}

	// A second Start on the same directory attaches to the running server
	// and must not stop it.
	again, err := Start(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again.Port() != c.Port() {
		t.Errorf("reused cluster port %d, want %d", again.Port(), c.Port())
	}
	if err := again.Stop(); err != nil {
		t.Fatal(err)
	}
	query(t, c.URL("postgres"), "SELECT 'still up'")

	if _, err := Start(ctx, Options{Dir: dir, Port: c.Port() + 1}); err == nil {
		t.Error("Start with a different port on a running cluster succeeded")
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after Stop: %v", err)
	}

	// Starting a stopped cluster reuses its data: no initdb.
	start = time.Now()
	c, err = Start(ctx, Options{Dir: dir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	t.Logf("restart: %v", time.Since(start))
	if c.Created() {
		t.Error("Created() after a restart on existing data")
	}
	if got := query(t, c.URL("app"), "SELECT current_database()"); got != "app" {
		t.Errorf("after restart current_database = %s", got)
	}
}

func TestStartCancelled(t *testing.T) {
	dir := filepath.Join(tempParent(t), "data")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := Start(ctx, Options{Dir: dir}); err == nil {
		c.Stop()
		t.Fatal("Start with a cancelled context succeeded")
	}
}

func TestStartUnreachableDirAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the data directory to the postgres user")
	}
	parent := filepath.Join(tempParent(t), "private")
	if err := os.Mkdir(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "not yet", "data")
	if err := Reachable(dir); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Reachable(%s) = %v, want ErrUnreachable", dir, err)
	}
	_, err := Start(context.Background(), Options{Dir: filepath.Join(parent, "data")})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach "+parent) {
		t.Fatalf("Start under a 0700 root directory: %v, want an error naming %s", err, parent)
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Reachable(dir); err != nil {
		t.Errorf("Reachable(%s) once its parent is 0755: %v", dir, err)
	}
}

func TestMkdirTemp(t *testing.T) {
	dir, err := MkdirTemp("pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", fi.Mode().Perm())
	}
	t.Logf("made %s", dir)
}

func TestStartPortTaken(t *testing.T) {
	dir := filepath.Join(tempParent(t), "data")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	c, err := Start(context.Background(), Options{Dir: dir, Port: port, Fast: true})
	if err == nil {
		c.Stop()
		t.Fatalf("Start on taken port %d succeeded", port)
	}
	// The reason comes from the server log, not pg_ctl.
	if !strings.Contains(err.Error(), "could not bind") {
		t.Errorf("error does not say why:\n%v", err)
	}
	if testing.Verbose() {
		t.Logf("error: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid left behind: %v", err)
	}
}
