package replicate

import (
	"context"
	"log/slog"

	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// Scheduler is the replication scheduler, a loop on every working node:
// each tick it hands the items of new outbox events to the sources with
// the ingest trigger, asks for the scheduled runs that are due, and asks
// for a new job for each transfer whose lease was not renewed (its node
// died), which resumes it. Every step is a transaction of its own that
// takes its rows with SKIP LOCKED, so nodes ticking at once share the work
// and none is done twice. It is a loop rather than a periodic job so that
// an idle cluster inserts nothing.
type Scheduler struct {
	Store  *store.Store
	Config Config
	Logger *slog.Logger
}

// Limits of one tick.
const (
	tickEventBatch   = 500
	tickEventBatches = 20
	tickDue          = 100
	tickStale        = 100
)

// Run ticks until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	jobs.Every(ctx, s.Config.withDefaults().Tick, s.Logger, "replication: tick", s.Tick)
}

// Tick runs the scheduler's steps once.
func (s *Scheduler) Tick(ctx context.Context) error {
	c := s.Config.withDefaults()
	for range tickEventBatches {
		n, err := s.Store.ReplicateNewMedia(ctx, tickEventBatch)
		if err != nil {
			return err
		}
		if n < tickEventBatch {
			break
		}
	}
	if _, err := s.Store.StartDueReplication(ctx, tickDue); err != nil {
		return err
	}
	_, err := s.Store.TakeOverStaleTransfers(ctx, c.LeaseTTL, tickStale)
	return err
}
