// Package retention keeps the outbox to its retention (docs/events.md):
// a periodic job deletes the events older than that, in short batches so
// that no long transaction holds the readers back.
package retention

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/jobs"
)

// Default is how long events are kept without a setting
// (LOUPE_EVENTS_RETENTION_DAYS): a week, long enough for a receiver or a
// client that was away over a weekend to catch up.
const Default = 7 * 24 * time.Hour

// Notices is how long users' notifications are kept: a quarter, longer
// than the events they are made from (an inbox is read later than a feed).
const Notices = 90 * 24 * time.Hour

// every is how often the job runs.
const every = time.Hour

// Pruner is what the job needs of the store.
type Pruner interface {
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
	PruneNotifications(ctx context.Context, before time.Time) (int64, error)
	PruneShareSessions(ctx context.Context, before time.Time) (int64, error)
}

// Worker deletes the events older than Keep, the notifications older
// than Notices, and shares' sessions that ended (docs/shares.md).
type Worker struct {
	river.WorkerDefaults[jobs.PruneEventsArgs]
	Store Pruner
	Keep  time.Duration
}

// Work deletes what is older than the retention.
func (w *Worker) Work(ctx context.Context, _ *river.Job[jobs.PruneEventsArgs]) error {
	if _, err := w.Store.PruneEvents(ctx, time.Now().Add(-w.Keep)); err != nil {
		return err
	}
	if _, err := w.Store.PruneNotifications(ctx, time.Now().Add(-Notices)); err != nil {
		return err
	}
	_, err := w.Store.PruneShareSessions(ctx, time.Now())
	return err
}

// Timeout bounds one run: batches of a big backlog take a while.
func (w *Worker) Timeout(*river.Job[jobs.PruneEventsArgs]) time.Duration { return 10 * time.Minute }

// Periodic is the job's schedule: hourly, and once when a leader starts.
func Periodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
		return jobs.PruneEventsArgs{}, &river.InsertOpts{Queue: jobs.QueueBulk,
			UniqueOpts: river.UniqueOpts{ByPeriod: every}}
	}, &river.PeriodicJobOpts{RunOnStart: true})
}
