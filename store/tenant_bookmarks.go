package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's system bookmarks and their folders (spec
// 2.11). Everyone reads the bookmarks visible to them; only admins write
// (the resolvers check that). Every write takes the tenant's bookmark lock,
// so writes of one tenant run one after another and the counts and folder
// checks they make stay true until they commit. The entities and their
// rules are loupe.Bookmark and loupe.BookmarkFolder.

const bookmarkColumns = `b.tenant_id, b.id, b.title, b.path, b.icon, b.is_filter_bookmark,
b.parent_folder, b.visible_to_groups, b.sort_key`

// bookmarkVisible admits a bookmark (aliased b) to the caller: $2 says the
// caller sees all (an admin); else a bookmark without groups, or one naming
// a group of user $3 by id or as "<tenant_id>:<name>". Membership is read
// here, not from the credential, so it is current.
const bookmarkVisible = `($2::boolean OR b.visible_to_groups IS NULL OR cardinality(b.visible_to_groups) = 0
 OR b.visible_to_groups && ARRAY(
    SELECT unnest(ARRAY[g.id::text, g.tenant_id::text || ':' || g.name])
    FROM user_groups ug JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
    WHERE ug.tenant_id = $1 AND ug.user_id = $3::uuid))`

// bookmarkOrder is the listing order: sortKey (nulls last), title, id
// (bookmarks_order_idx).
const bookmarkOrder = ` ORDER BY b.sort_key NULLS LAST, b.title, b.id`

const (
	visibleBookmarksSQL = `SELECT ` + bookmarkColumns + `
FROM bookmarks b WHERE b.tenant_id = $1 AND ` + bookmarkVisible + bookmarkOrder

	visibleBookmarkSQL = `SELECT ` + bookmarkColumns + `
FROM bookmarks b WHERE b.tenant_id = $1 AND b.id = $4 AND ` + bookmarkVisible

	bookmarkForUpdateSQL = `SELECT ` + bookmarkColumns + `
FROM bookmarks b WHERE b.tenant_id = $1 AND b.id = $2 FOR UPDATE`

	// lockBookmarksSQL serialises the bookmark and folder writes of one
	// tenant until the transaction ends.
	lockBookmarksSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.bookmarks:' || $1::text, 0))`

	countBookmarksSQL = `SELECT count(*) FROM bookmarks WHERE tenant_id = $1`

	bookmarkFolderExistsSQL = `SELECT EXISTS (SELECT 1 FROM bookmark_folders WHERE tenant_id = $1 AND id = $2)`

	bookmarkFolderIDsSQL = `SELECT id FROM bookmark_folders WHERE tenant_id = $1`

	insertBookmarkSQL = `
INSERT INTO bookmarks AS b (tenant_id, id, title, path, icon, is_filter_bookmark, parent_folder, visible_to_groups, sort_key)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
RETURNING ` + bookmarkColumns

	// insertBookmarksSQL writes a whole list in one statement from a JSON
	// array of bookmarks.
	insertBookmarksSQL = `
INSERT INTO bookmarks (tenant_id, id, title, path, icon, is_filter_bookmark, parent_folder, visible_to_groups, sort_key)
SELECT $1, r.id, r.title, r.path, r.icon, r.is_filter_bookmark, r.parent_folder, r.visible_to_groups, r.sort_key
FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, title text, path text, icon text, is_filter_bookmark boolean,
                                        parent_folder text, visible_to_groups text[], sort_key text)`

	deleteAllBookmarksSQL = `DELETE FROM bookmarks WHERE tenant_id = $1`

	updateBookmarkSQL = `
UPDATE bookmarks AS b SET title = $3, path = $4, icon = $5, is_filter_bookmark = $6, parent_folder = $7,
       visible_to_groups = $8, sort_key = $9
WHERE b.tenant_id = $1 AND b.id = $2
RETURNING ` + bookmarkColumns

	deleteBookmarkSQL = `DELETE FROM bookmarks WHERE tenant_id = $1 AND id = $2`

	bookmarkFoldersSQL = `SELECT f.tenant_id, f.id, f.title, f.parent_folder, f.sort_key
FROM bookmark_folders f WHERE f.tenant_id = $1
ORDER BY f.sort_key NULLS LAST, f.title, f.id`

	deleteAllBookmarkFoldersSQL = `DELETE FROM bookmark_folders WHERE tenant_id = $1`

	insertBookmarkFoldersSQL = `
INSERT INTO bookmark_folders (tenant_id, id, title, parent_folder, sort_key)
SELECT $1, r.id, r.title, r.parent_folder, r.sort_key
FROM jsonb_to_recordset($2::jsonb) AS r(id text, title text, parent_folder text, sort_key text)`

	// unlinkBookmarksSQL takes the bookmarks whose folder is gone ($2: the
	// ids that stay) to the top (bookmarks_parent_idx).
	unlinkBookmarksSQL = `UPDATE bookmarks SET parent_folder = NULL
WHERE tenant_id = $1 AND parent_folder IS NOT NULL AND parent_folder <> ALL($2::text[])`
)

// viewerArgs are the visibility parameters $1..$3 of bookmarkVisible.
func viewerArgs(p *loupe.Principal) []any {
	var userID any // NULL: in no group
	if loupe.ValidID(p.UserID) {
		userID = p.UserID
	}
	return []any{p.TenantID, p.IsAdmin, userID}
}

// Bookmarks returns the system bookmarks of p's tenant that p may see (all
// of them for an admin), in listing order.
func (s *Store) Bookmarks(ctx context.Context, p *loupe.Principal) ([]*loupe.Bookmark, error) {
	out := []*loupe.Bookmark{}
	if err := s.selectPrepared(ctx, &out, visibleBookmarksSQL, viewerArgs(p)...); err != nil {
		return nil, fmt.Errorf("store: unable to list bookmarks: %w", err)
	}
	return out, nil
}

// loupe.Bookmark returns one bookmark p may see. Returns ENOTFOUND when it is
// missing, of another tenant or not visible to p.
func (s *Store) Bookmark(ctx context.Context, p *loupe.Principal, id string) (*loupe.Bookmark, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var b loupe.Bookmark
	if err := s.getPrepared(ctx, &b, visibleBookmarkSQL, append(viewerArgs(p), id)...); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch bookmark: %w")
	}
	return &b, nil
}

// CreateBookmark validates b and adds it to the tenant with a new id.
// Returns EINVALID for a bad bookmark or a parentFolder that does not exist,
// ECONFLICT when the tenant has loupe.MaxBookmarks already.
func (s *Store) CreateBookmark(ctx context.Context, tenantID string, b *loupe.Bookmark) (*loupe.Bookmark, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	var out loupe.Bookmark
	err := s.bookmarkTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, countBookmarksSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to count bookmarks: %w", err)
		}
		if n >= loupe.MaxBookmarks {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d system bookmarks, the most it may have", loupe.MaxBookmarks)
		}
		if err := checkBookmarkFolder(ctx, tx, tenantID, b.ParentFolder); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out, insertBookmarkSQL, tenantID, loupe.NewID(), b.Title, b.Path, b.Icon,
			b.IsFilterBookmark, b.ParentFolder, b.VisibleToGroups, b.SortKey)
	})
	if err != nil {
		return nil, bookmarkWriteError(err, "create")
	}
	return &out, nil
}

// ReplaceBookmarks deletes the tenant's bookmarks and writes list instead,
// in one transaction: every element is checked first, and nothing changes
// when one is bad. An element keeps its id when it is a UUID not used by an
// earlier element, else it gets a new one. Returns the bookmarks in the
// order of list. Returns EINVALID naming the element.
func (s *Store) ReplaceBookmarks(ctx context.Context, tenantID string, list []*loupe.Bookmark) ([]*loupe.Bookmark, error) {
	if err := loupe.ValidateBookmarks(list); err != nil {
		return nil, err
	}
	for _, b := range list {
		b.TenantID = tenantID
	}
	rows, err := json.Marshal(bookmarkRows(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to encode bookmarks: %w", err)
	}
	err = s.bookmarkTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		var ids []string
		if err := tx.SelectContext(ctx, &ids, bookmarkFolderIDsSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to list bookmark folders: %w", err)
		}
		folders := make(map[string]bool, len(ids))
		for _, id := range ids {
			folders[id] = true
		}
		for i, b := range list {
			if b.ParentFolder != nil && !folders[*b.ParentFolder] {
				return loupe.Invalid("bookmarks[%d]: parentFolder %q does not exist", i, *b.ParentFolder)
			}
		}
		if _, err := tx.ExecContext(ctx, deleteAllBookmarksSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to delete bookmarks: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertBookmarksSQL, tenantID, string(rows)); err != nil {
			return fmt.Errorf("store: unable to insert bookmarks: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, bookmarkWriteError(err, "replace")
	}
	return list, nil
}

// bookmarkRow is a bookmark as insertBookmarksSQL reads it.
type bookmarkRow struct {
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Path             string   `json:"path"`
	Icon             string   `json:"icon"`
	IsFilterBookmark *bool    `json:"is_filter_bookmark"`
	ParentFolder     *string  `json:"parent_folder"`
	VisibleToGroups  []string `json:"visible_to_groups"`
	SortKey          *string  `json:"sort_key"`
}

func bookmarkRows(list []*loupe.Bookmark) []bookmarkRow {
	rows := make([]bookmarkRow, len(list))
	for i, b := range list {
		rows[i] = bookmarkRow{ID: b.ID, Title: b.Title, Path: b.Path, Icon: b.Icon,
			IsFilterBookmark: b.IsFilterBookmark, ParentFolder: b.ParentFolder,
			VisibleToGroups: b.VisibleToGroups, SortKey: b.SortKey}
	}
	return rows
}

// UpdateBookmark changes a bookmark: apply changes a copy of the stored one,
// which is then checked and written. Returns ENOTFOUND for a missing id,
// EINVALID for a bad result or a parentFolder that does not exist.
func (s *Store) UpdateBookmark(ctx context.Context, tenantID, id string, apply func(*loupe.Bookmark) error) (*loupe.Bookmark, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.Bookmark
	err := s.bookmarkTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		var b loupe.Bookmark
		if err := tx.GetContext(ctx, &b, bookmarkForUpdateSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to fetch bookmark: %w")
		}
		old := b.ParentFolder
		if err := apply(&b); err != nil {
			return err
		}
		if err := b.Validate(); err != nil {
			return err
		}
		if b.ParentFolder != nil && (old == nil || *old != *b.ParentFolder) {
			if err := checkBookmarkFolder(ctx, tx, tenantID, b.ParentFolder); err != nil {
				return err
			}
		}
		return tx.GetContext(ctx, &out, updateBookmarkSQL, tenantID, id, b.Title, b.Path, b.Icon,
			b.IsFilterBookmark, b.ParentFolder, b.VisibleToGroups, b.SortKey)
	})
	if err != nil {
		return nil, bookmarkWriteError(err, "update")
	}
	return &out, nil
}

// DeleteBookmark removes a bookmark. Returns ENOTFOUND for a missing id.
func (s *Store) DeleteBookmark(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteBookmarkSQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete bookmark: %w", err)
	}
	return oneRow(res)
}

// BookmarkFolders returns the tenant's bookmark folders by sortKey (nulls
// last), title, id.
func (s *Store) BookmarkFolders(ctx context.Context, tenantID string) ([]*loupe.BookmarkFolder, error) {
	out := []*loupe.BookmarkFolder{}
	if err := s.selectPrepared(ctx, &out, bookmarkFoldersSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list bookmark folders: %w", err)
	}
	return out, nil
}

// SetBookmarkFolders replaces the tenant's bookmark folders with folders, in
// one transaction; bookmarks in a folder that goes away move to the top
// (parentFolder null). Returns the folders in listing order, EINVALID for a
// bad set (see loupe.ValidateBookmarkFolders).
func (s *Store) SetBookmarkFolders(ctx context.Context, tenantID string, folders []*loupe.BookmarkFolder) ([]*loupe.BookmarkFolder, error) {
	if err := loupe.ValidateBookmarkFolders(folders); err != nil {
		return nil, err
	}
	type folderRow struct {
		ID           string  `json:"id"`
		Title        string  `json:"title"`
		ParentFolder *string `json:"parent_folder"`
		SortKey      *string `json:"sort_key"`
	}
	rows := make([]folderRow, len(folders))
	ids := make([]string, len(folders))
	for i, f := range folders {
		rows[i] = folderRow{ID: f.ID, Title: f.Title, ParentFolder: f.ParentFolder, SortKey: f.SortKey}
		ids[i] = f.ID
	}
	enc, err := json.Marshal(rows)
	if err != nil {
		return nil, fmt.Errorf("store: unable to encode bookmark folders: %w", err)
	}
	out := []*loupe.BookmarkFolder{}
	err = s.bookmarkTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, deleteAllBookmarkFoldersSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to delete bookmark folders: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertBookmarkFoldersSQL, tenantID, string(enc)); err != nil {
			return fmt.Errorf("store: unable to insert bookmark folders: %w", err)
		}
		if _, err := tx.ExecContext(ctx, unlinkBookmarksSQL, tenantID, pq.StringArray(ids)); err != nil {
			return fmt.Errorf("store: unable to unlink bookmarks: %w", err)
		}
		if err := tx.SelectContext(ctx, &out, bookmarkFoldersSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to list bookmark folders: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, bookmarkWriteError(err, "write folders of")
	}
	return out, nil
}

// bookmarkTx runs fn in a transaction holding the tenant's bookmark lock.
func (s *Store) bookmarkTx(ctx context.Context, tenantID string, fn func(tx *sqlx.Tx) error) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockBookmarksSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to lock bookmarks: %w", err)
		}
		return fn(tx)
	})
}

// checkBookmarkFolder answers EINVALID unless id (when set) names a bookmark
// folder of the tenant.
func checkBookmarkFolder(ctx context.Context, tx *sqlx.Tx, tenantID string, id *string) error {
	if id == nil {
		return nil
	}
	var ok bool
	if err := tx.GetContext(ctx, &ok, bookmarkFolderExistsSQL, tenantID, *id); err != nil {
		return fmt.Errorf("store: unable to check bookmark folder: %w", err)
	}
	if !ok {
		return loupe.Invalid("parentFolder %q does not exist", *id)
	}
	return nil
}

// bookmarkWriteError passes client errors on and wraps the rest. The folder
// checks run under the tenant's lock, so a foreign key violation (checked
// at commit) means a writer that bypassed it; it is still the client's
// folder that is missing.
func bookmarkWriteError(err error, what string) error {
	var se *loupe.Error
	if errors.As(err, &se) {
		return se
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23503" {
		return loupe.Invalid("parentFolder does not exist")
	}
	return fmt.Errorf("store: unable to %s bookmarks: %w", what, err)
}
