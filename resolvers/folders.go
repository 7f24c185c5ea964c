package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) folderChildren(ctx context.Context, f *store.Folder, first *int, after *string) (*model.FolderConnection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	n, cursor := 50, ""
	if first != nil {
		n = *first
	}
	if after != nil {
		cursor = *after
	}
	folders, more, err := r.Store.Subfolders(ctx, p, f.ID, cursor, n)
	if err != nil {
		return nil, err
	}
	r.hints(ctx).HintFolders(folders...)
	c := &model.FolderConnection{Nodes: folders, Edges: make([]*model.FolderEdge, len(folders)),
		PageInfo: &model.PageInfo{HasNextPage: more}}
	for i, sub := range folders {
		c.Edges[i] = &model.FolderEdge{Cursor: store.SubfolderCursor(sub), Node: sub}
	}
	if len(folders) > 0 {
		c.PageInfo.EndCursor = &c.Edges[len(folders)-1].Cursor
	}
	return c, nil
}

func (r *Resolver) folderItems(ctx context.Context, f *store.Folder, first *int, after *string) (*model.ItemConnection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	q, err := itemQuery(first, after, &model.ItemFilter{FolderID: &f.ID}, nil)
	if err != nil {
		return nil, err
	}
	q.Ascending = true
	return r.itemPage(ctx, p, q)
}

// folderAncestors is the path to the folder's parent, top first.
func (r *Resolver) folderAncestors(ctx context.Context, f *store.Folder) ([]*store.PathEntry, error) {
	paths, err := r.loaders(ctx).AncestryOfItem.Load(ctx, f.ID)
	if err != nil || len(paths) == 0 {
		return []*store.PathEntry{}, err
	}
	return paths[0], nil
}

func (r *Resolver) updateFolder(ctx context.Context, in model.UpdateFolderInput) (*store.Folder, error) {
	p, err := r.onItem(ctx, in.ID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	u := store.FolderUpdate{ID: in.ID, Name: in.Name, Parent: in.Parent, ToTop: in.ToTop != nil && *in.ToTop,
		Owner: in.Owner, SortKey: in.SortKey, VisibleTo: access(in.VisibleTo), UpdatableBy: access(in.UpdatableBy)}
	return r.Store.UpdateFolder(ctx, p, u)
}

func access(in *model.AccessInput) *store.Access {
	if in == nil {
		return nil
	}
	a := &store.Access{Level: in.Level, Groups: in.Groups}
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

func (r *Resolver) setFolderMetadata(ctx context.Context, in model.FolderMetadataInput) (*store.Folder, error) {
	p, err := r.onItem(ctx, in.ID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	return r.Store.SetFolderMetadata(ctx, p, in.ID, in.Metadata.FormID, in.Metadata.FormData)
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

func (r *Resolver) folderContent(ctx context.Context, folderID string, from, size *int, sort *model.FolderContentSort, order *model.SortOrder, after *string) (*model.FolderContent, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	q := store.ContentQuery{From: 0, Size: 50, ByName: sort == nil || *sort == model.FolderContentSortName,
		Desc: order != nil && *order == model.SortOrderDesc}
	if from != nil {
		q.From = *from
	}
	if size != nil {
		q.Size = *size
	}
	if after != nil && *after != "" {
		if q.After, err = store.ParseContentCursor(*after); err != nil {
			return nil, err
		}
	}
	hits, total, next, err := r.Store.FolderContent(ctx, p, folderID, q)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	r.hints(ctx).HintItemIDs(ids...)
	c := &model.FolderContent{Total: total, Hits: hits, From: q.From}
	if q.After != nil {
		c.From = q.After.From
	}
	if next != nil {
		token := next.Token()
		c.NextToken = &token
	}
	return c, nil
}

func (r *Resolver) folderAncestry(ctx context.Context, ids []string) ([]*model.Ancestry, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	ids = unique(ids)
	if len(ids) == 0 || len(ids) > store.MaxExternalIDs {
		return nil, loupe.Invalid("give 1 to %d ids", store.MaxExternalIDs)
	}
	paths, err := r.Store.AncestryOfItems(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		// An item the principal may not see has no paths to show.
		acc, err := r.Store.AccessOf(ctx, p, ids)
		if err != nil {
			return nil, err
		}
		for id, a := range acc {
			if !a.Visible {
				delete(paths, id)
			}
		}
	}
	out := make([]*model.Ancestry, len(ids))
	for i, id := range ids {
		ps := paths[id]
		if ps == nil {
			ps = [][]*store.PathEntry{}
		}
		out[i] = &model.Ancestry{ID: id, Paths: ps}
	}
	return out, nil
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

// itemFolders answers the live folders an item sits in that the principal
// may see, in folderParents order: its folder ids (kept in position order
// with its links), read through the Folder loader. A list's items hint
// their folders (Loaders.HintItems), so one query by primary key answers a
// whole page — cheaper than gathering the page's links from item_folders
// (FoldersOfItem, which access checks still use). The item's folders load
// together: hinting only them would hide a list's forgotten hint.
func (r *Resolver) itemFolders(ctx context.Context, obj *store.Item) ([]*store.Folder, error) {
	folders, errs := r.loaders(ctx).Folder.LoadMany(ctx, obj.FolderParentIDs)
	out := make([]*store.Folder, 0, len(obj.FolderParentIDs))
	for i, f := range folders {
		switch err := errs[i]; {
		case loupe.ErrorKind(err) == loupe.ENOTFOUND:
			continue // gone to the recycle bin, or not visible: not shown
		case err != nil:
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
