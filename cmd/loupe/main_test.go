package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// runCaptured runs the command line and returns its exit code and stdout.
func runCaptured(t *testing.T, ctx context.Context, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	code := run(ctx, args)
	os.Stdout = saved
	w.Close()
	return code, <-done
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestTenantAndUserCreate(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	ctx := context.Background()

	code, out := runCaptured(t, ctx, "tenant", "create", "--name", "acme", "--admin-email", "boss@acme.test")
	if code != 0 {
		t.Fatalf("tenant create exited %d: %s", code, out)
	}
	var tenant struct{ TenantID, UserID, APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &tenant); err != nil || tenant.TenantID == "" || tenant.UserID == "" {
		t.Fatalf("tenant create printed %q (%v)", out, err)
	}
	if _, _, err := auth.ParseKey(tenant.APIKey); err != nil {
		t.Fatalf("tenant create printed a malformed key %q", tenant.APIKey)
	}

	code, out = runCaptured(t, ctx, "user", "create", "--tenant-id", tenant.TenantID, "--email", "ed@acme.test", "--groups", "editors, news")
	if code != 0 {
		t.Fatalf("user create exited %d: %s", code, out)
	}
	var user struct{ UserID, APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &user); err != nil || user.UserID == "" || user.APIKey == "" {
		t.Fatalf("user create printed %q (%v)", out, err)
	}

	code, out = runCaptured(t, ctx, "system-key", "create", "--label", "ops")
	if code != 0 {
		t.Fatalf("system-key create exited %d: %s", code, out)
	}
	var sys struct{ KeyID, APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &sys); err != nil || sys.KeyID == "" {
		t.Fatalf("system-key create printed %q (%v)", out, err)
	}
	if id, _, err := auth.ParseKey(sys.APIKey); err != nil || id != sys.KeyID {
		t.Fatalf("system-key create printed key %q for id %s", sys.APIKey, sys.KeyID)
	}

	for _, args := range [][]string{
		{"tenant", "create", "--name", "acme", "--admin-email", "x@acme.test"}, // name in use
		{"tenant", "create", "--name", "no-email"},
		{"user", "create", "--tenant-id", tenant.TenantID, "--email", "ed@acme.test"}, // email in use
		{"user", "create", "--tenant-id", "01a20242-9dca-771b-bd4e-ca31c13a56ec", "--email", "a@b.c"},
		{"user", "create", "--tenant-id", tenant.TenantID, "--email", "not-an-email"},
		{"frobnicate"},
	} {
		if code, out := runCaptured(t, ctx, args...); code == 0 {
			t.Errorf("%v exited 0: %s", args, out)
		}
	}
}

// TestServeStartsAndShutsDown runs the server as `loupe serve` does: it
// bootstraps the default tenant, answers health checks, and stops cleanly
// when signalled.
func TestServeStartsAndShutsDown(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	t.Setenv("LOUPE_ADDR", addr)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan int)
	go func() { code, _ := runCaptured(t, ctx, "serve"); exited <- code }()

	base := "http://" + addr
	waitReady(t, base)
	for _, p := range []string{"/healthz", "/playground"} {
		resp, err := http.Get(base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, err, resp)
		}
		resp.Body.Close()
	}
	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("serve exited %d after the signal", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after the signal")
	}
}

// TestServeEmbedded runs `loupe serve` with no DATABASE_URL, as `make run`
// does: it makes its own cluster, serves, and on the signal stops that
// cluster without an error (pg_ctl stop writes to the tool log, which must
// still be open then), twice: the second start reuses the data.
func TestServeEmbedded(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		t.Skip(err)
	}
	parent, err := pgcluster.MkdirTemp("loupe-serve-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	t.Setenv("DATABASE_URL", "")
	t.Setenv("LOUPE_DATA_DIR", filepath.Join(parent, "a checkout", ".loupe"))
	t.Setenv("LOUPE_PG_PORT", strconv.Itoa(freePort(t)))
	// Background goroutines (the key cache's listener) may still log after
	// serve returns: the buffer takes writes under a lock.
	logs := &lockedBuffer{}
	saved := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(saved) })

	for round, want := range []string{"embedded Postgres: new cluster made", "embedded Postgres started"} {
		addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
		t.Setenv("LOUPE_ADDR", addr)
		ctx, cancel := context.WithCancel(context.Background())
		exited := make(chan int)
		go func() { code, _ := runCaptured(t, ctx, "serve"); exited <- code }()
		waitReady(t, "http://"+addr)
		cancel()
		if code := <-exited; code != 0 {
			t.Fatalf("round %d: serve exited %d\n%s", round, code, logs.String())
		}
		if !strings.Contains(logs.String(), want) {
			t.Errorf("round %d: no %q in the log:\n%s", round, want, logs.String())
		}
		if strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Fatalf("round %d: errors in the log:\n%s", round, logs.String())
		}
		if _, err := os.Stat(filepath.Join(parent, "a checkout", ".loupe", "pg", "postmaster.pid")); !os.IsNotExist(err) {
			t.Fatalf("round %d: the cluster still runs (%v)", round, err)
		}
		logs.Reset()
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
