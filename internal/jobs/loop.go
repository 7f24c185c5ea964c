package jobs

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"
)

// Every runs tick every interval (and up to a fifth more, so that nodes
// started together keep apart) until ctx ends, logging a failed tick as
// what's: the schedulers that are loops on every working node rather than
// periodic jobs, so that an idle cluster inserts nothing (the replication
// scheduler, the live pipelines' measurements).
func Every(ctx context.Context, interval time.Duration, logger *slog.Logger, what string, tick func(context.Context) error) {
	if logger == nil {
		logger = slog.Default()
	}
	for {
		wait := interval + time.Duration(rand.Int64N(int64(interval/5)+1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if err := tick(ctx); err != nil && ctx.Err() == nil {
			logger.Warn(what+" failed", "error", err)
		}
	}
}
