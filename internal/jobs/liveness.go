package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// Liveness moves a dead node's jobs on fast. Each node working the queue
// writes a heartbeat (job_nodes) every Beat; every node, at each of its
// beats, makes available again the jobs still running on a node whose
// heartbeat is older than DeadAfter, as River's rescuer would after the
// job's whole timeout (for a transcode, minutes). A taken-over job runs
// again from its start, or from what its worker kept (a transfer's parts,
// a long video proxy's segments); the earlier attempt, if its node was
// only cut off and goes on, cannot write its result over the new one: each
// worker's result write is fenced by a token of the attempt's own (a
// processing run's runKey, a transfer's lease; docs/scaling.md).
type Liveness struct {
	DB     *sql.DB
	NodeID string
	// Beat is how often the heartbeat is written and dead nodes looked for
	// (default 5 s); DeadAfter is how old a heartbeat makes a node dead
	// (default 15 s: three missed beats).
	Beat, DeadAfter time.Duration
	Logger          *slog.Logger
}

const (
	// beatSQL writes this node's heartbeat.
	beatSQL = `
INSERT INTO job_nodes (node, started_at, heartbeat_at) VALUES ($1, now(), now())
ON CONFLICT (node) DO UPDATE SET heartbeat_at = now()`

	// takeOverSQL makes the jobs running on dead nodes available again
	// now (discarded when that was their last attempt), with an error
	// saying why, as River's rescuer records one. A job locked by another
	// node's takeover at the same moment is left to it.
	takeOverSQL = `
WITH dead AS (
    SELECT node FROM job_nodes WHERE heartbeat_at < now() - make_interval(secs => $1)
), stuck AS (
    SELECT j.id FROM river_job j
    WHERE j.state = 'running' AND j.attempted_by[array_length(j.attempted_by, 1)] IN (SELECT node FROM dead)
    FOR UPDATE OF j SKIP LOCKED
)
UPDATE river_job j SET
    state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded'::river_job_state ELSE 'available'::river_job_state END,
    scheduled_at = now(),
    finalized_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
    errors = array_append(j.errors, jsonb_build_object('at', now(), 'attempt', j.attempt,
        'error', 'taken over: node ' || j.attempted_by[array_length(j.attempted_by, 1)] || ' stopped its heartbeat', 'trace', '')),
    metadata = j.metadata || jsonb_build_object('loupe:takeovers',
        coalesce((j.metadata->>'loupe:takeovers')::int, 0) + 1)
FROM stuck WHERE j.id = stuck.id
RETURNING j.id, j.kind, j.attempted_by[array_length(j.attempted_by, 1)]`

	// forgetSQL drops nodes dead for a day with nothing left running.
	forgetSQL = `
DELETE FROM job_nodes n WHERE heartbeat_at < now() - interval '1 day'
AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.state = 'running' AND n.node = ANY (j.attempted_by))`
)

func (l *Liveness) withDefaults() {
	if l.Beat <= 0 {
		l.Beat = 5 * time.Second
	}
	if l.DeadAfter <= 0 {
		l.DeadAfter = 3 * l.Beat
	}
	if l.Logger == nil {
		l.Logger = slog.Default()
	}
}

// Run beats until ctx ends. After it, the node's heartbeat ages: jobs it
// left running are taken over DeadAfter later.
func (l *Liveness) Run(ctx context.Context) {
	l.withDefaults()
	t := time.NewTicker(l.Beat)
	defer t.Stop()
	for n := 0; ; n++ {
		if err := l.beat(ctx, n%720 == 0); err != nil && ctx.Err() == nil {
			l.Logger.Warn("jobs: heartbeat", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// beat writes the heartbeat and takes over dead nodes' jobs (forgetting
// long-dead nodes when tidy).
func (l *Liveness) beat(ctx context.Context, tidy bool) error {
	ctx, cancel := context.WithTimeout(ctx, l.Beat)
	defer cancel()
	if _, err := l.DB.ExecContext(ctx, beatSQL, l.NodeID); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	rows, err := l.DB.QueryContext(ctx, takeOverSQL, l.DeadAfter.Seconds())
	if err != nil {
		return fmt.Errorf("take over: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var kind, node string
		if err := rows.Scan(&id, &kind, &node); err != nil {
			return err
		}
		l.Logger.Info("jobs: took over a job of a dead node", "job", id, "kind", kind, "node", node)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if tidy {
		if _, err := l.DB.ExecContext(ctx, forgetSQL); err != nil {
			return fmt.Errorf("forget: %w", err)
		}
	}
	return nil
}
