package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
)

// onItem is the preamble of every item-scoped operation: the request's
// principal, once auth.Item lets it read (write false) or change (write
// true) the item; missing is what an item it may not see answers.
func (r *Resolver) onItem(ctx context.Context, itemID string, write bool, missing error) (*loupe.Principal, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := auth.Item(ctx, r.Store, p, itemID, write, missing); err != nil {
		return nil, err
	}
	return p, nil
}

// authorizeAll is auth.Item for several items read (not written) at once:
// each one the principal may not see answers missing(id).
func (r *Resolver) authorizeAll(ctx context.Context, p *loupe.Principal, ids []string, missing func(id string) error) error {
	if p.IsAdmin || len(ids) == 0 {
		return nil
	}
	acc, err := r.Store.AccessOf(ctx, p, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if a, ok := acc[id]; ok && !a.Visible {
			return missing(id)
		}
	}
	return nil
}

// visibleFolderParents is an item's folderParents as the principal may see
// them: ids of folders it may not see are left out (an admin sees all,
// without a query; others through the batched FoldersOfItem loader).
func (r *Resolver) visibleFolderParents(ctx context.Context, itemID string, all []string) ([]string, error) {
	p, err := auth.Require(ctx)
	if err != nil || p.IsAdmin || len(all) == 0 {
		return all, err
	}
	folders, err := r.loaders(ctx).FoldersOfItem.Load(ctx, itemID)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(folders))
	for i, f := range folders {
		out[i] = f.ID
	}
	return out, nil
}
