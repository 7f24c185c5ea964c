package jobs_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

type stuckArgs struct{}

func (stuckArgs) Kind() string { return "test_stuck" }

// stuckWorker is a node's worker: on the node that hangs it says it started
// and then holds the job until released, whatever its context says (a node
// cut off from the database, or frozen); elsewhere it finishes at once.
type stuckWorker struct {
	river.WorkerDefaults[stuckArgs]
	node    string
	hang    bool
	started chan string
	release chan struct{}
}

func (w *stuckWorker) Work(_ context.Context, _ *river.Job[stuckArgs]) error {
	w.started <- w.node
	if w.hang {
		<-w.release
	}
	return nil
}

func (w *stuckWorker) Timeout(*river.Job[stuckArgs]) time.Duration { return time.Hour }

// A job running on a node whose heartbeat stops is taken over by another
// node within the dead time and a beat, not after its (hour-long) timeout;
// the first node's late finish changes nothing.
func TestDeadNodesJobIsTakenOver(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("postgres", pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // after the clients stop (cleanups run last first)
	started := make(chan string, 4)
	release := make(chan struct{})
	node := func(name string, hang bool) (*jobs.Client, context.CancelFunc) {
		w := river.NewWorkers()
		river.AddWorker(w, &stuckWorker{node: name, hang: hang, started: started, release: release})
		c, err := jobs.New(db, w, jobs.Config{NodeID: name, PollInterval: 20 * time.Millisecond, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.StopAndCancel(context.Background()) }) //nolint:errcheck
		lctx, stop := context.WithCancel(ctx)
		go (&jobs.Liveness{DB: db, NodeID: name, Beat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond}).Run(lctx)
		t.Cleanup(stop)
		return c, stop
	}
	a, dieA := node("node-a", true)
	res, err := a.Insert(ctx, stuckArgs{}, &river.InsertOpts{Queue: jobs.QueueBulk})
	if err != nil {
		t.Fatal(err)
	}
	if n := <-started; n != "node-a" {
		t.Fatalf("started on %s", n)
	}
	node("node-b", false)
	// Node a stops its heartbeat; its attempt goes on.
	dieA()
	died := time.Now()
	select {
	case n := <-started:
		if n != "node-b" {
			t.Fatalf("run again on %s", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the job was not taken over")
	}
	took := time.Since(died)
	if took > 2*time.Second {
		t.Errorf("taken over %v after the last heartbeat; want within the dead time and a beat", took)
	}
	t.Logf("taken over %v after the last heartbeat", took.Round(time.Millisecond))

	var state, errs string
	var attempt int
	waitFor := func(want string) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			if err := db.QueryRow(`SELECT state, attempt, errors::text FROM river_job WHERE id = $1`, res.Job.ID).
				Scan(&state, &attempt, &errs); err != nil {
				t.Fatal(err)
			}
			if state == want || time.Now().After(deadline) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("completed")
	if state != "completed" || attempt != 2 || !strings.Contains(errs, "taken over: node node-a stopped its heartbeat") {
		t.Fatalf("after the takeover: state %s, attempt %d, errors %s", state, attempt, errs)
	}
	// Node a's attempt ends late: the job stays as node b left it.
	close(release)
	time.Sleep(300 * time.Millisecond)
	waitFor("completed")
	if state != "completed" || attempt != 2 {
		t.Fatalf("after the late finish: state %s, attempt %d", state, attempt)
	}
}
