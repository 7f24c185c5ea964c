package coherence

import (
	"context"
	"sync"
)

// Gate says whether a node's caches may answer (Node.Live).
type Gate interface{ Live() bool }

// Cache is what a node keeps of the database (API keys, forms): it answers
// from memory only while its gate is open, and a read is kept only if
// nothing was forgotten while it was being read, so a read racing a change
// cannot store what the change made stale. The node's listener calls
// Forget for every change it hears.
type Cache[K comparable, V any] struct {
	gate Gate
	max  int

	mu  sync.Mutex
	gen uint64 // bumped by every Forget
	m   map[K]V
}

// NewCache keeps up to max entries while gate is open.
func NewCache[K comparable, V any](gate Gate, max int) *Cache[K, V] {
	return &Cache[K, V]{gate: gate, max: max, m: map[K]V{}}
}

// Get answers key from memory when it can, else with read; what read
// answers is kept when keep says so (nil: always).
func (c *Cache[K, V]) Get(ctx context.Context, key K, read func(context.Context) (V, error), keep func(V) bool) (V, error) {
	// The gate first: a gate that opens again has forgotten everything
	// before it opens, so an entry found after an open gate is current.
	live := c.gate.Live()
	c.mu.Lock()
	v, ok := c.m[key]
	gen := c.gen
	c.mu.Unlock()
	if ok && live {
		return v, nil
	}
	v, err := read(ctx)
	if err != nil || !live || keep != nil && !keep(v) {
		return v, err
	}
	c.mu.Lock()
	if c.gen == gen && c.gate.Live() {
		if len(c.m) >= c.max {
			// Rarely reached (one entry per key or form in use); emptying
			// is simpler than an eviction order and costs one read each.
			clear(c.m)
		}
		c.m[key] = v
	}
	c.mu.Unlock()
	return v, nil
}

// Forget forgets the entries match holds to (nil: every entry).
func (c *Cache[K, V]) Forget(match func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if match == nil {
		clear(c.m)
		return
	}
	for k, v := range c.m {
		if match(k, v) {
			delete(c.m, k)
		}
	}
}

// Live reports whether the cache answers from memory.
func (c *Cache[K, V]) Live() bool { return c.gate.Live() }
