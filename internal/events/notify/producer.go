package notify

import (
	"context"
	"log/slog"
	"time"

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
// every second besides (another node's lock may have just gone).
func (p *Producer) Run(ctx context.Context) {
	var wake <-chan *store.Event
	var sub *feed.Subscription
	tick := time.NewTicker(feed.PollInterval)
	defer tick.Stop()
	for ctx.Err() == nil {
		if sub == nil {
			if s, _, err := p.Feed.Subscribe(ctx, 1024); err == nil {
				sub, wake = s, s.C()
			}
		}
		p.drain(ctx)
		select {
		case <-ctx.Done():
		case _, ok := <-wake:
			if !ok { // dropped for being slow: the reader's cursor lost nothing
				sub, wake = nil, nil
			}
			for len(wake) > 0 {
				<-wake
			}
		case <-tick.C:
		}
	}
	if sub != nil {
		sub.Close()
	}
}

// drain handles batches until none is left.
func (p *Producer) drain(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := p.Store.NotifyFromEvents(ctx, batch, p.decide)
		if err != nil {
			if ctx.Err() == nil {
				p.Log.Warn("notifications: cannot handle events; trying again", "err", err)
			}
			return
		}
		if n < batch {
			return
		}
	}
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
