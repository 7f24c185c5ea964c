package coherence_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lib/pq"

	"github.com/loupe-mam/loupe/internal/coherence"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// testNode is a node with fast beats, its payloads heard on loupe_test
// (each applied slowly, so that a writer that did not wait would see it
// unapplied) and its resets counted.
type testNode struct {
	*coherence.Node
	cancel context.CancelFunc
	mu     sync.Mutex
	heard  map[string]bool
	resets atomic.Int32
}

func (n *testNode) saw(payload string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.heard[payload]
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func start(t *testing.T, dsn, id string) *testNode {
	t.Helper()
	n := &testNode{Node: coherence.New(open(t, dsn), dsn, id, slog.Default()), heard: map[string]bool{}}
	n.Beat, n.DeadAfter, n.Wait = 100*time.Millisecond, 500*time.Millisecond, 2*time.Second
	n.Handle("loupe_test", func(p string) {
		time.Sleep(5 * time.Millisecond)
		n.mu.Lock()
		n.heard[p] = true
		n.mu.Unlock()
	})
	n.OnReset(func() { n.resets.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		n.Run(ctx)
		close(done)
	}()
	n.cancel = func() {
		cancel()
		<-done
	}
	t.Cleanup(n.cancel)
	waitFor(t, id+" live", n.Live)
	return n
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// A change's writer that calls Sync returns only once every caching node
// has applied the change's notification: each of 20 payloads, applied
// slowly, has been applied by both nodes when Sync returns.
func TestSyncWaitsForEveryNode(t *testing.T) {
	dsn := pgtest.DB(t)
	db := open(t, dsn)
	a, b := start(t, dsn, "a"), start(t, dsn, "b")
	for i := range 20 {
		p := fmt.Sprint("change ", i)
		if _, err := db.Exec(`SELECT pg_notify('loupe_test', $1)`, p); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		a.Sync(context.Background())
		if !a.saw(p) || !b.saw(p) {
			t.Fatalf("%q: Sync returned after %v with a applied %v, b %v", p, time.Since(began), a.saw(p), b.saw(p))
		}
	}
}

// A node that died (its beat older than DeadAfter) is not waited for; one
// whose beat is fresh but that does not answer is waited for Wait, then
// marked not caching, and not waited for again; a node that stops leaves.
func TestSyncSkipsDeadNodesAndGivesUpOnSilentOnes(t *testing.T) {
	dsn := pgtest.DB(t)
	db := open(t, dsn)
	a := start(t, dsn, "a")
	a.Wait = 300 * time.Millisecond
	timed := func() time.Duration {
		began := time.Now()
		a.Sync(context.Background())
		return time.Since(began)
	}
	if _, err := db.Exec(`INSERT INTO cache_nodes (node, seen_at, caching) VALUES ('dead', now() - interval '1 hour', true)`); err != nil {
		t.Fatal(err)
	}
	if d := timed(); d >= a.Wait {
		t.Fatalf("Sync waited %v for a dead node", d)
	}
	if _, err := db.Exec(`INSERT INTO cache_nodes (node, caching) VALUES ('silent', true)`); err != nil {
		t.Fatal(err)
	}
	if d := timed(); d < a.Wait {
		t.Fatalf("Sync returned after %v with a live node silent", d)
	}
	var caching bool
	if err := db.QueryRow(`SELECT caching FROM cache_nodes WHERE node = 'silent'`).Scan(&caching); err != nil || caching {
		t.Fatalf("the silent node: caching %v (%v), want marked not caching", caching, err)
	}
	if d := timed(); d >= a.Wait {
		t.Fatalf("Sync waited %v for a node given up on", d)
	}
	b := start(t, dsn, "b")
	b.cancel()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM cache_nodes WHERE node = 'b'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a stopped node left %d rows (%v)", n, err)
	}
	if d := timed(); d >= a.Wait {
		t.Fatalf("Sync waited %v for a stopped node", d)
	}
}

// A node a writer gave up on forgets everything at its next beat and
// registers again; a node whose listener's connection is lost stops
// caching at once, says so (no writer waits for it), and registers again
// once reconnected, having forgotten everything.
func TestNodeStartsOver(t *testing.T) {
	dsn := pgtest.DB(t)
	db := open(t, dsn)
	a := start(t, dsn, "a")
	caching := func() bool {
		var c bool
		db.QueryRow(`SELECT caching FROM cache_nodes WHERE node = 'a'`).Scan(&c) //nolint:errcheck // false then
		return c
	}

	resets := a.resets.Load()
	if _, err := db.Exec(`UPDATE cache_nodes SET caching = false WHERE node = 'a'`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "forgetting after a writer gave up", func() bool { return a.resets.Load() > resets })
	waitFor(t, "registered again", func() bool { return a.Live() && caching() })

	resets = a.resets.Load()
	if _, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND (query = '' OR query LIKE 'LISTEN%')`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "forgetting after the listener was lost", func() bool { return a.resets.Load() > resets })
	waitFor(t, "registered again after reconnecting", func() bool { return a.Live() && caching() })
	if _, err := db.Exec(`SELECT pg_notify('loupe_test', 'after')`); err != nil {
		t.Fatal(err)
	}
	a.Sync(context.Background())
	if !a.saw("after") {
		t.Fatal("the reconnected listener did not apply a change before Sync returned")
	}
}
