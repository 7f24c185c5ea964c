// Package feed is a node's reader of the outbox (docs/events.md): it wakes
// on the database's notification that a transaction wrote events, and at
// least every second besides, reads everything committed after its cursor
// in order, and hands each event to this node's subscribers. A missed
// notification costs latency, never an event: the cursor, not the
// notification, says what is new.
//
// A subscriber that does not keep up is dropped (its channel closes, Err
// says why) rather than slowing the node: it resumes from the last event
// it saw, which the outbox still holds.
package feed

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/store"
)

// Channel is the notification channel the outbox's trigger signals
// (migrations/00026_events.sql).
const Channel = "loupe_events"

// PollInterval is the longest the feed goes without reading.
const PollInterval = time.Second

// batch is how many events one read takes.
const batch = 500

// ErrSlow ends a subscription whose buffer filled up.
var ErrSlow = errors.New("the subscriber did not keep up with the events; resume from the last event received")

// Reader is what the feed reads (the store).
type Reader interface {
	EventsAfter(ctx context.Context, after loupe.EventCursor, limit int) ([]*store.Event, bool, error)
	EventsHead(ctx context.Context) (loupe.EventCursor, error)
	EventsHeldBack(ctx context.Context, after loupe.EventCursor) (bool, error)
}

// coalesce is how long a wake-up waits for the next ones before reading:
// under a stream of commits the feed reads a batch per window, not one
// read per commit, for a few milliseconds of latency.
const coalesce = 5 * time.Millisecond

// Backoffs of a read again when committed events wait behind an older
// transaction (Store.EventsHeldBack).
const (
	firstRetry = 5 * time.Millisecond
	lastRetry  = 200 * time.Millisecond
)

// Feed reads the outbox for one node.
type Feed struct {
	r   Reader
	log *slog.Logger
	// Metrics, set before Run, records the events read and how far
	// behind the reads are (nil: nothing).
	Metrics *metrics.Metrics

	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	cursor loupe.EventCursor
	// idle is set while nobody subscribes: the feed then does not read
	// (the writes it follows pay for every read), and the next Subscribe
	// moves the cursor to the head first.
	idle bool
	// followers are the durable readers' wake-ups (Follow): they read
	// the outbox themselves and need only know that it changed.
	followers map[chan struct{}]struct{}
	// started closes once the cursor is set (Run has read the head).
	started chan struct{}
	wake    chan struct{}
}

// New makes a feed; Run starts it.
func New(r Reader, log *slog.Logger) *Feed {
	return &Feed{r: r, log: log, subs: map[*Subscription]struct{}{}, started: make(chan struct{}),
		wake: make(chan struct{}, 1), followers: map[chan struct{}]struct{}{}}
}

// Subscription receives every event the feed reads after it began.
type Subscription struct {
	f   *Feed
	c   chan *store.Event
	err error
}

// Subscribe starts a subscription with room for buffer events waiting.
// It blocks until the feed has started (so that "after now" is defined)
// or ctx ends. It answers the cursor it starts after: an event at or
// before it is not delivered (a resuming caller reads those from the
// outbox itself).
func (f *Feed) Subscribe(ctx context.Context, buffer int) (*Subscription, loupe.EventCursor, error) {
	select {
	case <-f.started:
	case <-ctx.Done():
		return nil, loupe.EventCursor{}, ctx.Err()
	}
	s := &Subscription{f: f, c: make(chan *store.Event, buffer)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle {
		head, err := f.r.EventsHead(ctx)
		if err != nil {
			return nil, loupe.EventCursor{}, err
		}
		f.cursor, f.idle = head, false
	}
	f.subs[s] = struct{}{}
	return s, f.cursor, nil
}

// C is where events arrive; it closes when the subscription ends.
func (s *Subscription) C() <-chan *store.Event { return s.c }

// Err says why C closed: ErrSlow, or nil after Close.
func (s *Subscription) Err() error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return s.err
}

// Close ends the subscription.
func (s *Subscription) Close() { s.f.drop(s, nil) }

func (f *Feed) drop(s *Subscription, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[s]; !ok {
		return
	}
	delete(f.subs, s)
	s.err = err
	close(s.c)
}

// Wake makes the feed read now (the notification does it across nodes).
func (f *Feed) Wake() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Run reads the outbox until ctx ends, starting at its head: listening on
// Channel through dsn (any node's writes wake it), polling every
// PollInterval besides.
func (f *Feed) Run(ctx context.Context, dsn string) {
	l := pq.NewListener(dsn, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		if ev == pq.ListenerEventConnectionAttemptFailed && ctx.Err() == nil {
			f.log.Warn("events feed: no notification connection; reading every second", "err", err)
		}
	})
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	go func() {
		if err := l.Listen(Channel); err != nil && ctx.Err() == nil {
			f.log.Warn("events feed: cannot listen; reading every second", "err", err)
		}
	}()
	go func() {
		for range l.Notify {
			f.Wake() // nil too (a reconnection): something may have been missed
		}
	}()
	for {
		head, err := f.r.EventsHead(ctx)
		if err == nil {
			f.mu.Lock()
			f.cursor = head
			f.mu.Unlock()
			close(f.started)
			break
		}
		if ctx.Err() != nil {
			return
		}
		f.log.Warn("events feed: cannot read the outbox's head; trying again", "err", err)
		if !sleep(ctx, PollInterval) {
			return
		}
	}
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	backoff := firstRetry
	for {
		var retry <-chan time.Time
		if f.read(ctx) {
			retry = time.After(backoff)
			backoff = min(2*backoff, lastRetry)
		} else {
			backoff = firstRetry
		}
		select {
		case <-ctx.Done():
			f.closeAll()
			return
		case <-f.wake:
			if !sleep(ctx, coalesce) {
				f.closeAll()
				return
			}
			select {
			case <-f.wake:
			default:
			}
		case <-tick.C:
		case <-retry:
		}
	}
}

// read hands every event after the cursor to the subscribers, and tells
// the followers the outbox changed. It answers whether committed events
// wait behind an older transaction (read again soon).
func (f *Feed) read(ctx context.Context) bool {
	f.mu.Lock()
	for c := range f.followers {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	f.mu.Unlock()
	for {
		f.mu.Lock()
		if len(f.subs) == 0 {
			f.idle = true
			f.mu.Unlock()
			f.Metrics.EventsRead(0, time.Time{}) // nobody waits on it
			return false
		}
		after := f.cursor
		f.mu.Unlock()
		events, held, err := f.r.EventsAfter(ctx, after, batch)
		if err != nil {
			if ctx.Err() == nil {
				f.log.Warn("events feed: cannot read the outbox", "err", err)
			}
			return false
		}
		if len(events) == 0 {
			f.Metrics.EventsRead(0, time.Time{})
			held, err := f.r.EventsHeldBack(ctx, after)
			return err == nil && held
		}
		f.Metrics.EventsRead(len(events), events[len(events)-1].OccurredOn)
		f.mu.Lock()
		f.cursor = events[len(events)-1].Cursor()
		for s := range f.subs {
			for _, e := range events {
				select {
				case s.c <- e:
					continue
				default:
				}
				delete(f.subs, s)
				s.err = ErrSlow
				close(s.c)
				break
			}
		}
		f.mu.Unlock()
		if len(events) < batch {
			return held
		}
	}
}

func (f *Feed) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		delete(f.subs, s)
		close(s.c)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// follow registers a durable reader's wake-up.
func (f *Feed) follow() (chan struct{}, func()) {
	c := make(chan struct{}, 1)
	f.mu.Lock()
	f.followers[c] = struct{}{}
	f.mu.Unlock()
	return c, func() {
		f.mu.Lock()
		delete(f.followers, c)
		f.mu.Unlock()
	}
}

// Follow runs step — one batch of a durable reader of the outbox — until
// it reports fewer than batch events, whenever the outbox changed and
// every PollInterval besides (another node holding the reader may have
// let go), until ctx ends.
func Follow(ctx context.Context, f *Feed, batch int, log *slog.Logger, name string, step func(context.Context) (int, error)) {
	wake, stop := f.follow()
	defer stop()
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	var last time.Time // the last step's start
	for ctx.Err() == nil {
		last = time.Now()
		for ctx.Err() == nil {
			n, err := step(ctx)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn(name+": cannot handle events; trying again", "err", err)
				}
				break
			}
			if n < batch {
				break
			}
		}
		select {
		case <-ctx.Done():
		case <-wake:
			// At most a step per window, not a transaction per commit:
			// under a stream of writes the readers' own (their cursor)
			// would cost the writes they follow (docs/events.md). After
			// a quiet spell the first event is handled at once.
			sleep(ctx, followWindow-time.Since(last))
			select {
			case <-wake:
			default:
			}
		case <-tick.C:
		}
	}
}

// followWindow is the least time between a durable reader's steps: under
// load notifications and webhooks leave up to this much later, a
// transaction per window instead of one per commit.
const followWindow = 250 * time.Millisecond
