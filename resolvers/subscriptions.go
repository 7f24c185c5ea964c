package resolvers

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/events/feed"
	"github.com/loupe-mam/loupe/store"
)

// subscriptionBuffer is how many events a subscriber may lag behind the
// node's feed before it is dropped (docs/events.md): a slow subscriber
// never slows the node.
const subscriptionBuffer = 256

// replayPage is how many events one read of a replay takes.
const replayPage = 500

// eventFilter is what one subscription wants of the tenant's events.
type eventFilter struct {
	types    []loupe.EventType // all when empty
	itemID   string            // one item's
	folderID string            // the items directly in one folder
	// userID keeps notification events addressed to the user.
	userID string
}

// wants is the filter without access: the event's type and item.
func (f eventFilter) wants(e *store.Event) bool {
	if len(f.types) > 0 && !slices.Contains(f.types, e.Type) {
		return false
	}
	if f.itemID != "" && (e.ItemID == nil || *e.ItemID != f.itemID) {
		return false
	}
	// A notification is its recipient's alone, whatever item it names.
	if e.Type == loupe.EventNotification || f.userID != "" {
		return f.userID != "" && recipientOf(e) == f.userID
	}
	return true
}

// recipientOf is the user a notification event is for.
func recipientOf(e *store.Event) string {
	var d struct {
		UserID string `json:"userId"`
	}
	json.Unmarshal(e.Data, &d) //nolint:errcheck // the outbox holds JSON objects
	return d.UserID
}

// deliverable is whether p may see e now, checked when it is delivered: a
// user who lost access to the item (or the folder it sits in) stops
// receiving its events. Notifications are their recipient's.
func (r *Resolver) deliverable(ctx context.Context, p *loupe.Principal, f eventFilter, e *store.Event) (bool, error) {
	if f.userID != "" {
		return true, nil
	}
	if e.ItemID == nil {
		return p.IsAdmin && f.folderID == "", nil
	}
	if p.IsAdmin && f.folderID == "" {
		return true, nil
	}
	visible, inFolder, err := r.Store.EventAccess(ctx, p, *e.ItemID, f.folderID)
	return visible && inFolder, err
}

// eventStream is a subscription's channel: with since, the tenant's events
// after it from the outbox, then, without a gap or a repeat, what the
// node's feed reads from the moment of subscribing; each delivered only
// when f wants it and p may see it. It closes when ctx ends, or after an
// error when the subscriber fell too far behind.
func (r *Resolver) eventStream(ctx context.Context, p *loupe.Principal, since *string, f eventFilter) (<-chan *store.Event, error) {
	if r.Feed == nil {
		return nil, loupe.Errorf(loupe.EINVALID, "subscriptions are not served by this node")
	}
	var last loupe.EventCursor
	replay := since != nil
	if replay {
		var err error
		if last, err = loupe.ParseEventCursor(*since); err != nil {
			return nil, err
		}
	}
	sub, start, err := r.Feed.Subscribe(ctx, subscriptionBuffer)
	if err != nil {
		return nil, err
	}
	if !replay {
		last = start
	}
	out := make(chan *store.Event)
	go func() {
		defer close(out)
		defer sub.Close()
		// send delivers e unless it was delivered, is unwanted or hidden;
		// false when the subscription is over.
		send := func(e *store.Event) bool {
			if e.TenantID != p.TenantID || !after(e.Cursor(), last) || !f.wants(e) {
				return true
			}
			ok, err := r.deliverable(ctx, p, f, e)
			if err != nil || !ok {
				return ctx.Err() == nil
			}
			select {
			case out <- e:
				last = e.Cursor()
				return true
			case <-ctx.Done():
				return false
			}
		}
		// The replay: from since up to where the feed began.
		for replay && after(start, last) {
			page, more, err := r.Store.TenantEvents(ctx, p.TenantID, store.EventQuery{After: last, Types: f.types,
				ItemID: f.itemID, First: replayPage})
			if err != nil {
				return
			}
			for _, e := range page {
				if after(e.Cursor(), start) {
					replay = false
					break
				}
				if !send(e) {
					return
				}
				last = e.Cursor() // moved past, delivered or not
			}
			if !more {
				break
			}
		}
		last = maxCursor(last, start)
		for {
			select {
			case e, ok := <-sub.C():
				if !ok {
					if sub.Err() == feed.ErrSlow {
						// The error, then completion: a nil event answers it.
						graphql.AddError(ctx, &gqlerror.Error{Message: sub.Err().Error() + " (" + last.String() + ")",
							Path: graphql.GetFieldContext(ctx).Path(), Extensions: map[string]any{"code": "SLOW_SUBSCRIBER",
								"since": last.String()}})
						select {
						case out <- nil:
						case <-ctx.Done():
						}
					}
					return
				}
				if !send(e) {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// after is whether a comes after b in the outbox.
func after(a, b loupe.EventCursor) bool {
	return a.Tx > b.Tx || (a.Tx == b.Tx && a.Seq > b.Seq)
}

func maxCursor(a, b loupe.EventCursor) loupe.EventCursor {
	if after(a, b) {
		return a
	}
	return b
}
