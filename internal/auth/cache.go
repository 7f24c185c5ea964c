package auth

import (
	"context"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe/store"
)

// KeyCache keeps looked-up keys in memory, so that a request costs no
// authentication query. It is correct only while it hears every change:
//
//   - changes made by this process call InvalidateUser before they answer
//     (the store's OnAuthChange hook);
//   - changes made anywhere else (another node, psql) reach it through the
//     loupe_auth notification that triggers on the key, user and group
//     tables send (migration 00013) naming the user concerned: the node's
//     listener (internal/coherence) calls InvalidateUser, and a node that
//     deletes or revokes a key does not answer until every node has
//     (coherence.Node.Sync), so the key fails on any node's very next
//     request;
//   - while the gate is closed (the listener down, the node's lease run
//     out), nothing is cached: every lookup asks the database, as without
//     a cache.
//
// An entry read from the database is kept only if no invalidation happened
// while it was being read, so a lookup racing a change cannot store what
// the change made stale.
type KeyCache struct {
	next KeyLookup
	max  int
	gate Gate

	mu    sync.Mutex
	gen   uint64 // bumped by every invalidation
	byKey map[string]*store.KeyRecord
}

// Gate says whether a node's caches may answer (coherence.Node.Live).
type Gate interface{ Live() bool }

// NewKeyCache caches up to max keys of next while gate is open.
func NewKeyCache(next KeyLookup, max int, gate Gate) *KeyCache {
	return &KeyCache{next: next, max: max, gate: gate, byKey: map[string]*store.KeyRecord{}}
}

// KeyByID answers from memory when it can.
func (c *KeyCache) KeyByID(ctx context.Context, keyID string) (*store.KeyRecord, error) {
	// The gate first: a gate that opens again has forgotten everything
	// before it opens, so an entry read after an open gate is current.
	live := c.gate.Live()
	c.mu.Lock()
	k, ok := c.byKey[keyID]
	gen := c.gen
	c.mu.Unlock()
	if ok && live {
		return k, nil
	}
	k, err := c.next.KeyByID(ctx, keyID)
	if err != nil || !live {
		return k, err
	}
	c.mu.Lock()
	if c.gen == gen && c.gate.Live() {
		if len(c.byKey) >= c.max {
			// Rarely reached (one entry per key in use); emptying is simpler
			// than an eviction order and costs one query per key.
			clear(c.byKey)
		}
		c.byKey[keyID] = k
	}
	c.mu.Unlock()
	return k, nil
}

// Invalidate forgets every cached key.
func (c *KeyCache) Invalidate() {
	c.mu.Lock()
	c.gen++
	clear(c.byKey)
	c.mu.Unlock()
}

// InvalidateUser forgets the keys of one user; an empty user forgets every
// key.
func (c *KeyCache) InvalidateUser(tenantID, userID string) {
	if userID == "" {
		c.Invalidate()
		return
	}
	c.mu.Lock()
	c.gen++
	for id, k := range c.byKey {
		if k.UserID == userID && k.TenantID == tenantID {
			delete(c.byKey, id)
		}
	}
	c.mu.Unlock()
}

// Notified applies a loupe_auth payload ("<tenant>:<user>", "" for every
// key).
func (c *KeyCache) Notified(payload string) {
	tenant, user, _ := strings.Cut(payload, ":")
	c.InvalidateUser(tenant, user)
}

// Live reports whether keys are being cached.
func (c *KeyCache) Live() bool { return c.gate.Live() }

// Channel is the notification channel of authentication changes.
const Channel = "loupe_auth"
