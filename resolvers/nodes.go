package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// nodes fetches anything by id: items (folders answered as Folder, persons
// as Person), audit records and comments, in the order asked, nil for what
// is missing. At most five queries whatever the number of ids.
func (r *Resolver) nodes(ctx context.Context, p *loupe.Principal, ids []string) ([]loupe.Node, error) {
	out := make([]loupe.Node, len(ids))
	items, err := r.Store.ItemsByIDs(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	var folderIDs, personIDs, otherIDs []string
	for _, id := range ids {
		switch it, ok := items[id]; {
		case !ok:
			otherIDs = append(otherIDs, id)
		case it.ItemType == "folder":
			folderIDs = append(folderIDs, id)
		case it.ItemType == store.ItemTypePerson:
			personIDs = append(personIDs, id)
		}
	}
	folders, err := r.Store.FoldersByIDs(ctx, p, folderIDs)
	if err != nil {
		return nil, err
	}
	persons, err := r.Store.PersonsByIDs(ctx, p.TenantID, personIDs)
	if err != nil {
		return nil, err
	}
	records, err := r.Store.AuditRecordsByIDs(ctx, p, otherIDs)
	if err != nil {
		return nil, err
	}
	var commentIDs []string
	for _, id := range otherIDs {
		if _, ok := records[id]; !ok {
			commentIDs = append(commentIDs, id)
		}
	}
	comments, err := r.Store.CommentsByIDs(ctx, p, commentIDs)
	if err != nil {
		return nil, err
	}
	hinted := make([]*store.Item, 0, len(items))
	for _, it := range items {
		hinted = append(hinted, it)
	}
	r.hints(ctx).HintItems(hinted)
	for i, id := range ids {
		if f, ok := folders[id]; ok {
			out[i] = f
		} else if ps, ok := persons[id]; ok {
			out[i] = ps
		} else if it, ok := items[id]; ok && it.ItemType != "folder" && it.ItemType != store.ItemTypePerson {
			out[i] = it
		} else if rec, ok := records[id]; ok {
			out[i] = rec
		} else if c, ok := comments[id]; ok {
			out[i] = c
		}
	}
	return out, nil
}
