package loaders

import (
	"context"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe/store"
)

// batchWait is how long a loader collects keys that no hint, no request
// item and no enclosing list names before it queries. Only loads that run
// at the same time can meet in it (sibling fields of one object, top-level
// fields), so it is short.
const batchWait = 500 * time.Microsecond

// Loader is a dataloader for one kind of key. A Load of a key already
// fetched is a cache hit; otherwise the loader gathers every key it can
// tell the request will ask next (hinted keys, the same field of every item
// the request holds, the elements of the list the caller sits in) and
// fetches them with the key in one batch. Only a key none of those names
// waits for the dataloader's time window.
type Loader[K comparable, V any] struct {
	set     *Loaders
	fetch   dataloader.BatchFunc[K, V]
	onValue []func(V)
	// perItem is set on loaders keyed by item (and field arguments): a miss
	// asks the same of every item the request holds.
	perItem *itemKeys[K]

	// dl batches loads nothing names by a time window. It is made on first
	// use: a request builds every loader and uses few, and making them all
	// cost a get-item noticeably (docs/performance.md).
	dlOnce sync.Once
	dl     *dataloader.Loader[K, V]

	// mu serialises fetches and guards fetched and expanded: a load that
	// waits for another's fetch then finds its key fetched. hintMu guards
	// hinted alone, because a fetch's values hint (possibly this loader)
	// while mu is held.
	mu       sync.Mutex
	fetched  map[K]*dataloader.Result[V]
	expanded map[K]int // by key arguments: how many request items were expanded
	hintMu   sync.Mutex
	hinted   []K
}

// itemKeys derives a loader's keys for the request's items.
type itemKeys[K comparable] struct {
	// args is k without its item: what the field asks of every item.
	args func(k K) K
	// key is the key of item id (its record when known) with args; false
	// when that item would not ask (its load answers without a query).
	key func(args K, id string, it *store.Item) (K, bool)
}

func newLoader[K comparable, V any](set *Loaders, fetch dataloader.BatchFunc[K, V], onValue ...func(V)) *Loader[K, V] {
	return &Loader[K, V]{set: set, fetch: fetch, onValue: onValue}
}

// byItem makes l keyed by item (see itemKeys).
func (l *Loader[K, V]) byItem(args func(K) K, key func(args K, id string, it *store.Item) (K, bool)) *Loader[K, V] {
	l.perItem = &itemKeys[K]{args: args, key: key}
	return l
}

// Hint announces keys that are about to be loaded: the first Load of one of
// them fetches them all.
func (l *Loader[K, V]) Hint(keys ...K) {
	l.hintMu.Lock()
	l.hinted = append(l.hinted, keys...)
	l.hintMu.Unlock()
}

// Load returns the value of key, or its error (loupe.NotFound() for a key
// the store did not return).
func (l *Loader[K, V]) Load(ctx context.Context, key K) (V, error) {
	// Most loads are cache hits (every element after a list's first):
	// answer them without the allocations of a batch.
	l.mu.Lock()
	r, ok := l.fetched[key]
	l.mu.Unlock()
	if ok {
		return r.Data, r.Error
	}
	r = l.load(ctx, []K{key})[0]
	return r.Data, r.Error
}

// LoadMany returns the values of keys in order, with an error per key; the
// keys missing from the cache are fetched together.
func (l *Loader[K, V]) LoadMany(ctx context.Context, keys []K) ([]V, []error) {
	rs := l.load(ctx, keys)
	vs, errs := make([]V, len(rs)), make([]error, len(rs))
	for i, r := range rs {
		vs[i], errs[i] = r.Data, r.Error
	}
	return vs, errs
}

func (l *Loader[K, V]) load(ctx context.Context, keys []K) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], len(keys))
	l.mu.Lock()
	var missing []K
	for i, k := range keys {
		if r, ok := l.fetched[k]; ok {
			out[i] = r
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		l.mu.Unlock()
		return out
	}
	if batch := l.gather(ctx, missing); batch != nil {
		results := l.batch(ctx, batch)
		if l.fetched == nil {
			l.fetched = make(map[K]*dataloader.Result[V], len(batch))
		}
		for i, k := range batch {
			l.fetched[k] = results[i]
		}
		for i, k := range keys {
			out[i] = l.fetched[k]
		}
		l.mu.Unlock()
		return out
	}
	l.mu.Unlock()
	// One key that nothing names: the time window, where loads running at
	// the same time meet.
	l.dlOnce.Do(func() {
		l.dl = dataloader.NewBatchedLoader(l.batch, dataloader.WithWait[K, V](batchWait))
	})
	v, err := l.dl.Load(ctx, missing[0])()
	for i := range keys {
		if out[i] == nil {
			out[i] = &dataloader.Result[V]{Data: v, Error: err}
		}
	}
	return out
}

// gather returns the keys to fetch with missing, or nil when missing is one
// key that no hint, request item or enclosing list names. Called with mu
// held.
func (l *Loader[K, V]) gather(ctx context.Context, missing []K) []K {
	l.expand(missing)
	if batch := l.takeHints(missing); batch != nil {
		return batch
	}
	// Nothing named the key: whoever listed its object forgot to hint. The
	// list the caller sits in names its siblings; hint them as the list
	// would have, and look again.
	if l.set.hintSiblings(ctx) {
		l.expand(missing)
		if batch := l.takeHints(missing); batch != nil {
			return batch
		}
	}
	if len(missing) > 1 {
		return dedup(missing, l.fetched)
	}
	return nil
}

// expand hints, for the arguments of each missing key, the key of every
// request item not expanded with them yet. Called with mu held.
func (l *Loader[K, V]) expand(missing []K) {
	if l.perItem == nil {
		return
	}
	for _, k := range missing {
		args := l.perItem.args(k)
		from := l.expanded[args]
		ids, recs := l.set.itemsFrom(from)
		if len(ids) == 0 {
			continue
		}
		if l.expanded == nil {
			l.expanded = map[K]int{}
		}
		l.expanded[args] = from + len(ids)
		keys := make([]K, 0, len(ids))
		for i, id := range ids {
			if k, ok := l.perItem.key(args, id, recs[i]); ok {
				keys = append(keys, k)
			}
		}
		l.Hint(keys...)
	}
}

// takeHints returns the pending hints not fetched yet with missing among
// them, or nil when no missing key was hinted. Called with mu held.
func (l *Loader[K, V]) takeHints(missing []K) []K {
	l.hintMu.Lock()
	defer l.hintMu.Unlock()
	hinted := make(map[K]bool, len(l.hinted))
	for _, k := range l.hinted {
		hinted[k] = true
	}
	found := false
	for _, k := range missing {
		found = found || hinted[k]
	}
	if !found {
		return nil
	}
	batch := dedup(append(l.hinted, missing...), l.fetched)
	l.hinted = nil
	return batch
}

// dedup returns keys once each, in order, leaving out those fetched.
func dedup[K comparable, V any](keys []K, fetched map[K]*dataloader.Result[V]) []K {
	seen := make(map[K]bool, len(keys))
	out := make([]K, 0, len(keys))
	for _, k := range keys {
		if _, done := fetched[k]; done || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	return out
}

// batch runs the fetch and lets each value hint the next level.
func (l *Loader[K, V]) batch(ctx context.Context, keys []K) []*dataloader.Result[V] {
	out := l.fetch(ctx, keys)
	for _, r := range out {
		if r.Error == nil {
			for _, f := range l.onValue {
				f(r.Data)
			}
		}
	}
	return out
}
