package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

func access(in *model.AccessInput) *loupe.Access {
	if in == nil {
		return nil
	}
	a := &loupe.Access{Level: in.Level, Groups: in.Groups}
	if a.Groups == nil {
		a.Groups = []string{}
	}
	return a
}

func (r *Resolver) deleteFolder(ctx context.Context, id string) (*model.DeleteFolderPayload, error) {
	p, err := r.onItem(ctx, id, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if _, err := r.Store.Folder(ctx, p, id); err != nil {
		return nil, err
	}
	_, n, err := r.Store.DeleteItem(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteFolderPayload{ID: id, DeletedCount: n}, nil
}

func (r *Resolver) createFolderPath(ctx context.Context, path string) ([]*store.Folder, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.CreateFolderPath(ctx, p, path)
}

func (r *Resolver) changeItemFolders(ctx context.Context, itemID, from, to string) (*store.Item, error) {
	p, err := r.onItem(ctx, itemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	return r.Store.MoveItem(ctx, p, itemID, from, to)
}

// unique keeps the first of each id, in order.
func unique(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
