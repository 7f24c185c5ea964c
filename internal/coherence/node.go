// Package coherence keeps what several nodes cache of the database (API
// keys, forms) strict: a change answered by one node is seen by every
// node's very next request.
//
// Postgres sends a notification for every change a cache depends on (the
// triggers of migrations 00013 and 00040); each node listens and forgets
// what the change concerns. That alone races the writer's answer: the
// writer may answer before another node's listener has heard. So a node
// that caches registers in cache_nodes (and beats there every Beat), and
// after a change's commit its writer calls Sync: it sends a numbered marker
// on loupe_sync and waits until every caching node with a fresh beat has
// recorded it as applied. Notifications reach each listener in commit
// order, and the change committed before the marker, so a node that
// applied the marker has forgotten what the change made stale.
//
// A node caches only while (1) its listener is connected and registered as
// caching (a node whose listener is down caches nothing, says so in
// cache_nodes, and no writer waits for it), and (2) its lease holds: a beat
// succeeded less than DeadAfter-Beat ago. Writers ignore a node whose beat
// is older than DeadAfter (a dead node), by which time the node, if only
// cut off, has stopped caching. A writer that waits longer than Wait gives
// up on the nodes that did not answer, logs it and marks them not caching;
// each such node sees that at its next beat and starts over (forgets
// everything, checks its listener). Changes made outside Loupe (psql) are
// heard by every listener but nobody waits: they reach the caches within
// the notification's delivery time.
package coherence

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// SyncChannel carries the writers' markers (loupe_cache_sync, migration
// 00040).
const SyncChannel = "loupe_sync"

const (
	// beatSQL renews this node's registration and answers whether it is
	// still counted as caching (a writer that gave up on it says no).
	beatSQL = `
INSERT INTO cache_nodes (node) VALUES ($1)
ON CONFLICT (node) DO UPDATE SET seen_at = now()
RETURNING caching`

	// registerSQL marks the node caching from now on. Every marker drawn so
	// far counts as applied: the node's cache is empty and its listener
	// connected, so what those markers' changes made stale it does not hold.
	registerSQL = `
INSERT INTO cache_nodes (node, caching, applied_seq)
SELECT $1, true, CASE WHEN is_called THEN last_value ELSE 0 END FROM cache_sync_seq
ON CONFLICT (node) DO UPDATE SET caching = true, seen_at = now(),
    applied_seq = GREATEST(cache_nodes.applied_seq, EXCLUDED.applied_seq)`

	// notCachingSQL records that the node caches nothing (listener lost).
	notCachingSQL = `UPDATE cache_nodes SET caching = false WHERE node = $1`

	// ackSQL records the newest marker the node's listener has applied.
	ackSQL = `UPDATE cache_nodes SET applied_seq = GREATEST(applied_seq, $2) WHERE node = $1`

	// leaveSQL forgets a node that stops.
	leaveSQL = `DELETE FROM cache_nodes WHERE node = $1`

	// tidySQL forgets nodes dead for a day (killed, not stopped).
	tidySQL = `DELETE FROM cache_nodes WHERE seen_at < now() - interval '1 day'`

	// syncSQL sends the next marker and answers its number.
	syncSQL = `SELECT loupe_cache_sync()`

	// waitingSQL lists the caching nodes, alive by their beat, that have not
	// applied marker $1 yet.
	waitingSQL = `
SELECT node FROM cache_nodes
WHERE caching AND applied_seq < $1 AND seen_at > now() - make_interval(secs => $2)`

	// giveUpSQL marks the nodes a writer stopped waiting for as not caching
	// (unless they applied the marker meanwhile).
	giveUpSQL = `UPDATE cache_nodes SET caching = false WHERE node = ANY($1) AND applied_seq < $2`
)

// Node is this node's side of the coherence: its listener, its
// registration and the writers' wait. Set it up (Handle, OnReset) before
// Run.
type Node struct {
	// DB is a small pool for the beats, the acknowledgements and Sync (any
	// address: LISTEN has its own connection, on DSN).
	DB *sql.DB
	// DSN reaches the database itself (LISTEN is a session's).
	DSN string
	// ID names the node in cache_nodes.
	ID     string
	Logger *slog.Logger
	// Beat is how often the registration is renewed (1 s); DeadAfter how
	// old a beat makes a node dead to writers (5 s); Wait how long a writer
	// waits for the nodes (2 s).
	Beat, DeadAfter, Wait time.Duration

	handlers map[string][]func(payload string)
	resets   []func()

	base     time.Time     // leaseEnd counts from here (monotonic)
	live     atomic.Bool   // listener connected and registered
	leaseEnd atomic.Int64  // since base, in ns
	acked    atomic.Int64  // newest marker applied, for the acknowledger
	regs     atomic.Uint64 // registrations so far
	ackWake  chan struct{}

	mu        sync.Mutex
	connected bool   // the listener's connection is up
	epoch     uint64 // bumped by every connection change
	liveEpoch uint64 // the epoch the node registered in
	gaveUp    bool   // a writer gave up on this node: check the listener
	wake      chan struct{}
}

// New is a node; fill in what it needs beyond db, dsn and id before Run.
func New(db *sql.DB, dsn, id string, logger *slog.Logger) *Node {
	if logger == nil {
		logger = slog.Default()
	}
	return &Node{DB: db, DSN: dsn, ID: id, Logger: logger, handlers: map[string][]func(string){},
		base: time.Now(), wake: make(chan struct{}, 1), ackWake: make(chan struct{}, 1)}
}

// Handle runs fn for every notification on channel (its payload): fn
// forgets what the change concerns.
func (n *Node) Handle(channel string, fn func(payload string)) {
	n.handlers[channel] = append(n.handlers[channel], fn)
}

// OnReset runs fn whenever the node stops caching or starts again: fn
// forgets everything.
func (n *Node) OnReset(fn func()) { n.resets = append(n.resets, fn) }

// Live reports whether the caches may answer: the listener is connected
// and registered, and the lease holds. A cache checks it before reading
// an entry and before storing one.
func (n *Node) Live() bool {
	return n.live.Load() && time.Since(n.base) < time.Duration(n.leaseEnd.Load())
}

func (n *Node) defaults() {
	if n.Beat <= 0 {
		n.Beat = time.Second
	}
	if n.DeadAfter <= 0 {
		n.DeadAfter = 5 * n.Beat
	}
	if n.Wait <= 0 {
		n.Wait = 2 * time.Second
	}
}

// lease is how long a beat keeps the node caching: a beat short of
// DeadAfter, so that the node has stopped before writers count it dead.
func (n *Node) lease() time.Duration { return n.DeadAfter - n.Beat }

func (n *Node) poke() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// down stops caching and forgets everything.
func (n *Node) down() {
	n.live.Store(false)
	for _, fn := range n.resets {
		fn()
	}
}

// event follows the listener's connection (pq's callback).
func (n *Node) event(ctx context.Context) func(pq.ListenerEventType, error) {
	return func(ev pq.ListenerEventType, err error) {
		n.mu.Lock()
		switch ev {
		case pq.ListenerEventConnected, pq.ListenerEventReconnected:
			n.connected = true
		case pq.ListenerEventDisconnected, pq.ListenerEventConnectionAttemptFailed:
			n.connected = false
		}
		n.epoch++
		n.mu.Unlock()
		if !n.isConnected() {
			n.down()
			if ctx.Err() == nil && ev == pq.ListenerEventDisconnected {
				n.Logger.Warn("cache coherence: notification connection lost; nothing is cached until it is back", "err", err)
			}
		}
		n.poke()
	}
}

func (n *Node) isConnected() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.connected
}

// Run listens, registers and beats until ctx ends, then leaves cache_nodes.
func (n *Node) Run(ctx context.Context) {
	n.defaults()
	l := pq.NewListener(n.DSN, 100*time.Millisecond, 5*time.Second, n.event(ctx))
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	defer func() {
		n.down()
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		n.DB.ExecContext(lctx, leaveSQL, n.ID) //nolint:errcheck // a node left behind is dead to writers after DeadAfter
	}()
	channels := []string{SyncChannel}
	for ch := range n.handlers {
		channels = append(channels, ch)
	}
	// Listen returns once the server has acknowledged LISTEN (or the
	// channel is kept for the next connection, which pq then reports).
	for _, ch := range channels {
		if err := l.Listen(ch); err != nil {
			if ctx.Err() != nil {
				return
			}
			n.Logger.Warn("cache coherence: cannot listen; nothing is cached", "channel", ch, "err", err)
			return
		}
	}
	go n.beat(ctx)
	go n.acknowledge(ctx)
	n.poke()
	notCaching := false // recorded since the listener was lost
	for {
		select {
		case no, ok := <-l.Notify:
			if !ok {
				return
			}
			if no == nil {
				// After a reconnection: the Reconnected event has reset and
				// poked the node, which registers again.
				continue
			}
			if no.Channel == SyncChannel {
				if seq, err := strconv.ParseInt(no.Extra, 10, 64); err == nil {
					n.acked.Store(seq)
					select {
					case n.ackWake <- struct{}{}:
					default:
					}
				}
				continue
			}
			for _, fn := range n.handlers[no.Channel] {
				fn(no.Extra)
			}
		case <-n.wake:
			if ctx.Err() != nil {
				return
			}
			n.settle(ctx, l, &notCaching)
		}
	}
}

// settle brings the registration in line with the listener: not caching
// while it is down, registered (and caching) once it is up.
func (n *Node) settle(ctx context.Context, l *pq.Listener, notCaching *bool) {
	n.mu.Lock()
	connected, epoch, gaveUp := n.connected, n.epoch, n.gaveUp
	n.gaveUp = false
	current := n.live.Load() && n.liveEpoch == epoch
	n.mu.Unlock()
	if !connected {
		n.down()
		if !*notCaching {
			if _, err := n.DB.ExecContext(ctx, notCachingSQL, n.ID); err == nil {
				*notCaching = true
			}
		}
		return
	}
	if current && !gaveUp {
		return
	}
	n.down()
	// The listener must answer before anything is cached again (a writer
	// that gave up on the node may have met a connection that silently
	// died).
	if err := ping(l, n.Beat); err != nil {
		n.Logger.Warn("cache coherence: the listener does not answer; nothing is cached", "err", err)
		n.retry(ctx)
		return
	}
	start := time.Since(n.base)
	rctx, cancel := context.WithTimeout(ctx, n.Beat)
	_, err := n.DB.ExecContext(rctx, registerSQL, n.ID)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			n.Logger.Warn("cache coherence: cannot register; nothing is cached", "err", err)
			n.retry(ctx)
		}
		return
	}
	*notCaching = false
	n.mu.Lock()
	if n.connected && n.epoch == epoch {
		n.regs.Add(1)
		n.leaseEnd.Store(int64(start + n.lease()))
		n.liveEpoch = epoch
		n.live.Store(true)
	}
	n.mu.Unlock()
	n.poke() // the connection changed meanwhile: settle again
}

// retry settles again a beat later.
func (n *Node) retry(ctx context.Context) {
	time.AfterFunc(n.Beat, func() {
		if ctx.Err() == nil {
			n.poke()
		}
	})
}

// ping checks the listener's connection within d.
func ping(l *pq.Listener, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- l.Ping() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		return fmt.Errorf("no answer within %v", d)
	}
}

// beat renews the registration every Beat, and with it the lease.
func (n *Node) beat(ctx context.Context) {
	t := time.NewTicker(n.Beat)
	defer t.Stop()
	failing := false
	for beats := 0; ; beats++ {
		if beats%3600 == 0 {
			n.DB.ExecContext(ctx, tidySQL) //nolint:errcheck // tried again an hour of beats later
		}
		start := time.Since(n.base)
		// A registration after this read may not be what the beat sees.
		regs := n.regs.Load()
		bctx, cancel := context.WithTimeout(ctx, n.Beat)
		var caching bool
		err := n.DB.QueryRowContext(bctx, beatSQL, n.ID).Scan(&caching)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if !failing {
				n.Logger.Warn("cache coherence: beat failed; caching stops when the lease ends", "err", err)
			}
			failing = true
		case n.live.Load() && !caching && n.regs.Load() == regs:
			// A writer gave up waiting for this node: start over.
			n.Logger.Warn("cache coherence: a writer gave up waiting for this node; forgetting everything")
			n.mu.Lock()
			n.gaveUp = true
			n.mu.Unlock()
			n.down()
			n.poke()
		default:
			failing = false
			if n.live.Load() {
				if time.Since(n.base) >= time.Duration(n.leaseEnd.Load()) {
					// The lease ran out: writers may have stopped waiting
					// for this node, so what it holds may be stale.
					for _, fn := range n.resets {
						fn()
					}
				}
				n.leaseEnd.Store(int64(start + n.lease()))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// acknowledge records the newest marker applied, as markers arrive (a
// burst is one write).
func (n *Node) acknowledge(ctx context.Context) {
	var done int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.ackWake:
		}
		for seq := n.acked.Load(); seq > done; seq = n.acked.Load() {
			actx, cancel := context.WithTimeout(ctx, n.Beat)
			_, err := n.DB.ExecContext(actx, ackSQL, n.ID, seq)
			cancel()
			if err == nil {
				done = seq
				continue
			}
			if ctx.Err() != nil {
				return
			}
			n.Logger.Warn("cache coherence: cannot acknowledge", "err", err)
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// Sync is called after a change that caches depend on has committed: it
// returns once every caching node has applied the change's notification,
// or after Wait (logged; those nodes are then marked not caching). It
// outlives ctx's cancellation: the change is made either way.
func (n *Node) Sync(ctx context.Context) {
	n.defaults()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.Wait)
	defer cancel()
	var seq int64
	if err := n.DB.QueryRowContext(ctx, syncSQL).Scan(&seq); err != nil {
		n.Logger.Warn("cache coherence: cannot send a marker; other nodes hear of the change within the notification's delivery", "err", err)
		return
	}
	var waiting []string
	for delay := 500 * time.Microsecond; ; delay = min(2*delay, 20*time.Millisecond) {
		var now []string // the nodes still to apply the marker
		rows, err := n.DB.QueryContext(ctx, waitingSQL, seq, n.DeadAfter.Seconds())
		if err == nil {
			for rows.Next() {
				var node string
				if err = rows.Scan(&node); err != nil {
					break
				}
				now = append(now, node)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		if err == nil {
			if len(now) == 0 {
				return
			}
			waiting = now
		}
		if ctx.Err() != nil || err != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
	}
	gctx, gcancel := context.WithTimeout(context.Background(), time.Second)
	defer gcancel()
	if len(waiting) > 0 {
		n.DB.ExecContext(gctx, giveUpSQL, pq.StringArray(waiting), seq) //nolint:errcheck // logged below
	}
	n.Logger.Warn("cache coherence: gave up waiting for nodes to apply a change; they forget everything at their next beat",
		"nodes", waiting, "marker", seq, "waited", n.Wait)
}
