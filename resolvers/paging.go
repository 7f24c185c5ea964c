package resolvers

import (
	"encoding/base64"

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
		return "", store.Invalid("invalid cursor")
	}
	return string(b), nil
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

func itemConnection(tenantID string, q store.ItemQuery, items []*store.Item, more bool) *model.ItemConnection {
	c := &model.ItemConnection{
		Edges:    make([]*model.ItemEdge, len(items)),
		Nodes:    items,
		PageInfo: &model.PageInfo{HasNextPage: more},
		TenantID: tenantID,
		Query:    q,
	}
	for i, it := range items {
		c.Edges[i] = &model.ItemEdge{Cursor: encodeCursor(it.ID), Node: it}
	}
	if n := len(items); n > 0 {
		c.PageInfo.EndCursor = &c.Edges[n-1].Cursor
	}
	return c
}

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
