package auth

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// ItemAccess answers whether a principal may see and change items
// (store.Store satisfies it).
type ItemAccess interface {
	AccessOf(ctx context.Context, p *loupe.Principal, ids []string) (map[string]store.ItemAccess, error)
}

// Item is the one rule of what a principal may do with an item, checked
// before a write (or an item-scoped read the store does not filter itself),
// following docs/access-control.md: an item it may not see answers missing
// (the caller's own not-found error), a write to one it may not change
// EFORBIDDEN. Admins pass without a query; an id naming no item passes too,
// so that the store answers its own not-found.
func Item(ctx context.Context, acc ItemAccess, p *loupe.Principal, itemID string, write bool, missing error) error {
	if p.IsAdmin {
		return nil
	}
	access, err := acc.AccessOf(ctx, p, []string{itemID})
	if err != nil {
		return err
	}
	a, ok := access[itemID]
	switch {
	case !ok:
		return nil
	case !a.Visible:
		return missing
	case write && !a.Updatable:
		return loupe.Forbidden("you may not change this item")
	}
	return nil
}
