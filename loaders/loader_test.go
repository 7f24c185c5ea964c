package loaders

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// fakeStore answers ids it holds and records each read.
type fakeStore struct {
	mu    sync.Mutex
	has   map[string]bool
	reads [][]string
}

func (f *fakeStore) read(_ context.Context, _ *loupe.Principal, ids []string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, slices.Clone(ids))
	out := map[string]string{}
	for _, id := range ids {
		if f.has[id] {
			out[id] = "v" + id
		}
	}
	return out, nil
}

func principal() context.Context {
	return auth.WithPrincipal(context.Background(), &loupe.Principal{TenantID: "t"})
}

func TestByIDAnswersInKeyOrderWithNotFoundPerKey(t *testing.T) {
	f := &fakeStore{has: map[string]bool{"a": true, "c": true}}
	rs := byID(f.read)(principal(), []string{"c", "b", "a"})
	want := []struct {
		v        string
		notFound bool
	}{{"vc", false}, {"", true}, {"va", false}}
	for i, w := range want {
		if rs[i].Data != w.v || (loupe.ErrorKind(rs[i].Error) == loupe.ENOTFOUND) != w.notFound {
			t.Errorf("key %d: %q, %v; want %q, not found %v", i, rs[i].Data, rs[i].Error, w.v, w.notFound)
		}
	}
}

// The executor loads a list's elements one after the other. Whatever named
// the keys beforehand, the loader must read them in one batch, not one per
// element.
func TestSequentialLoadsReadOnce(t *testing.T) {
	const n = 20
	ids := make([]string, n)
	items := make([]*store.Item, n)
	for i := range ids {
		ids[i] = fmt.Sprint("i", i)
		items[i] = &store.Item{ID: ids[i]}
	}
	cases := []struct {
		name   string
		byItem bool
		prime  func(set *Loaders, l *Loader[string, string])
	}{
		{"hinted keys", false, func(_ *Loaders, l *Loader[string, string]) { l.Hint(ids...) }},
		{"item-keyed, items hinted to the set", true, func(set *Loaders, _ *Loader[string, string]) { set.HintItems(items) }},
		{"item-keyed, item ids hinted to the set", true, func(set *Loaders, _ *Loader[string, string]) { set.HintItemIDs(ids...) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeStore{has: map[string]bool{}}
			for _, id := range ids {
				f.has[id] = true
			}
			set := New(store.New(nil))
			l := newLoader(set, byID(f.read))
			if c.byItem {
				l.byItem(noArgs, anyItem)
			}
			c.prime(set, l)
			ctx := principal()
			for _, id := range ids {
				if v, err := l.Load(ctx, id); err != nil || v != "v"+id {
					t.Fatalf("Load(%s) = %q, %v", id, v, err)
				}
			}
			if len(f.reads) != 1 || len(f.reads[0]) != n {
				t.Fatalf("reads %v, want one of %d ids", f.reads, n)
			}
		})
	}
}

// Arguments travel in typed keys: one batch per distinct arguments, each
// item expanded with the arguments of the key that missed.
func TestArgumentKeysExpandOverTheRequestItems(t *testing.T) {
	set := New(store.New(nil))
	set.HintItemIDs("a", "b", "c")
	var batches [][]ThumbnailsKey
	l := newLoader(set, func(_ context.Context, keys []ThumbnailsKey) []*result[int] {
		batches = append(batches, slices.Clone(keys))
		out := make([]*result[int], len(keys))
		for i, k := range keys {
			out[i] = &result[int]{Data: k.Index*100 + k.Size}
		}
		return out
	}).byItem(withoutItem[ThumbnailsKey], func(args ThumbnailsKey, id string, _ *store.Item) (ThumbnailsKey, bool) {
		args.ItemID = id
		return args, true
	})
	ctx := context.Background()
	for _, args := range []ThumbnailsKey{{Index: 0, Size: 3}, {Index: 3, Size: 3}} {
		for _, id := range []string{"a", "b", "c"} {
			k := args
			k.ItemID = id
			if v, err := l.Load(ctx, k); err != nil || v != k.Index*100+k.Size {
				t.Fatalf("Load(%+v) = %d, %v", k, v, err)
			}
		}
	}
	if len(batches) != 2 || len(batches[0]) != 3 || len(batches[1]) != 3 {
		t.Fatalf("batches %v, want two of three keys", batches)
	}
}

type result[V any] = dataloader.Result[V]
