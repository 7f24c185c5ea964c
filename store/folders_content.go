package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/loupe-mam/loupe"
)

// ContentQuery selects a page of a folder's content (spec 2.10), at an
// offset or after a hit of an earlier page.
type ContentQuery struct {
	From int
	Size int
	// ByName sorts by name, else by creation; Desc reverses.
	ByName bool
	Desc   bool
	// After, when set, continues after the last hit of an earlier page
	// (its nextToken) by the index, however deep: it replaces From.
	After *ContentCursor
}

// ContentCursor is the position after a page of folder content: the offset
// of the next hit and the sort key of the last one, with the sort it was
// made for.
type ContentCursor struct {
	From   int
	ByName bool
	Desc   bool
	Name   string
	ID     string
}

// Token is the cursor as clients see it (nextToken): opaque base64url.
func (c *ContentCursor) Token() string {
	b, _ := json.Marshal([]any{c.From, c.ByName, c.Desc, c.Name, c.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseContentCursor reads a nextToken. Returns EINVALID for anything that
// is not one.
func ParseContentCursor(token string) (*ContentCursor, error) {
	bad := loupe.Invalid("nextToken is not a valid folder content token")
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, bad
	}
	var parts []json.RawMessage
	if json.Unmarshal(b, &parts) != nil || len(parts) != 5 {
		return nil, bad
	}
	var c ContentCursor
	for i, dst := range []any{&c.From, &c.ByName, &c.Desc, &c.Name, &c.ID} {
		if json.Unmarshal(parts[i], dst) != nil {
			return nil, bad
		}
	}
	if c.From < 1 || !loupe.ValidID(c.ID) {
		return nil, bad
	}
	return &c, nil
}

// MaxContentPage bounds one page of folder content.
const MaxContentPage = 1000

// entryFields is the FolderEntry's field table (store_fields.go): the columns of
// a content hit from items aliased i, in select order.
var entryFields = []column[FolderEntry]{
	{SQL: "i.id", GQL: "id", Ptr: func(e *FolderEntry) any { return &e.ID }, In: inWhole},
	{SQL: "COALESCE(i.owner_id, i.created_by) AS owner", GQL: "owner", Ptr: func(e *FolderEntry) any { return &e.Owner }, In: inWhole},
	{SQL: "i.item_type", GQL: "itemType", Ptr: func(e *FolderEntry) any { return &e.ItemType }, In: inWhole},
	{SQL: "i.title", GQL: "name", Ptr: func(e *FolderEntry) any { return &e.Name }, In: inWhole},
	{SQL: "i.created_on", GQL: "createdOn", Ptr: func(e *FolderEntry) any { return &e.CreatedOn }, In: inWhole},
	{SQL: "i.visible_to", GQL: "visibleTo", Ptr: func(e *FolderEntry) any { return &e.VisibleTo }, In: inWhole},
	{SQL: "i.updatable_by", GQL: "updatableBy", Ptr: func(e *FolderEntry) any { return &e.UpdatableBy }, In: inWhole},
	// The folder ids answer folderParents through a resolver (visibility
	// filters them).
	{SQL: "i.folder_ids AS folder_parents", Ptr: func(e *FolderEntry) any { return &e.FolderParentIDs }, In: inWhole},
}

var entryWhole = fieldsOf(entryFields, inWhole)

// entryColumns select a FolderEntry (entryFields).
var entryColumns = entryWhole.Columns

// The page is cut from item_folders alone (item_folders_by_name_idx or
// item_folders_live_idx), then only its rows are joined with items. Keyed by
// (by name, descending, for a non-admin, after a cursor): a non-admin's
// listing leaves out the subfolders it may not see (the folder's other
// children are visible through the folder itself). At an offset, $3 is the
// offset; after a cursor, $3 is the last hit's name and the id follows the
// other parameters (by name), or $3 is the last id (by creation).
var folderContentSQL = map[[4]bool]string{}

// subfolderVisible is the non-admin filter of a content link l, with the
// user at $u and the tokens at $t.
func subfolderVisible(u, t int) string {
	return ` AND (l.child_type <> 'folder' OR EXISTS (SELECT 1 FROM items f
    WHERE f.tenant_id = l.tenant_id AND f.id = l.item_id AND ` + admitsSQL("f", u, t) + `))`
}

func init() {
	for _, byName := range []bool{false, true} {
		for _, desc := range []bool{false, true} {
			for _, filtered := range []bool{false, true} {
				for _, keyset := range []bool{false, true} {
					folderContentSQL[[4]bool{byName, desc, filtered, keyset}] = folderContentQuery(byName, desc, filtered, keyset)
				}
			}
		}
	}
}

func folderContentQuery(byName, desc, filtered, keyset bool) string {
	dir, cmp := "", ">"
	if desc {
		dir, cmp = " DESC", "<"
	}
	order := "l.item_id" + dir
	if byName {
		order = "l.child_name" + dir + ", l.item_id" + dir
	}
	filter, idParam := "", "$5"
	if filtered {
		filter, idParam = subfolderVisible(5, 6), "$7"
	}
	window := " OFFSET $3 LIMIT $4"
	if keyset {
		window = " LIMIT $4"
		if byName {
			filter += " AND (l.child_name, l.item_id) " + cmp + " ($3::text, " + idParam + "::uuid)"
		} else {
			filter += " AND l.item_id " + cmp + " $3::uuid"
		}
	}
	// The page's items are joined in the index's order and kept in it: the
	// nested loop preserves it, so the ORDER BY costs nothing (a window
	// numbering the page and a sort by it cost Postgres a fifth of the
	// statement).
	return `
SELECT ` + entryColumns + `
FROM (SELECT l.item_id, l.child_name FROM item_folders l
      WHERE l.tenant_id = $1 AND l.folder_id = $2 AND NOT l.child_deleted` + filter + `
      ORDER BY ` + order + window + `) l
JOIN items i ON i.tenant_id = $1 AND i.id = l.item_id
ORDER BY ` + order
}

// The total comes from folder_stats (kept by triggers), in the statement
// that finds the folder (no row: missing or invisible); a non-admin's total
// leaves out the live subfolders it may not see (few, by an index).
var (
	countFolderContentSQL = `
SELECT COALESCE((SELECT live_children FROM folder_stats WHERE tenant_id = $1 AND folder_id = $2), 0)`
	folderTotalTail = `
FROM items fo WHERE fo.tenant_id = $1 AND fo.id = $2 AND fo.item_type = 'folder' AND fo.deleted_on IS NULL
  AND ` + admitsSQL("fo", 3, 4)
	folderTotalSQL        = countFolderContentSQL + folderTotalTail
	visibleFolderTotalSQL = countFolderContentSQL + ` - (SELECT count(*) FROM item_folders l
    JOIN items f ON f.tenant_id = l.tenant_id AND f.id = l.item_id
    WHERE l.tenant_id = $1 AND l.folder_id = $2 AND l.child_type = 'folder' AND NOT l.child_deleted
      AND NOT ` + admitsSQL("f", 3, 4) + `)` + folderTotalTail
)

// FolderContent returns a page of a live folder's content that the
// principal may see, its size, and the position after it (nil at the end).
// Returns ENOTFOUND for an unknown or invisible folder, EINVALID for bad
// paging or a cursor of another sort.
func (s *Store) FolderContent(ctx context.Context, p *loupe.Principal, folderID string, q ContentQuery) ([]*FolderEntry, int, *ContentCursor, error) {
	if q.From < 0 {
		return nil, 0, nil, loupe.Invalid("from must not be negative")
	}
	if q.Size < 1 || q.Size > MaxContentPage {
		return nil, 0, nil, loupe.Invalid("size must be between 1 and %d", MaxContentPage)
	}
	if c := q.After; c != nil {
		if q.From != 0 {
			return nil, 0, nil, loupe.Invalid("give from or nextToken, not both")
		}
		if c.ByName != q.ByName || c.Desc != q.Desc {
			return nil, 0, nil, loupe.Invalid("nextToken was made for another sort or order")
		}
		q.From = c.From
	}
	if !loupe.ValidID(folderID) {
		return nil, 0, nil, loupe.NotFound()
	}
	var total int
	query := folderTotalSQL
	if !p.IsAdmin {
		query = visibleFolderTotalSQL
	}
	if err := s.getPrepared(ctx, &total, query, p.TenantID, folderID, p.UserID, aclTokens(p)); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, 0, nil, loupe.NotFound()
		}
		return nil, 0, nil, fmt.Errorf("store: unable to count folder content: %w", err)
	}
	hits := []*FolderEntry{}
	if total > q.From {
		var err error
		if hits, err = s.contentPage(ctx, p, folderID, q, total); err != nil {
			return nil, 0, nil, err
		}
	}
	var next *ContentCursor
	if n := len(hits); n > 0 && q.From+n < total {
		last := hits[n-1]
		next = &ContentCursor{From: q.From + n, ByName: q.ByName, Desc: q.Desc, Name: last.Name, ID: last.ID}
	}
	return hits, total, next, nil
}

// contentPage cuts a page by the index: after a cursor, from it; at an
// offset in the back half, walking from the other end, so that no offset
// walks more than half the folder.
func (s *Store) contentPage(ctx context.Context, p *loupe.Principal, folderID string, q ContentQuery, total int) ([]*FolderEntry, error) {
	desc, keyset, reverse := q.Desc, q.After != nil, false
	args := []any{p.TenantID, folderID, q.From, q.Size}
	switch {
	case keyset && q.ByName:
		args[2] = q.After.Name
	case keyset:
		args[2] = q.After.ID
	case q.From > total/2:
		end := min(q.From+q.Size, total)
		desc, reverse = !q.Desc, true
		args[2], args[3] = total-end, end-q.From
	}
	if !p.IsAdmin {
		args = append(args, p.UserID, aclTokens(p))
	}
	if keyset && q.ByName {
		args = append(args, q.After.ID)
	}
	hits, err := selectScanned(ctx, s, (*FolderEntry).dests, folderContentSQL[[4]bool{q.ByName, desc, !p.IsAdmin, keyset}], args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list folder content: %w", err)
	}
	if reverse {
		slices.Reverse(hits)
	}
	return hits, nil
}

// Subfolders: a keyset connection by (name, id).

var subfoldersSQL = `SELECT ` + folderColumns + `
FROM item_folders l JOIN items i ON i.tenant_id = l.tenant_id AND i.id = l.item_id
WHERE l.tenant_id = $1 AND l.folder_id = $2 AND l.child_type = 'folder' AND NOT l.child_deleted
  AND ($3::text IS NULL OR (l.child_name, l.item_id) > ($3::text, $4::uuid))
  AND ` + admitsSQL("i", 6, 7) + `
ORDER BY l.child_name, l.item_id LIMIT $5`

// SubfolderCursor encodes a position in a folder's subfolders.
func SubfolderCursor(f *Folder) string {
	b, _ := json.Marshal([2]string{f.Name, f.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// Subfolders returns a page of a folder's live subfolders the principal may see, by name, after a
// cursor, and whether more follow. Returns EINVALID for a bad cursor or size.
func (s *Store) Subfolders(ctx context.Context, p *loupe.Principal, folderID, after string, first int) ([]*Folder, bool, error) {
	if first < 1 || first > MaxItemPage {
		return nil, false, loupe.Invalid("first must be between 1 and %d", MaxItemPage)
	}
	var name, id *string
	if after != "" {
		var pos [2]string
		b, err := base64.RawURLEncoding.DecodeString(after)
		if err != nil || json.Unmarshal(b, &pos) != nil || !loupe.ValidID(pos[1]) {
			return nil, false, loupe.Invalid("invalid cursor")
		}
		name, id = &pos[0], &pos[1]
	}
	out := []*Folder{}
	if !loupe.ValidID(folderID) {
		return out, false, nil
	}
	if err := s.selectPrepared(ctx, &out, subfoldersSQL, p.TenantID, folderID, name, id, first+1, p.UserID, aclTokens(p)); err != nil {
		return nil, false, fmt.Errorf("store: unable to list subfolders: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}
