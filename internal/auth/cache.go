package auth

import (
	"context"
	"strings"

	"github.com/loupe-mam/loupe/internal/coherence"
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
// Entries are kept by coherence.Cache: only while the gate is open, and
// only if nothing was forgotten while they were read.
type KeyCache struct {
	next KeyLookup
	keys *coherence.Cache[string, *store.KeyRecord]
}

// NewKeyCache caches up to max keys of next while gate is open.
func NewKeyCache(next KeyLookup, max int, gate coherence.Gate) *KeyCache {
	return &KeyCache{next: next, keys: coherence.NewCache[string, *store.KeyRecord](gate, max)}
}

// KeyByID answers from memory when it can.
func (c *KeyCache) KeyByID(ctx context.Context, keyID string) (*store.KeyRecord, error) {
	return c.keys.Get(ctx, keyID, func(ctx context.Context) (*store.KeyRecord, error) {
		return c.next.KeyByID(ctx, keyID)
	}, nil)
}

// Invalidate forgets every cached key.
func (c *KeyCache) Invalidate() { c.keys.Forget(nil) }

// InvalidateUser forgets the keys of one user; an empty user forgets every
// key.
func (c *KeyCache) InvalidateUser(tenantID, userID string) {
	if userID == "" {
		c.Invalidate()
		return
	}
	c.keys.Forget(func(_ string, k *store.KeyRecord) bool { return k.UserID == userID && k.TenantID == tenantID })
}

// Notified applies a loupe_auth payload ("<tenant>:<user>", "" for every
// key).
func (c *KeyCache) Notified(payload string) {
	tenant, user, _ := strings.Cut(payload, ":")
	c.InvalidateUser(tenant, user)
}

// Live reports whether keys are being cached.
func (c *KeyCache) Live() bool { return c.keys.Live() }

// Channel is the notification channel of authentication changes.
const Channel = "loupe_auth"
