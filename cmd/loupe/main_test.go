package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("LOUPE_ADDR", addr)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan int)
	go func() { code, _ := runCaptured(t, ctx, "serve"); exited <- code }()

	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
