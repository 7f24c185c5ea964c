package jobs_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

type echoArgs struct {
	N int `json:"n"`
}

func (echoArgs) Kind() string { return "test_echo" }

type echoWorker struct {
	river.WorkerDefaults[echoArgs]
	done chan int
}

func (w *echoWorker) Work(_ context.Context, j *river.Job[echoArgs]) error {
	w.done <- j.Args.N
	return nil
}

// A job inserted in a transaction is worked once that commits, and never
// when it rolls back: work is asked for exactly with the change.
func TestInsertTxIsWorkedOnCommitOnly(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("postgres", pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := &echoWorker{done: make(chan int, 4)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	c, err := jobs.New(db, workers, jobs.Config{PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(ctx) //nolint:errcheck

	insert := func(n int, commit bool) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.InsertTx(ctx, tx, echoArgs{N: n}, &river.InsertOpts{Queue: jobs.QueueIngest}); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	insert(1, false)
	insert(2, true)
	select {
	case n := <-w.done:
		if n != 2 {
			t.Fatalf("worked job %d, want the committed 2", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the committed job was not worked")
	}
	select {
	case n := <-w.done:
		t.Fatalf("job %d worked too", n)
	case <-time.After(300 * time.Millisecond):
	}
}

// An insert-only client asks without working: jobs stay available.
func TestInserterDoesNotWork(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("postgres", pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := jobs.NewInserter(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(ctx, jobs.ProcessArgs{TenantID: "t", ItemID: "i"}, &river.InsertOpts{Queue: jobs.QueueInteractive}); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM river_job WHERE kind = 'process_item'`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != "available" {
		t.Fatalf("state %q", state)
	}
	if err := c.Start(ctx); err == nil {
		t.Fatal("an insert-only client must not start")
	}
}
