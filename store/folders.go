package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// Folder is an item of itemType folder seen as a folder (spec 2.10).
type Folder struct {
	TenantID         string       `db:"tenant_id"`
	ID               string       `db:"id"`
	Owner            string       `db:"owner"`
	Name             string       `db:"title"`
	CreatedOn        time.Time    `db:"created_on"`
	ParentID         *string      `db:"parent_id"`
	ItemType         string       `db:"item_type"`
	VisibleTo        loupe.Access `db:"visible_to"`
	UpdatableBy      loupe.Access `db:"updatable_by"`
	MetadataFormID   string       `db:"metadata_form_id"`
	MetadataFormData loupe.JSON   `db:"metadata_form_data"`
	SortKey          *string      `db:"sort_key"`
	HasSubfolder     bool         `db:"has_subfolder"`
}

// NodeID implements Node.
func (f *Folder) NodeID() string { return f.ID }

// Metadata is the folder's form and values.
func (f *Folder) Metadata() ItemMetadata {
	return ItemMetadata{FormID: f.MetadataFormID, FormData: f.MetadataFormData}
}

// folderFields is the Folder's field table (store_fields.go): the columns of a
// folder from items aliased i, in select order. A folder has one parent:
// the first of its folderParents.
var folderFields = []column[Folder]{
	{SQL: "i.tenant_id", Ptr: func(f *Folder) any { return &f.TenantID }, In: inWhole},
	{SQL: "i.id", GQL: "id", Ptr: func(f *Folder) any { return &f.ID }, In: inWhole},
	{SQL: "COALESCE(i.owner_id, i.created_by) AS owner", GQL: "owner", Ptr: func(f *Folder) any { return &f.Owner }, In: inWhole},
	{SQL: "i.title", GQL: "name", Ptr: func(f *Folder) any { return &f.Name }, In: inWhole},
	{SQL: "i.created_on", GQL: "createdOn", Ptr: func(f *Folder) any { return &f.CreatedOn }, In: inWhole},
	{SQL: "i.item_type", GQL: "itemType", Ptr: func(f *Folder) any { return &f.ItemType }, In: inWhole},
	{SQL: "i.folder_ids[1] AS parent_id", Ptr: func(f *Folder) any { return &f.ParentID }, In: inWhole},
	{SQL: "i.visible_to", GQL: "visibleTo", Ptr: func(f *Folder) any { return &f.VisibleTo }, In: inWhole},
	{SQL: "i.updatable_by", GQL: "updatableBy", Ptr: func(f *Folder) any { return &f.UpdatableBy }, In: inWhole},
	{SQL: "i.metadata_form_id", Ptr: func(f *Folder) any { return &f.MetadataFormID }, In: inWhole},
	{SQL: "i.metadata_form_data", Ptr: func(f *Folder) any { return &f.MetadataFormData }, In: inWhole},
	{SQL: "i.sort_key", GQL: "sortKey", Ptr: func(f *Folder) any { return &f.SortKey }, In: inWhole},
	{SQL: `EXISTS (SELECT 1 FROM item_folders c
        WHERE c.tenant_id = i.tenant_id AND c.folder_id = i.id
          AND c.child_type = 'folder' AND NOT c.child_deleted) AS has_subfolder`,
		GQL: "hasSubfolder", Ptr: func(f *Folder) any { return &f.HasSubfolder }, In: inWhole},
}

var folderWhole = fieldsOf(folderFields, inWhole)

// folderColumns selects a Folder from items aliased i.
var folderColumns = folderWhole.Columns

var (
	folderByIDSQL = `SELECT ` + folderColumns + `
FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.item_type = 'folder' AND i.deleted_on IS NULL`
)

var (
	visibleFolderByIDSQL = folderByIDSQL + ` AND ` + admitsSQL("i", 3, 4)

	foldersByIDsSQL = `SELECT ` + folderColumns + `
FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.item_type = 'folder' AND i.deleted_on IS NULL
  AND ` + admitsSQL("i", 3, 4)

	// An item's folders leave out those the principal may not see.
	// foldersOfItemsSQL answers each folder once, with the items (and
	// their positions) it holds among those asked: a page of a big folder's
	// items would otherwise repeat that folder's whole record per item.
	foldersOfItemsSQL = `
WITH links AS (
    SELECT l.folder_id, array_agg(l.item_id::text) AS child_ids, array_agg(l.position) AS positions
    FROM item_folders l WHERE l.tenant_id = $1 AND l.item_id = ANY($2::uuid[])
    GROUP BY l.folder_id)
SELECT links.child_ids, links.positions, ` + folderColumns + `
FROM links JOIN items i ON i.tenant_id = $1 AND i.id = links.folder_id
WHERE i.deleted_on IS NULL AND ` + admitsSQL("i", 3, 4)
)

// Folder returns one live folder the principal may see. Returns ENOTFOUND
// when there is no such live folder in the tenant, or it is not visible.
func (s *Store) Folder(ctx context.Context, p *loupe.Principal, id string) (*Folder, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var f Folder
	if err := s.getPrepared(ctx, &f, visibleFolderByIDSQL, p.TenantID, id, p.UserID, aclTokens(p)); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.NotFound()
		}
		return nil, fmt.Errorf("store: unable to fetch folder %s: %w", id, err)
	}
	return &f, nil
}

// FoldersByIDs returns the live folders among ids that the principal may
// see, keyed by id, in one query.
func (s *Store) FoldersByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*Folder, error) {
	out := make(map[string]*Folder, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var folders []*Folder
	if err := s.selectPrepared(ctx, &folders, foldersByIDsSQL, p.TenantID, stringArray(ids), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch folders: %w", err)
	}
	for _, f := range folders {
		out[f.ID] = f
	}
	return out, nil
}

// folderLinks is a row of foldersOfItemsSQL: a folder, with the items
// (and their positions) it holds among those asked.
type folderLinks struct {
	ChildIDs  IDs           `db:"child_ids"`
	Positions pq.Int64Array `db:"positions"`
	Folder
}

func (l *folderLinks) dests() []any {
	return append([]any{&l.ChildIDs, &l.Positions}, l.Folder.dests()...)
}

// FoldersOfItems returns, per item id, the live folders the item sits in
// that the principal may see, in folderParents order, in one query.
func (s *Store) FoldersOfItems(ctx context.Context, p *loupe.Principal, itemIDs []string) (map[string][]*Folder, error) {
	out := make(map[string][]*Folder, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	rows, err := selectScanned(ctx, s, (*folderLinks).dests, foldersOfItemsSQL, p.TenantID, stringArray(itemIDs), p.UserID, aclTokens(p))
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch folders of items: %w", err)
	}
	type placed struct {
		folder *Folder
		pos    int64
	}
	byItem := make(map[string][]placed, len(itemIDs))
	for _, r := range rows {
		for j, child := range r.ChildIDs {
			byItem[child] = append(byItem[child], placed{&r.Folder, r.Positions[j]})
		}
	}
	// Each item's folders in folderParents order.
	for child, ps := range byItem {
		slices.SortFunc(ps, func(a, b placed) int { return cmp.Compare(a.pos, b.pos) })
		fs := make([]*Folder, len(ps))
		for i, p := range ps {
			fs[i] = p.folder
		}
		out[child] = fs
	}
	return out, nil
}

// FolderEntry is one entry of a folder's content (spec 2.10 content hit).
type FolderEntry struct {
	ID              string       `db:"id"`
	Owner           string       `db:"owner"`
	FolderParentIDs IDs          `db:"folder_parents"`
	ItemType        string       `db:"item_type"`
	Name            string       `db:"title"`
	CreatedOn       time.Time    `db:"created_on"`
	VisibleTo       loupe.Access `db:"visible_to"`
	UpdatableBy     loupe.Access `db:"updatable_by"`
}

// FolderParents is the ids of the entry's folders.
func (e *FolderEntry) FolderParents() []string {
	if e.FolderParentIDs == nil {
		return []string{}
	}
	return e.FolderParentIDs
}
