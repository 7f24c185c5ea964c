package live

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// Scheduler measures every pipeline again on its interval: a loop on
// every working node that takes the due measurements with SKIP LOCKED
// under a lease (nodes ticking at once share them, none measures one
// twice; a node that dies lets its lease lapse) — a loop rather than a
// periodic job so that a cluster without pipelines inserts nothing.
type Scheduler struct {
	Store   *store.Store
	Service *Service
	Logger  *slog.Logger
}

// tick is how often the loop looks for due measurements: a quarter of the
// interval, 100 ms to 5 s.
func (c Config) tick() time.Duration {
	return min(max(c.ProbeInterval/4, 100*time.Millisecond), 5*time.Second)
}

// Run ticks until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	jobs.Every(ctx, s.Service.Config().tick(), s.Logger, "live: measurements", s.Tick)
}

// Tick takes the due measurements (up to the concurrency, twice over) and
// makes them.
func (s *Scheduler) Tick(ctx context.Context) error {
	c := s.Service.Config()
	due, err := s.Store.ClaimDueLivePipelines(ctx, 2*c.Concurrency, time.Now().Add(2*c.ProbeTimeout+resolveTimeout))
	if err != nil {
		return err
	}
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, p := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func(p *loupe.LivePipeline) {
			defer func() { <-sem; wg.Done() }()
			if err := s.Service.Record(ctx, s.Store, p); err != nil {
				mu.Lock()
				first = cmpErr(first, err)
				mu.Unlock()
			}
		}(p)
	}
	wg.Wait()
	return first
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Record measures p now and writes the measurement, the next due an
// interval later (dropped when p changed meanwhile: what it measured is
// no longer p's).
func (s *Service) Record(ctx context.Context, st *store.Store, p *loupe.LivePipeline) error {
	r := s.Measure(ctx, p)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_, err := st.LiveProbed(ctx, p.TenantID, p.ID, p.ModifiedOn, r, r.CheckedOn.Add(s.cfg.ProbeInterval))
	return err
}
