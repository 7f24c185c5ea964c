package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/demo"
	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// Backup and restore as docs/operations.md says: pg_dump of the database
// (custom format) while the node serves, then a copy of the file store;
// restored with pg_restore into a database of a fresh cluster and the
// files put back, a node with the same keys serves the same items —
// metadata, comments, the original's and the proxy's bytes — to the same
// API key.
func TestBackupRestore(t *testing.T) {
	mediatest.Need(t, "pg_dump", "pg_restore")
	ctx := context.Background()
	dbURL := pgtest.DB(t)
	t.Setenv("DATABASE_URL", dbURL)
	env := nodeEnv(t)
	blobDir := os.Getenv("LOUPE_BLOB_DIR")
	key := tenantKey(t, "bk")
	a := startNode(t, env, "127.0.0.1:"+strconv.Itoa(freePort(t)))

	// Items with media, processed; a comment.
	var out bytes.Buffer
	if err := runDemo(ctx, demoConfig{URL: a.base, APIKey: key, Timeout: 3 * time.Minute, Dir: t.TempDir(),
		Samples: demo.Options{MaxDuration: 2 * time.Second}}, &out); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	video := printedID(t, out.String(), demo.Samples()[0].Title)
	if st, body := rest(t, "POST", a.base+"/api/v1/items/"+video+"/comments", key, map[string]any{"text": "Keep this take"}); st != http.StatusOK {
		t.Fatalf("comment: %d %s", st, body)
	}
	before := snapshot(t, a.base, key, video)

	// The backup: the dump while the node serves, then the files.
	dump := filepath.Join(t.TempDir(), "loupe.dump")
	if out, err := exec.Command("pg_dump", "--format=custom", "--file="+dump, dbURL).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v %s", err, out)
	}
	files := filepath.Join(t.TempDir(), "blobs")
	if out, err := exec.Command("cp", "-a", blobDir, files).CombinedOutput(); err != nil {
		t.Fatalf("copy the files: %v %s", err, out)
	}
	a.kill()

	// The restore: a fresh cluster, the dump, the files, the same keys.
	pgDir, err := pgcluster.MkdirTemp("loupe-restore-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(pgDir) })
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(pgDir, "pg"), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() }) //nolint:errcheck // the test's cluster, stopped before its directory goes
	if err := c.EnsureDatabase(ctx, "loupe"); err != nil {
		t.Fatal(err)
	}
	restored := c.URL("loupe")
	if out, err := exec.Command("pg_restore", "--no-owner", "--exit-on-error", "--dbname="+restored, dump).
		CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v %s", err, out)
	}
	t.Setenv("DATABASE_URL", restored)
	b := startNode(t, append(env, "DATABASE_URL="+restored, "LOUPE_BLOB_DIR="+files), "127.0.0.1:"+strconv.Itoa(freePort(t)))
	after := snapshot(t, b.base, key, video)
	if before != after {
		t.Fatalf("restored:\n%s\nbacked up:\n%s", after, before)
	}
	t.Logf("restored the same: %s", after)
}

// snapshot is what a client sees of the tenant: its items' titles, types
// and states, the video's comments, and the SHA-256 of the video's
// original and proxy as downloaded.
func snapshot(t *testing.T, base, key, video string) string {
	t.Helper()
	st, body := rest(t, "GET", base+"/api/v1/items?size=100", key, nil)
	if st != http.StatusOK {
		t.Fatalf("items: %d %s", st, body)
	}
	var list struct {
		Items []struct{ ID, Title, ItemType, TranscodingState string }
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Items) < 2 {
		t.Fatalf("items: %v %s", err, body)
	}
	_, comments := rest(t, "GET", base+"/api/v1/items/"+video+"/comments", key, nil)
	var c struct{ Comments []struct{ Text string } }
	json.Unmarshal(comments, &c) //nolint:errcheck // compared below
	_, it := rest(t, "GET", base+"/api/v1/items/"+video, key, nil)
	var item struct{ Proxy string }
	json.Unmarshal(it, &item) //nolint:errcheck // an empty link fails below
	_, orig := rest(t, "GET", base+"/api/v1/items/"+video+"/original", key, nil)
	var o struct{ DownloadURL string }
	json.Unmarshal(orig, &o) //nolint:errcheck // an empty link fails below
	s, _ := json.Marshal(map[string]any{"items": list.Items, "comments": c.Comments,
		"original": sha256Of(t, o.DownloadURL), "proxy": sha256Of(t, item.Proxy)})
	return string(s)
}

func sha256Of(t *testing.T, link string) string {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", link, resp.StatusCode)
	}
	h := sha256.New()
	if _, err := io.Copy(h, resp.Body); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
