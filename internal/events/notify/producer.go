package notify

import (
	"context"
	"log/slog"

	"github.com/loupe-mam/loupe/internal/events/feed"
	"github.com/loupe-mam/loupe/store"
)

// batch is how many events one transaction of the reader handles.
const batch = 200

// Producer runs the notifications reader on a node. Every node runs one;
// the reader's lock lets one work at a time, and a node that dies
// mid-batch leaves the batch to the next (its transaction rolls back).
type Producer struct {
	Store *store.Store
	Feed  *feed.Feed
	Log   *slog.Logger
}

// Run handles events until ctx ends: whenever the feed reads some, and
// every second besides.
func (p *Producer) Run(ctx context.Context) {
	feed.Follow(ctx, p.Feed, batch, p.Log, "notifications", func(ctx context.Context) (int, error) {
		return p.Store.NotifyFromEvents(ctx, batch, p.decide)
	})
}

// decide reads the batch's facts and applies the rules.
func (p *Producer) decide(ctx context.Context, events []*store.Event) ([]store.NewNotification, error) {
	items, comments := Wants(events)
	facts, err := p.Store.NoticeFactsOf(ctx, items, comments, nil)
	if err != nil {
		return nil, err
	}
	if emails := WantsMentions(events, facts); len(emails) > 0 {
		users, err := p.Store.NoticeFactsOf(ctx, nil, nil, emails)
		if err != nil {
			return nil, err
		}
		facts.Users = users.Users
	}
	return Rules(events, facts), nil
}
