package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// The batch functions here answer a loader's keys in key order, one result
// per key, from one store read (or one per distinct field arguments).

// fetchFunc is a store read of many ids for a principal; what the principal
// may not see is left out.
type fetchFunc[V any] func(ctx context.Context, p *loupe.Principal, ids []string) (map[string]V, error)

// ofTenant adapts a store read scoped by tenant alone: nested data of an
// item the principal already sees.
func ofTenant[V any](fetch func(ctx context.Context, tenantID string, ids []string) (map[string]V, error)) fetchFunc[V] {
	return func(ctx context.Context, p *loupe.Principal, ids []string) (map[string]V, error) {
		return fetch(ctx, p.TenantID, ids)
	}
}

// byID adapts a store read keyed by id, answering loupe.NotFound() for each
// id the store did not return.
func byID[V any](fetch fetchFunc[V]) dataloader.BatchFunc[string, V] {
	return func(ctx context.Context, ids []string) []*dataloader.Result[V] {
		out := make([]*dataloader.Result[V], len(ids))
		p, err := auth.Require(ctx)
		var found map[string]V
		if err == nil {
			found, err = fetch(ctx, p, ids)
		}
		for i, id := range ids {
			switch v, ok := found[id]; {
			case err != nil:
				out[i] = &dataloader.Result[V]{Error: err}
			case !ok:
				out[i] = &dataloader.Result[V]{Error: loupe.NotFound()}
			default:
				out[i] = &dataloader.Result[V]{Data: v}
			}
		}
		return out
	}
}

// listByID adapts a store read of lists keyed by owner id; an owner with
// nothing gets an empty list (it exists: its owner was loaded).
func listByID[V any](fetch fetchFunc[[]V]) dataloader.BatchFunc[string, []V] {
	return func(ctx context.Context, ids []string) []*dataloader.Result[[]V] {
		out := make([]*dataloader.Result[[]V], len(ids))
		p, err := auth.Require(ctx)
		var found map[string][]V
		if err == nil {
			found, err = fetch(ctx, p, ids)
		}
		for i, id := range ids {
			v := found[id]
			if v == nil {
				v = []V{}
			}
			out[i] = &dataloader.Result[[]V]{Data: v, Error: err}
		}
		return out
	}
}

// firstComments answers CommentsOfItem with one query per kind of page
// (order, whole or bare) however many items and page sizes the keys name:
// it fetches the largest page plus one (to tell whether more follow) and
// cuts each key's page from it.
func firstComments(st *store.Store) dataloader.BatchFunc[CommentsKey, []*store.Comment] {
	return func(ctx context.Context, keys []CommentsKey) []*dataloader.Result[[]*store.Comment] {
		type kind struct{ newest, whole bool }
		type batch struct {
			ids     []string
			seen    map[string]bool
			largest int
			found   map[string][]*store.Comment
		}
		batches := map[kind]*batch{}
		var kinds []kind // in first-seen order: the queries run in a stable order
		for _, k := range keys {
			kd := kind{k.NewestFirst, k.Whole}
			b := batches[kd]
			if b == nil {
				b = &batch{seen: map[string]bool{}}
				batches[kd] = b
				kinds = append(kinds, kd)
			}
			b.largest = max(b.largest, k.First)
			if !b.seen[k.ItemID] {
				b.seen[k.ItemID] = true
				b.ids = append(b.ids, k.ItemID)
			}
		}
		p, err := auth.Require(ctx)
		for _, kd := range kinds {
			if err != nil {
				break
			}
			b := batches[kd]
			b.found, err = st.FirstCommentsOfItems(ctx, p.TenantID, b.ids, b.largest+1, kd.newest, kd.whole)
		}
		out := make([]*dataloader.Result[[]*store.Comment], len(keys))
		for i, k := range keys {
			page := batches[kind{k.NewestFirst, k.Whole}].found[k.ItemID]
			if len(page) > k.First+1 {
				page = page[:k.First+1]
			}
			if page == nil {
				page = []*store.Comment{}
			}
			out[i] = &dataloader.Result[[]*store.Comment]{Data: page, Error: err}
		}
		return out
	}
}

// thumbnailPages answers ThumbnailsOfItem with one query per distinct
// (index, size), which a page of items shares.
func thumbnailPages(st *store.Store) dataloader.BatchFunc[ThumbnailsKey, []*store.Thumbnail] {
	return func(ctx context.Context, keys []ThumbnailsKey) []*dataloader.Result[[]*store.Thumbnail] {
		type args struct{ index, size int }
		groups := map[args][]string{}
		var order []args
		for _, k := range keys {
			a := args{k.Index, k.Size}
			if _, ok := groups[a]; !ok {
				order = append(order, a)
			}
			groups[a] = append(groups[a], k.ItemID)
		}
		p, err := auth.Require(ctx)
		pages := map[args]map[string][]*store.Thumbnail{}
		for _, a := range order {
			if err != nil {
				break
			}
			pages[a], err = st.ThumbnailPagesOfItems(ctx, p.TenantID, groups[a], a.index, a.size)
		}
		out := make([]*dataloader.Result[[]*store.Thumbnail], len(keys))
		for i, k := range keys {
			page := pages[args{k.Index, k.Size}][k.ItemID]
			if page == nil {
				page = []*store.Thumbnail{}
			}
			out[i] = &dataloader.Result[[]*store.Thumbnail]{Data: page, Error: err}
		}
		return out
	}
}

// transcripts answers TranscriptOfItem with one query; nil where an item
// has no transcript in the language.
func transcripts(st *store.Store) dataloader.BatchFunc[TranscriptKey, *store.Transcript] {
	return func(ctx context.Context, keys []TranscriptKey) []*dataloader.Result[*store.Transcript] {
		tk := make([]store.TranscriptKey, len(keys))
		for i, k := range keys {
			tk[i] = store.TranscriptKey{ItemID: k.ItemID, LanguageCode: k.LanguageCode}
		}
		p, err := auth.Require(ctx)
		var found map[store.TranscriptKey]*store.Transcript
		if err == nil {
			found, err = st.TranscriptsByKeys(ctx, p.TenantID, tk)
		}
		out := make([]*dataloader.Result[*store.Transcript], len(keys))
		for i := range keys {
			out[i] = &dataloader.Result[*store.Transcript]{Data: found[tk[i]], Error: err}
		}
		return out
	}
}
