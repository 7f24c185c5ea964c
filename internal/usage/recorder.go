// Package usage counts what tenants do — comments, searches, items, active
// users — in memory and writes the counts to the store in batches, so that
// a request pays a map update instead of an SQL statement (docs/usage.md).
// It also meters the files a tenant stores (files.go).
package usage

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/loupe-mam/loupe/store"
)

// DefaultFlushInterval is how long counts wait in memory at most before
// they are written (reads of usage write them at once).
const DefaultFlushInterval = 5 * time.Second

// flushTimeout bounds a background flush.
const flushTimeout = 10 * time.Second

// Recorder aggregates counts per tenant, counter and hour, and the users
// active per tenant and hour, and writes them with store.AddUsage: a few
// seconds after the first count since the last write, before every read of
// usage (the store calls Flush), and on Close. A failed write keeps the
// counts for the next one.
type Recorder struct {
	st       *store.Store
	log      *slog.Logger
	interval time.Duration
	now      func() time.Time

	mu     sync.Mutex
	counts map[countKey]int64
	users  map[userKey]struct{} // active users not written yet
	seen   map[userKey]struct{} // active users written or pending, of recent hours
	timer  *time.Timer          // the pending background flush, if any
	closed bool

	// flushMu makes flushes take turns, so that a read's flush returns only
	// after a background flush that took the counts before it has written
	// them.
	flushMu sync.Mutex
}

type countKey struct {
	tenant, metric string
	hour           int64 // unix seconds of the hour's start
}

type userKey struct {
	tenant, user string
	hour         int64
}

// New returns a recorder writing to st; log receives failed writes
// (slog.Default() when nil).
func New(st *store.Store, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.Default()
	}
	return &Recorder{
		st: st, log: log, interval: DefaultFlushInterval, now: time.Now,
		counts: map[countKey]int64{}, users: map[userKey]struct{}{}, seen: map[userKey]struct{}{},
	}
}

// SetFlushInterval sets how long counts wait in memory at most; 0 writes
// them only on Flush and Close (for tests that count SQL statements). Call
// it before the first count.
func (r *Recorder) SetFlushInterval(d time.Duration) {
	r.mu.Lock()
	r.interval = d
	r.mu.Unlock()
}

// hourOf is the start of t's hour, in unix seconds.
func hourOf(t time.Time) int64 { return t.Unix() - t.Unix()%3600 }

// Count adds n events of a counter for the tenant in the current hour.
func (r *Recorder) Count(tenantID, metric string, n int) {
	if n <= 0 || tenantID == "" {
		return
	}
	k := countKey{tenantID, metric, hourOf(r.now())}
	r.mu.Lock()
	r.counts[k] += int64(n)
	r.armLocked()
	r.mu.Unlock()
}

// SeenUser notes that a user of the tenant made a request this hour. After
// the first request of an hour it costs a map lookup.
func (r *Recorder) SeenUser(tenantID, userID string) {
	if tenantID == "" || userID == "" {
		return
	}
	k := userKey{tenantID, userID, hourOf(r.now())}
	r.mu.Lock()
	if _, ok := r.seen[k]; !ok {
		r.seen[k] = struct{}{}
		r.users[k] = struct{}{}
		r.armLocked()
	}
	r.mu.Unlock()
}

// armLocked schedules a background flush unless one is pending.
func (r *Recorder) armLocked() {
	if r.timer == nil && !r.closed && r.interval > 0 {
		r.timer = time.AfterFunc(r.interval, r.background)
	}
}

func (r *Recorder) background() {
	r.mu.Lock()
	r.timer = nil
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := r.Flush(ctx); err != nil {
		r.log.Warn("usage counters not written; retrying later", "err", err)
	}
}

// Flush writes everything counted so far. On failure the counts stay for
// the next flush, and a background one is scheduled.
func (r *Recorder) Flush(ctx context.Context) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()

	r.mu.Lock()
	counts, users := r.counts, r.users
	if len(counts) == 0 && len(users) == 0 {
		r.mu.Unlock()
		return nil
	}
	r.counts, r.users = map[countKey]int64{}, map[userKey]struct{}{}
	// Users of hours before the previous one cannot be seen again.
	old := hourOf(r.now()) - 3600
	for k := range r.seen {
		if k.hour < old {
			delete(r.seen, k)
		}
	}
	r.mu.Unlock()

	err := r.st.AddUsage(ctx, countRows(counts), userRows(users))
	if err != nil {
		r.mu.Lock()
		for k, n := range counts {
			r.counts[k] += n
		}
		for k := range users {
			r.users[k] = struct{}{}
		}
		r.armLocked()
		r.mu.Unlock()
	}
	return err
}

// Close stops background flushes and writes what is left.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
	return r.Flush(ctx)
}

// countRows and userRows sort what they answer, so that every batch locks
// its rows in one order.
func countRows(m map[countKey]int64) []store.UsageCount {
	out := make([]store.UsageCount, 0, len(m))
	for k, n := range m {
		out = append(out, store.UsageCount{TenantID: k.tenant, Metric: k.metric, Hour: time.Unix(k.hour, 0).UTC(), Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.TenantID != b.TenantID {
			return a.TenantID < b.TenantID
		}
		if a.Metric != b.Metric {
			return a.Metric < b.Metric
		}
		return a.Hour.Before(b.Hour)
	})
	return out
}

func userRows(m map[userKey]struct{}) []store.ActiveUser {
	out := make([]store.ActiveUser, 0, len(m))
	for k := range m {
		out = append(out, store.ActiveUser{TenantID: k.tenant, UserID: k.user, Hour: time.Unix(k.hour, 0).UTC()})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.TenantID != b.TenantID {
			return a.TenantID < b.TenantID
		}
		if !a.Hour.Equal(b.Hour) {
			return a.Hour.Before(b.Hour)
		}
		return a.UserID < b.UserID
	})
	return out
}
