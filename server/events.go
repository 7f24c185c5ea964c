package server

import (
	"context"
	"log/slog"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe/internal/events/feed"
	"github.com/loupe-mam/loupe/internal/events/notify"
	"github.com/loupe-mam/loupe/internal/events/webhooks"
	"github.com/loupe-mam/loupe/store"
)

// startEvents starts this node's reader of the outbox (the feed) and its
// share of the notifications and webhooks readers, until ctx ends (docs/events.md).
// Without a database URL to listen on there is neither (nil).
func startEvents(ctx context.Context, cfg Config, st *store.Store, logger *slog.Logger) *feed.Feed {
	if cfg.DatabaseURL == "" {
		return nil
	}
	// The readers work on the job queue's pool where there is one: their
	// polling is not the statements of a request.
	if cfg.JobsDB != nil {
		st = st.On(sqlx.NewDb(cfg.JobsDB, "postgres"))
	}
	f := feed.New(st, logger)
	f.Metrics = cfg.Metrics
	go f.Run(ctx, store.DSN(cfg.DatabaseURL))
	go (&notify.Producer{Store: st, Feed: f, Log: logger}).Run(ctx)
	go (&webhooks.Dispatcher{Store: st, Feed: f, Log: logger}).Run(ctx)
	return f
}

// webhookGuard is what webhooks may reach and how their secrets are kept.
func webhookGuard(cfg Config) *webhooks.Guard {
	return &webhooks.Guard{Box: cfg.Credentials, AllowPrivate: cfg.AllowPrivateWebhooks}
}
