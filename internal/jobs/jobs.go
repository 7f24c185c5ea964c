// Package jobs is Loupe's durable background work: a River job queue in the
// same Postgres as everything else, so that a job is inserted in the same
// transaction as the change that asks for it (an upload completed, a scan
// requested) and survives a crash of any node. Features define their job
// arguments and workers in their own packages and register them here; this
// package only holds the queue names and builds the client.
//
// Delivery is at least once: a worker killed mid-job has its job run again
// after the job's own timeout, so every worker's steps are idempotent.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
)

// The queues. Interactive and bulk processing are apart so that a backfill
// never starves a fresh upload; ingest scans have their own so that a large
// bucket does not hold up either.
const (
	QueueInteractive = "interactive"
	QueueBulk        = "bulk"
	QueueIngest      = "ingest"
	// QueueWebhooks holds webhook deliveries: network waits, not work, so
	// many run at once (webhookWorkers), and a slow receiver never holds
	// up processing.
	QueueWebhooks = "webhooks"
)

// Queues lists every queue, in the order above.
var Queues = []string{QueueInteractive, QueueBulk, QueueIngest, QueueWebhooks}

// webhookWorkers is how many deliveries a node makes at once: each mostly
// waits on its receiver (up to 15 s), and River fetches as many jobs per
// poll as it has free workers.
const webhookWorkers = 32

// MaxJobTimeout is the longest timeout a worker sets: a job whose length
// nothing bounds beforehand (a move of an original of unknown size, a
// transcode of unknown duration).
const MaxJobTimeout = time.Hour

// River's rescuer (on the leader, every 30 s) looks at jobs running longer
// than Config.RescueAfter and runs again those past their worker's own
// Timeout (river.Worker.Timeout, given the job): a job whose node was killed
// runs again its own timeout + up to 35 s later (the rescuer's interval and
// the scheduler's 5 s), not after the longest any job may take.

// Client is the River client over database/sql (lib/pq): jobs are inserted
// inside a *sql.Tx (an sqlx.Tx's embedded one).
type Client = river.Client[*sql.Tx]

// Config is what a worker node needs.
type Config struct {
	// Workers bounds the jobs running at once per queue (default: the
	// cores, at least 1).
	Workers int
	// PollInterval is how often an idle node looks for new jobs (default
	// 200 ms; lib/pq has no LISTEN that River can use, so it polls).
	PollInterval time.Duration
	// RescueAfter is how long a job must have run before River's rescuer
	// looks at it; it runs again those past their own timeout (default 1
	// min, at least JobTimeout).
	RescueAfter time.Duration
	// JobTimeout bounds a job whose worker sets no timeout of its own
	// (default 1 min; every Loupe worker sets its own).
	JobTimeout time.Duration
	// NodeID names this node in River's tables (River's default when
	// empty) and in its heartbeat (Liveness).
	NodeID string
	// Heartbeat and DeadAfter are Liveness's Beat and DeadAfter (5 s and
	// 15 s when zero).
	Heartbeat, DeadAfter time.Duration
	Logger               *slog.Logger
	// Periodic are the jobs the cluster's leader inserts on a schedule.
	Periodic []*river.PeriodicJob
	// Middleware wraps the workers' attempts (metrics: counts and times
	// them by kind; tracing: a span each) and the inserts (tracing: the
	// inserting context's trace into the job's metadata).
	Middleware []rivertype.Middleware
}

func (c Config) withDefaults() Config {
	if c.Workers < 1 {
		c.Workers = max(1, runtime.GOMAXPROCS(0))
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = time.Minute
	}
	if c.RescueAfter < c.JobTimeout {
		c.RescueAfter = c.JobTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// NewInserter makes a client that only inserts jobs: for a node (or a test)
// that asks for work without doing it. Its middleware wraps the inserts
// (tracing: the inserting request's trace into the job's metadata).
func NewInserter(db *sql.DB, middleware ...rivertype.Middleware) (*Client, error) {
	c, err := river.NewClient(riverdatabasesql.New(db), &river.Config{Logger: quiet(), Middleware: middleware})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return c, nil
}

// New makes a client that works every queue with the registered workers.
// Start it with Start; Stop lets running jobs finish (a job not finished by
// then runs again after its timeout).
func New(db *sql.DB, workers *river.Workers, cfg Config) (*Client, error) {
	if workers == nil {
		return nil, errors.New("jobs: no workers")
	}
	cfg = cfg.withDefaults()
	queues := make(map[string]river.QueueConfig, len(Queues))
	for _, q := range Queues {
		queues[q] = river.QueueConfig{MaxWorkers: cfg.Workers}
	}
	queues[QueueWebhooks] = river.QueueConfig{MaxWorkers: max(webhookWorkers, cfg.Workers)}
	c, err := river.NewClient(riverdatabasesql.New(db), &river.Config{
		ID:                   cfg.NodeID,
		Queues:               queues,
		Workers:              workers,
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, 100*time.Millisecond),
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		Logger:               slog.New(chatter{cfg.Logger.Handler()}).With("component", "jobs"),
		// A kind another node works (or a later release) is inserted all
		// the same and left waiting: only kinds this node works are
		// fetched.
		SkipUnknownJobCheck: true,
		FetchOnlyKnownKinds: true,
		PeriodicJobs:        cfg.Periodic,
		Middleware:          cfg.Middleware,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return c, nil
}

// chatter is River's log as Loupe's console shows it: its information
// (the client started, "poll only mode", the producers' job counts every
// few seconds) at debug, its warnings and errors as they are. A person
// watching a node sees the events that matter (LOUPE_LOG_LEVEL=debug
// shows the rest).
type chatter struct{ slog.Handler }

func (c chatter) Enabled(ctx context.Context, l slog.Level) bool {
	return c.Handler.Enabled(ctx, demote(l))
}

func (c chatter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return c.Handler.Handle(ctx, r)
}

func (c chatter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return chatter{c.Handler.WithAttrs(attrs)}
}
func (c chatter) WithGroup(name string) slog.Handler { return chatter{c.Handler.WithGroup(name)} }

func demote(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

// quiet is the logger of insert-only clients, which have nothing to say
// beyond errors their callers return.
func quiet() *slog.Logger {
	return slog.New(slog.DiscardHandler)
}
