package resolvers

import (
	"context"
	"net/http"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// batchWait is how long a loader collects keys before it queries. gqlgen
// resolves sibling fields concurrently, so a short wait gathers a whole
// list level into one query without adding noticeable latency.
const batchWait = 200 * time.Microsecond

// Loaders batch the nested fields of one request. They are built per request
// because they cache what they load for the request's principal.
type Loaders struct {
	Item              *dataloader.Loader[string, *store.Item]
	Folder            *dataloader.Loader[string, *store.Folder]
	FoldersOfItem     *dataloader.Loader[string, []*store.Folder]
	AttachmentsOfItem *dataloader.Loader[string, []*store.Attachment]
}

// NewLoaders builds a request's loaders.
func NewLoaders(st *store.Store) *Loaders {
	return &Loaders{
		Item:              newLoader(byKey(st.ItemsByIDs)),
		Folder:            newLoader(byKey(st.FoldersByIDs)),
		FoldersOfItem:     newLoader(listByKey(st.FoldersOfItems)),
		AttachmentsOfItem: newLoader(listByKey(st.AttachmentsOfItems)),
	}
}

func newLoader[V any](fn dataloader.BatchFunc[string, V]) *dataloader.Loader[string, V] {
	return dataloader.NewBatchedLoader(fn, dataloader.WithWait[string, V](batchWait))
}

// byKey adapts a store fetch keyed by id to a batch function that answers in
// key order, with ENOTFOUND for each key the store did not return.
func byKey[V any](fetch func(ctx context.Context, tenantID string, ids []string) (map[string]V, error)) dataloader.BatchFunc[string, V] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[V] {
		out := make([]*dataloader.Result[V], len(keys))
		p, err := auth.Require(ctx)
		var found map[string]V
		if err == nil {
			found, err = fetch(ctx, p.TenantID, keys)
		}
		for i, k := range keys {
			switch v, ok := found[k]; {
			case err != nil:
				out[i] = &dataloader.Result[V]{Error: err}
			case !ok:
				out[i] = &dataloader.Result[V]{Error: store.NotFound()}
			default:
				out[i] = &dataloader.Result[V]{Data: v}
			}
		}
		return out
	}
}

// listByKey adapts a store fetch of lists keyed by owner id; an owner with
// nothing gets an empty list.
func listByKey[V any](fetch func(ctx context.Context, tenantID string, ids []string) (map[string][]V, error)) dataloader.BatchFunc[string, []V] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[[]V] {
		out := make([]*dataloader.Result[[]V], len(keys))
		p, err := auth.Require(ctx)
		var found map[string][]V
		if err == nil {
			found, err = fetch(ctx, p.TenantID, keys)
		}
		for i, k := range keys {
			v := found[k]
			if v == nil {
				v = []V{}
			}
			out[i] = &dataloader.Result[[]V]{Data: v, Error: err}
		}
		return out
	}
}

type loadersKey struct{}

// WithLoaders returns ctx carrying fresh loaders.
func WithLoaders(ctx context.Context, st *store.Store) context.Context {
	return context.WithValue(ctx, loadersKey{}, NewLoaders(st))
}

// Middleware gives every request its own loaders.
func Middleware(st *store.Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(WithLoaders(r.Context(), st)))
		})
	}
}

// loaders returns the request's loaders; a context without them (a test
// calling the executor directly) gets fresh ones.
func (r *Resolver) loaders(ctx context.Context) *Loaders {
	if l, ok := ctx.Value(loadersKey{}).(*Loaders); ok {
		return l
	}
	return NewLoaders(r.Store)
}
