package auth

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe/store"
)

// KeyCache keeps looked-up keys in memory, so that a request costs no
// authentication query. It is correct only while it hears every change:
//
//   - changes made by this process call InvalidateUser before they answer
//     (the store's OnAuthChange hook), so a key deleted here fails on the
//     very next request;
//   - changes made anywhere else (another server, psql) reach it through
//     the loupe_auth notification that triggers on the key, user and group
//     tables send (migration 00013) naming the user concerned, within the
//     notification's delivery time;
//   - while the listening connection is down, nothing is cached: every
//     lookup asks the database, as without a cache.
//
// An entry read from the database is kept only if no invalidation happened
// while it was being read, so a lookup racing a change cannot store what
// the change made stale.
type KeyCache struct {
	next KeyLookup
	max  int

	mu    sync.Mutex
	gen   uint64 // bumped by every invalidation
	live  bool   // the listener is connected
	byKey map[string]*store.KeyRecord
}

// NewKeyCache caches up to max keys of next; it caches nothing until Listen
// has connected.
func NewKeyCache(next KeyLookup, max int) *KeyCache {
	return &KeyCache{next: next, max: max, byKey: map[string]*store.KeyRecord{}}
}

// KeyByID answers from memory when it can.
func (c *KeyCache) KeyByID(ctx context.Context, keyID string) (*store.KeyRecord, error) {
	c.mu.Lock()
	k, ok := c.byKey[keyID]
	gen, live := c.gen, c.live
	c.mu.Unlock()
	if ok {
		return k, nil
	}
	k, err := c.next.KeyByID(ctx, keyID)
	if err != nil || !live {
		return k, err
	}
	c.mu.Lock()
	if c.gen == gen && c.live {
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
func (c *KeyCache) Invalidate() { c.setLive(nil) }

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

// Live reports whether keys are being cached (the listener is connected).
func (c *KeyCache) Live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// setLive forgets every key and, when live is given, records whether the
// listener is connected.
func (c *KeyCache) setLive(live *bool) {
	c.mu.Lock()
	c.gen++
	clear(c.byKey)
	if live != nil {
		c.live = *live
	}
	c.mu.Unlock()
}

// Channel is the notification channel of authentication changes.
const Channel = "loupe_auth"

// Listen keeps a connection listening on Channel until ctx ends, emptying
// the cache on every notification and on every connection loss or
// reconnection (notifications may have been missed meanwhile).
func (c *KeyCache) Listen(ctx context.Context, dsn string, log *slog.Logger) {
	up, down := true, false
	var mu sync.Mutex
	lost := false // a disconnection was seen before the first LISTEN answered
	l := pq.NewListener(dsn, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventReconnected:
			// pq has issued LISTEN again before it reports this.
			c.setLive(&up)
		case pq.ListenerEventDisconnected, pq.ListenerEventConnectionAttemptFailed:
			mu.Lock()
			lost = true
			mu.Unlock()
			c.setLive(&down)
			if ctx.Err() != nil {
				return // shutting down: expected
			}
			log.Warn("auth cache: notification connection lost; keys are looked up every request", "err", err)
		}
	})
	// Closing the listener also ends a Listen still waiting for a first
	// connection, and closes l.Notify, which ends the loop below.
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	defer c.setLive(&down)
	// Listen returns once the server has acknowledged LISTEN on a live
	// connection: only from then on are changes sure to be heard.
	if err := l.Listen(Channel); err != nil {
		log.Warn("auth cache: cannot listen; keys are looked up every request", "err", err)
	} else {
		mu.Lock()
		if !lost {
			c.setLive(&up)
		}
		mu.Unlock()
	}
	ping := time.NewTicker(30 * time.Second)
	defer ping.Stop()
	for {
		select {
		case n, ok := <-l.Notify:
			if !ok {
				return
			}
			if n == nil {
				// Follows a reconnection: notifications may have been missed.
				c.Invalidate()
				continue
			}
			// "<tenant>:<user>", or "" for every key.
			tenant, user, _ := strings.Cut(n.Extra, ":")
			c.InvalidateUser(tenant, user)
		case <-ping.C:
			// Finds a silently dead connection (the event callback then
			// stops caching until it is back).
			go l.Ping()
		}
	}
}
