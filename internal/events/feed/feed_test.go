package feed

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// outbox is a Reader over events held in memory.
type outbox struct {
	mu     sync.Mutex
	events []*store.Event
	reads  atomic.Int64
}

func (o *outbox) add(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for range n {
		o.events = append(o.events, &store.Event{Tx: 1, Seq: int64(len(o.events) + 1)})
	}
}

func (o *outbox) EventsAfter(_ context.Context, after loupe.EventCursor, limit int) ([]*store.Event, bool, error) {
	o.reads.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*store.Event
	for _, e := range o.events {
		if e.Seq > after.Seq && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, false, nil
}

func (o *outbox) EventsHeldBack(context.Context, loupe.EventCursor) (bool, error) { return false, nil }

func (o *outbox) EventsHead(context.Context) (loupe.EventCursor, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.events) == 0 {
		return loupe.EventCursor{}, nil
	}
	return o.events[len(o.events)-1].Cursor(), nil
}

// A subscriber gets what the feed reads after it subscribed, in order; one
// that lets its buffer fill is dropped with ErrSlow, and the others go on.
func TestFeedDropsTheSlowSubscriber(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &outbox{}
	o.add(3) // before anyone listens: not delivered
	f := New(o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go f.Run(ctx, "postgres://127.0.0.1:1/none?connect_timeout=1") // no database: it polls
	fast, start, err := f.Subscribe(ctx, 100)
	if err != nil || start.Seq != 3 {
		t.Fatalf("subscribed at %v, %v; want after the head (3)", start, err)
	}
	slow, _, _ := f.Subscribe(ctx, 2)
	o.add(5)
	f.Wake()
	for want := int64(4); want <= 8; want++ {
		select {
		case e := <-fast.C():
			if e.Seq != want {
				t.Fatalf("got event %d, want %d", e.Seq, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d never came", want)
		}
	}
	n := 0
	for range slow.C() { // closes after what its buffer held
		n++
	}
	if n != 2 || slow.Err() != ErrSlow {
		t.Fatalf("the slow subscriber got %d events and %v; want 2 and ErrSlow", n, slow.Err())
	}
	fast.Close()
	if _, ok := <-fast.C(); ok || fast.Err() != nil {
		t.Fatalf("after Close: open %v, err %v", ok, fast.Err())
	}
}

// While nobody subscribes the feed does not read the outbox (the writes
// pay for each read), yet wakes its followers; a subscriber after that
// starts at the head, not where the feed stopped.
func TestFeedIdlesWithoutSubscribers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &outbox{}
	f := New(o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	woke := make(chan struct{}, 100)
	go Follow(ctx, f, 10, f.log, "test", func(context.Context) (int, error) {
		woke <- struct{}{}
		return 0, nil
	})
	go f.Run(ctx, "postgres://127.0.0.1:1/none?connect_timeout=1")
	<-woke // Follow's first step
	sub, _, _ := f.Subscribe(ctx, 10)
	sub.Close()
	o.add(4)
	reads := o.reads.Load()
	f.Wake()
	select {
	case <-woke:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower was not woken")
	}
	if n := o.reads.Load() - reads; n != 0 {
		t.Fatalf("the feed read the outbox %d times with no subscriber", n)
	}
	sub, start, err := f.Subscribe(ctx, 10)
	if err != nil || start.Seq != 4 {
		t.Fatalf("subscribed at %v, %v; want after the head (4)", start, err)
	}
	o.add(1)
	f.Wake()
	select {
	case e := <-sub.C():
		if e.Seq != 5 {
			t.Fatalf("got event %d, want 5", e.Seq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("event 5 never came")
	}
}
