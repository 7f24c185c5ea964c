package auth

import (
	"context"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/store"
)

// countingLookup answers a fixed record and counts the questions; during
// is called while a lookup is in flight (to race an invalidation).
type countingLookup struct {
	mu     sync.Mutex
	asked  int
	during func()
}

func (l *countingLookup) KeyByID(_ context.Context, id string) (*store.KeyRecord, error) {
	l.mu.Lock()
	l.asked++
	during := l.during
	l.mu.Unlock()
	if during != nil {
		during()
	}
	return &store.KeyRecord{KeyID: id}, nil
}

func (l *countingLookup) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked
}

// gate is a node's gate, opened and closed by the test.
type gate struct{ open bool }

func (g *gate) Live() bool { return g.open }

// opened opens the gate (as a node's listener registering).
func (g *gate) opened() { g.open = true }

// shut closes c's gate g, forgetting (as a node's listener lost).
func shut(c *KeyCache, g *gate) {
	g.open = false
	c.Invalidate()
}

func TestKeyCache(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// run looks keys up and returns how many lookups reached the store.
		run  func(c *KeyCache, l *countingLookup, g *gate)
		want int
	}{
		{"a live cache asks once per key", func(c *KeyCache, _ *countingLookup, g *gate) {
			g.opened()
			for range 3 {
				c.KeyByID(ctx, "a")
				c.KeyByID(ctx, "b")
			}
		}, 2},
		{"a cache without its listener keeps nothing", func(c *KeyCache, _ *countingLookup, g *gate) {
			for range 3 {
				c.KeyByID(ctx, "a")
			}
		}, 3},
		{"invalidation forgets every key", func(c *KeyCache, _ *countingLookup, g *gate) {
			g.opened()
			c.KeyByID(ctx, "a")
			c.Invalidate()
			c.KeyByID(ctx, "a")
			c.KeyByID(ctx, "a")
		}, 2},
		{"a lookup racing an invalidation is not kept", func(c *KeyCache, l *countingLookup, g *gate) {
			g.opened()
			l.during = c.Invalidate // the change lands while the row is read
			c.KeyByID(ctx, "a")
			l.during = nil
			c.KeyByID(ctx, "a")
			c.KeyByID(ctx, "a")
		}, 2},
		{"losing the listener stops caching and forgets", func(c *KeyCache, _ *countingLookup, g *gate) {
			g.opened()
			c.KeyByID(ctx, "a")
			shut(c, g)
			c.KeyByID(ctx, "a")
			c.KeyByID(ctx, "a")
		}, 3},
		{"a closed gate answers nothing from memory (a lease run out)", func(c *KeyCache, _ *countingLookup, g *gate) {
			g.opened()
			c.KeyByID(ctx, "a")
			g.open = false // nothing forgotten
			c.KeyByID(ctx, "a")
			c.KeyByID(ctx, "a")
		}, 3},
		{"a full cache starts over", func(c *KeyCache, _ *countingLookup, g *gate) {
			g.opened() // max 2
			c.KeyByID(ctx, "a")
			c.KeyByID(ctx, "b")
			c.KeyByID(ctx, "c") // empties, keeps c
			c.KeyByID(ctx, "c")
			c.KeyByID(ctx, "a")
		}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := &countingLookup{}
			g := &gate{}
			c := NewKeyCache(l, 2, g)
			tc.run(c, l, g)
			if got := l.count(); got != tc.want {
				t.Fatalf("store asked %d times, want %d", got, tc.want)
			}
		})
	}
}
