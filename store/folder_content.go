package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
)

// ContentQuery selects a page of a folder's content (spec 2.10).
type ContentQuery struct {
	From int
	Size int
	// ByName sorts by name, else by creation; Desc reverses.
	ByName bool
	Desc   bool
}

// MaxContentPage bounds one page of folder content.
const MaxContentPage = 1000

const entryColumns = `
i.id, COALESCE(i.owner_id, i.created_by) AS owner, i.item_type, i.title, i.created_on,
i.visible_to, i.updatable_by,
ARRAY(SELECT f.folder_id FROM item_folders f
      WHERE f.tenant_id = i.tenant_id AND f.item_id = i.id ORDER BY f.position) AS folder_parents`

// The page is cut from item_folders alone (item_folders_by_name_idx or
// item_folders_live_idx), then only its rows are joined with items. Keyed by
// (by name, descending, for a non-admin): a non-admin's listing leaves out
// the subfolders it may not see (the folder's other children are visible
// through the folder itself).
var folderContentSQL = map[[3]bool]string{}

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
				order := "l.item_id"
				if byName {
					order = "l.child_name, l.item_id"
				}
				if desc {
					order = "l.child_name DESC, l.item_id DESC"
					if !byName {
						order = "l.item_id DESC"
					}
				}
				filter := ""
				if filtered {
					filter = subfolderVisible(5, 6)
				}
				folderContentSQL[[3]bool{byName, desc, filtered}] = `
WITH page AS (
    SELECT l.item_id, row_number() OVER () AS n FROM (
        SELECT l.item_id FROM item_folders l
        WHERE l.tenant_id = $1 AND l.folder_id = $2 AND NOT l.child_deleted` + filter + `
        ORDER BY ` + order + ` OFFSET $3 LIMIT $4) l)
SELECT ` + entryColumns + `
FROM page JOIN items i ON i.tenant_id = $1 AND i.id = page.item_id
ORDER BY page.n`
			}
		}
	}
}

// The total comes from folder_stats (kept by triggers); a non-admin's total
// leaves out the live subfolders it may not see (few, by an index).
const countFolderContentSQL = `
SELECT COALESCE((SELECT live_children FROM folder_stats WHERE tenant_id = $1 AND folder_id = $2), 0)`

var countVisibleFolderContentSQL = countFolderContentSQL + ` - (SELECT count(*) FROM item_folders l
    JOIN items f ON f.tenant_id = l.tenant_id AND f.id = l.item_id
    WHERE l.tenant_id = $1 AND l.folder_id = $2 AND l.child_type = 'folder' AND NOT l.child_deleted
      AND NOT ` + admitsSQL("f", 3, 4) + `)`

// FolderContent returns a page of a live folder's content that the
// principal may see, and its size. Returns ENOTFOUND for an unknown or
// invisible folder, EINVALID for bad paging.
func (s *Store) FolderContent(ctx context.Context, p *Principal, folderID string, q ContentQuery) ([]*FolderEntry, int, error) {
	if q.From < 0 {
		return nil, 0, Invalid("from must not be negative")
	}
	if q.Size < 1 || q.Size > MaxContentPage {
		return nil, 0, Invalid("size must be between 1 and %d", MaxContentPage)
	}
	if _, err := s.Folder(ctx, p, folderID); err != nil {
		return nil, 0, err
	}
	var total int
	var err error
	if p.IsAdmin {
		err = s.getPrepared(ctx, &total, countFolderContentSQL, p.TenantID, folderID)
	} else {
		err = s.getPrepared(ctx, &total, countVisibleFolderContentSQL, p.TenantID, folderID, p.UserID, p.aclTokens())
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to count folder content: %w", err)
	}
	hits := []*FolderEntry{}
	if total > q.From {
		// A page in the back half is cut walking the index from the other
		// end, so no page walks more than half the folder.
		desc, offset, size, reverse := q.Desc, q.From, q.Size, false
		if q.From > total/2 {
			end := min(q.From+q.Size, total)
			desc, offset, size, reverse = !q.Desc, total-end, end-q.From, true
		}
		query := folderContentSQL[[3]bool{q.ByName, desc, !p.IsAdmin}]
		args := []any{p.TenantID, folderID, offset, size}
		if !p.IsAdmin {
			args = append(args, p.UserID, p.aclTokens())
		}
		if err := s.selectPrepared(ctx, &hits, query, args...); err != nil {
			return nil, 0, fmt.Errorf("store: unable to list folder content: %w", err)
		}
		if reverse {
			slices.Reverse(hits)
		}
	}
	return hits, total, nil
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
func (s *Store) Subfolders(ctx context.Context, p *Principal, folderID, after string, first int) ([]*Folder, bool, error) {
	if first < 1 || first > MaxItemPage {
		return nil, false, Invalid("first must be between 1 and %d", MaxItemPage)
	}
	var name, id *string
	if after != "" {
		var pos [2]string
		b, err := base64.RawURLEncoding.DecodeString(after)
		if err != nil || json.Unmarshal(b, &pos) != nil || !validID(pos[1]) {
			return nil, false, Invalid("invalid cursor")
		}
		name, id = &pos[0], &pos[1]
	}
	out := []*Folder{}
	if !validID(folderID) {
		return out, false, nil
	}
	if err := s.selectPrepared(ctx, &out, subfoldersSQL, p.TenantID, folderID, name, id, first+1, p.UserID, p.aclTokens()); err != nil {
		return nil, false, fmt.Errorf("store: unable to list subfolders: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}
