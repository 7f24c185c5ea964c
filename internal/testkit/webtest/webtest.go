// Package webtest runs the Node tools some end-to-end tests drive: a real
// headless Chromium through playwright-core, and graphql-http's audit of
// /graphql. The packages are pinned in package.json/package-lock.json beside
// this file; scripts/deps installs them outside the checkout, in a directory
// keyed by the lock file's hash, so a fresh clone reuses what an earlier one
// installed and no node_modules sits among the Go packages.
//
// Where Node, the packages or Chromium are missing, tests skip with what to
// install — unless LOUPE_WEBTEST=require (set by .ci/run), where they fail.
package webtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

//go:embed package-lock.json
var packageLock []byte

// CacheDir is where scripts/deps keeps what is slow to fetch or build:
// $LOUPE_CACHE_DIR, else $XDG_CACHE_HOME/loupe, else ~/.cache/loupe.
func CacheDir() (string, error) {
	if d := os.Getenv("LOUPE_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "loupe"), nil
}

// ModulesDir is the node_modules scripts/deps installs for this lock file
// (the same name it computes: webtest-<first 16 hex digits of its SHA-256>).
func ModulesDir() (string, error) {
	d, err := CacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(packageLock)
	return filepath.Join(d, "webtest-"+hex.EncodeToString(sum[:])[:16], "node_modules"), nil
}

// missing skips the test, or fails it where the tools are required.
func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " (scripts/deps test installs it)"
	if os.Getenv("LOUPE_WEBTEST") == "require" {
		t.Fatal(msg)
	}
	t.Skip("skipped: " + msg)
}

// Chromium is the browser binary: $LOUPE_CHROMIUM, else Debian's chromium.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("LOUPE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "Chromium is not installed (Debian: apt-get install chromium)")
	return ""
}

// Node runs the CommonJS script (a path relative to the calling test's
// package) with the pinned packages on NODE_PATH and env added to the
// environment, and returns what it printed on stdout. A failing script
// fails the test with its stderr.
func Node(t testing.TB, timeout time.Duration, script string, env []string, args ...string) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "Node.js is not installed (Debian: apt-get install nodejs)")
	}
	modules, err := ModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(modules); err != nil {
		missing(t, "the pinned Node packages are not in "+modules)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(append(os.Environ(), "NODE_PATH="+modules), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}
