package resolvers

import (
	"context"
	"slices"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// visibleEvents keeps the events p may see: all for an admin; for others,
// those about an item p may see now. Events about no item (a scan
// finished) are admins'; a notification event is its recipient's.
func (r *Resolver) visibleEvents(ctx context.Context, p *loupe.Principal, events []*store.Event) ([]*store.Event, error) {
	// A notification is its recipient's alone, whoever reads.
	events = slices.DeleteFunc(slices.Clone(events), func(e *store.Event) bool {
		return e.Type == loupe.EventNotification && recipientOf(e) != p.UserID
	})
	if p.IsAdmin || len(events) == 0 {
		return events, nil
	}
	ids := make([]string, 0, len(events))
	for _, e := range events {
		if e.ItemID != nil {
			ids = append(ids, *e.ItemID)
		}
	}
	acc, err := r.Store.AccessOf(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	out := events[:0:0]
	for _, e := range events {
		if e.ItemID == nil {
			continue
		}
		if a, ok := acc[*e.ItemID]; ok && a.Visible {
			out = append(out, e)
		}
	}
	return out, nil
}

// itemOrNil is the item an event or a notification names, as the viewer
// may see it now (through the item loader: batched); nil for none, gone or
// hidden.
func (r *Resolver) itemOrNil(ctx context.Context, id *string) (*store.Item, error) {
	if id == nil {
		return nil, nil
	}
	it, err := r.loaders(ctx).Item.Load(ctx, *id)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, nil
	}
	return it, err
}
