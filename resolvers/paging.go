package resolvers

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// defaultPage is the page size when a client names none.
const defaultPage = 20

// Cursors are opaque to clients: base64url of the keyset position (the id).
func encodeCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

func decodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", loupe.Invalid("invalid cursor")
	}
	return string(b), nil
}

// pageInfo is a forward page's place in its list (the Relay connection
// spec): continued tells whether the page was asked with an after cursor
// (hasPreviousPage; Loupe does not look back, as Relay allows for forward
// paging), more whether items follow; the cursors are the first and last
// edge's, null on an empty page.
func pageInfo(continued, more bool, cursors []string) *model.PageInfo {
	pi := &model.PageInfo{HasPreviousPage: continued, HasNextPage: more}
	if n := len(cursors); n > 0 {
		pi.StartCursor, pi.EndCursor = &cursors[0], &cursors[n-1]
	}
	return pi
}

// timePage reads the arguments of a list paged by store.TimeCursor
// (nextToken): the size (50 by default) and where it continues.
func timePage(first *int, after *string) (int, *store.TimeCursor, error) {
	size := 50
	if first != nil {
		size = *first
	}
	if after == nil {
		return size, nil, nil
	}
	cursor, err := store.ParseTimeCursor(*after)
	return size, cursor, err
}

func itemQuery(first *int, after *string, filter *model.ItemFilter, orderBy *model.ItemOrder) (store.ItemQuery, error) {
	q := store.ItemQuery{First: defaultPage}
	if first != nil {
		q.First = *first
	}
	if after != nil && *after != "" {
		id, err := decodeCursor(*after)
		if err != nil {
			return q, err
		}
		q.After = id
	}
	if filter != nil {
		if filter.ItemType != nil {
			q.ItemType = *filter.ItemType
		}
		if filter.FolderID != nil {
			q.FolderID = *filter.FolderID
		}
		q.InRecycleBin = filter.InRecycleBin != nil && *filter.InRecycleBin
	}
	q.Ascending = orderBy != nil && *orderBy == model.ItemOrderCreatedAsc
	return q, q.Validate()
}

// defaultChangesPage is the poll's page size when a client names none (the
// schema's default; the resolver needs it for an explicit null).
const defaultChangesPage = 50

// A poll cursor is the keyset position (modified_on, id) of the last item
// served: base64url of "<RFC 3339 with nanoseconds>|<id>".
func encodeChangeCursor(it *store.Item) string {
	return encodeCursor(it.ModifiedOn.UTC().Format(time.RFC3339Nano) + "|" + it.ID)
}

func decodeChangeCursor(c string) (time.Time, string, error) {
	s, err := decodeCursor(c)
	if err != nil {
		return time.Time{}, "", err
	}
	at, id, ok := strings.Cut(s, "|")
	if !ok {
		return time.Time{}, "", loupe.Invalid("invalid cursor")
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, "", loupe.Invalid("invalid cursor")
	}
	return t, id, nil
}

// changesQuery is the poll of changes since a time (docs/search.md).
func changesQuery(since time.Time, first *int, after *string) (store.ItemQuery, error) {
	q := store.ItemQuery{First: defaultChangesPage, ChangedSince: &since}
	if first != nil {
		q.First = *first
	}
	// Named as both surfaces call them: first and after in GraphQL, size
	// and nextToken in REST.
	if q.First < 1 || q.First > store.MaxItemPage {
		return q, loupe.Invalid("first (size) must be between 1 and %d", store.MaxItemPage)
	}
	if after != nil && *after != "" {
		at, id, err := decodeChangeCursor(*after)
		if err != nil {
			return q, loupe.Invalid("after (nextToken) is not a valid cursor")
		}
		q.AfterModified, q.After = at, id
	}
	if err := q.Validate(); err != nil {
		return q, loupe.Invalid("after (nextToken) is not a valid cursor")
	}
	return q, nil
}

func itemConnection(p *loupe.Principal, q store.ItemQuery, items []*store.Item, more bool) *model.ItemConnection {
	cursor := func(it *store.Item) string { return encodeCursor(it.ID) }
	if q.ChangedSince != nil {
		cursor = encodeChangeCursor
	}
	c := &model.ItemConnection{
		Edges:     make([]*model.ItemEdge, len(items)),
		Nodes:     items,
		Principal: p,
		Query:     q,
	}
	cursors := make([]string, len(items))
	for i, it := range items {
		cursors[i] = cursor(it)
		c.Edges[i] = &model.ItemEdge{Cursor: cursors[i], Node: it}
	}
	c.PageInfo = pageInfo(q.After != "", more, cursors)
	return c
}

// defaultSearchPage is the number of hits per page when a client names none.
const defaultSearchPage = 25

func auditQuery(f *model.AuditFilter, from, size *int) store.AuditQuery {
	q := store.AuditQuery{From: 0, Size: 50}
	if from != nil {
		q.From = *from
	}
	if size != nil {
		q.Size = *size
	}
	if f != nil {
		if f.ItemID != nil {
			q.ItemID = *f.ItemID
		}
		if f.ActionType != nil {
			q.ActionType = *f.ActionType
		}
		if f.ExecutedBy != nil {
			q.ExecutedBy = *f.ExecutedBy
		}
		q.Since, q.Until = f.Since, f.Until
	}
	return q
}

// itemPage lists a page of items for the principal, hints the page to the
// nested loaders and answers it as a connection: the one path of items,
// itemChanges and Folder.items.
func (r *Resolver) itemPage(ctx context.Context, p *loupe.Principal, q store.ItemQuery) (*model.ItemConnection, error) {
	q.Lean = leanConnection(ctx)
	items, more, err := r.Store.ListItems(ctx, p, q)
	if err != nil {
		return nil, err
	}
	r.hints(ctx).HintItems(items)
	return itemConnection(p, q, items, more), nil
}
