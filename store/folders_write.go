package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// FolderUpdate changes a folder; nil fields stay as they are.
type FolderUpdate struct {
	ID          string
	Name        *string
	Parent      *string
	ToTop       bool
	Owner       *string
	VisibleTo   *loupe.Access
	UpdatableBy *loupe.Access
	SortKey     *string
}

// Messages of the spec (section 7) and ours for folder moves.
const (
	MsgParentMissing = "The new parent folder does not exists."
	msgMoveIntoSelf  = "A folder cannot be moved into itself or one of its subfolders."
)

const (
	lockFolderSQL = `
SELECT id FROM items WHERE tenant_id = $1 AND id = $2 AND item_type = 'folder' AND deleted_on IS NULL FOR UPDATE`

	// moveTargetSQL answers whether the new parent is a live folder and
	// whether the moved folder is among its ancestors (itself included).
	moveTargetSQL = `
WITH RECURSIVE up(id, depth) AS (
    SELECT $2::uuid, 0
  UNION
    SELECT l.folder_id, up.depth + 1 FROM up
    JOIN item_folders l ON l.tenant_id = $1 AND l.item_id = up.id AND l.position = 1
    WHERE up.depth < 64
)
SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND id = $2 AND item_type = 'folder' AND deleted_on IS NULL) AS live,
       EXISTS (SELECT 1 FROM up WHERE id = $3) AS cycle`

	unlinkFolderSQL = `DELETE FROM item_folders WHERE tenant_id = $1 AND item_id = $2`
	linkFolderSQL   = `INSERT INTO item_folders (tenant_id, item_id, folder_id, position) VALUES ($1, $2, $3, 1)`
	userExistsSQL   = `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = $1 AND id = $2 AND NOT deactivated)`
	updateFolderSQL = `
UPDATE items SET
    title = COALESCE($3, title),
    metadata_form_data = CASE WHEN $3::text IS NULL THEN metadata_form_data
                              ELSE jsonb_set(metadata_form_data, '{default_title}', to_jsonb($3::text)) END,
    owner_id = COALESCE($4, owner_id),
    visible_to = COALESCE($5, visible_to),
    updatable_by = COALESCE($6, updatable_by),
    sort_key = CASE WHEN $7::boolean THEN $8 ELSE sort_key END,
    modified_on = $9
WHERE tenant_id = $1 AND id = $2`
)

// UpdateFolder renames, moves, re-owns a live folder or changes its access
// or sortKey, in one transaction. Returns ENOTFOUND for an unknown folder,
// EINVALID for a bad value, an unknown parent (the spec's message) or a
// move into the folder's own subtree.
func (s *Store) UpdateFolder(ctx context.Context, p *loupe.Principal, u FolderUpdate) (*Folder, error) {
	var name *string
	if u.Name != nil {
		n, err := loupe.ValidFolderName(*u.Name)
		if err != nil {
			return nil, err
		}
		name = &n
	}
	var visible, updatable any
	if u.VisibleTo != nil {
		if err := u.VisibleTo.Validate("visibleTo"); err != nil {
			return nil, err
		}
		visible = *u.VisibleTo
	}
	if u.UpdatableBy != nil {
		if err := u.UpdatableBy.Validate("updatableBy"); err != nil {
			return nil, err
		}
		updatable = *u.UpdatableBy
	}
	if u.SortKey != nil && len(*u.SortKey) > 256 {
		return nil, loupe.Invalid("sortKey is longer than 256 characters")
	}
	if u.Parent != nil && u.ToTop {
		return nil, loupe.Invalid("give parent or toTop, not both")
	}
	if !loupe.ValidID(u.ID) {
		return nil, loupe.NotFound()
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveFolder(ctx, tx, p.TenantID, u.ID); err != nil {
			return err
		}
		if u.Owner != nil {
			var ok bool
			if err := tx.GetContext(ctx, &ok, userExistsSQL, p.TenantID, validOrNil(*u.Owner)); err != nil {
				return fmt.Errorf("store: unable to check owner: %w", err)
			}
			if !ok {
				return loupe.Invalid("owner %s is not an active user of the tenant", *u.Owner)
			}
		}
		if u.Parent != nil || u.ToTop {
			if err := moveFolderTx(ctx, tx, p, u.ID, u.Parent); err != nil {
				return err
			}
		}
		at := now()
		_, err := tx.ExecContext(ctx, updateFolderSQL, p.TenantID, u.ID, name, u.Owner, visible, updatable,
			u.SortKey != nil, u.SortKey, at)
		if err != nil {
			return fmt.Errorf("store: unable to update folder %s: %w", u.ID, err)
		}
		// A folder is an item: its changes are the item's. Access and owner
		// changes are announced too — subscribers' access is checked when
		// each event is delivered.
		var parts []loupe.ItemPart
		if name != nil {
			parts = append(parts, loupe.PartTitle)
		}
		if u.Parent != nil || u.ToTop {
			parts = append(parts, loupe.PartFolders)
		}
		var changed []string
		for k, set := range map[string]bool{"owner": u.Owner != nil, "visibleTo": visible != nil,
			"updatableBy": updatable != nil, "sortKey": u.SortKey != nil} {
			if set {
				changed = append(changed, k)
			}
		}
		slices.Sort(changed)
		return emitTx(ctx, tx, p.TenantID, at, itemChange(u.ID, p.UserID, nonNil(parts), "folder", nonNil(changed)))
	})
	if err != nil {
		return nil, err
	}
	return s.Folder(ctx, p, u.ID)
}

// moveFolderTx puts a folder under parent (nil: at the top).
func moveFolderTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, id string, parent *string) error {
	tenantID := p.TenantID
	if parent != nil {
		if !loupe.ValidID(*parent) {
			return loupe.Invalid(MsgParentMissing)
		}
		var t struct {
			Live  bool `db:"live"`
			Cycle bool `db:"cycle"`
		}
		if err := tx.GetContext(ctx, &t, moveTargetSQL, tenantID, *parent, id); err != nil {
			return fmt.Errorf("store: unable to check move target: %w", err)
		}
		if !t.Live {
			return loupe.Invalid(MsgParentMissing)
		}
		if t.Cycle {
			return loupe.Invalid(msgMoveIntoSelf)
		}
		if err := checkParents(ctx, tx, p, []string{*parent}); err != nil {
			if loupe.ErrorKind(err) == loupe.EINVALID {
				return loupe.Invalid(MsgParentMissing) // invisible answers like missing
			}
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, unlinkFolderSQL, tenantID, id); err != nil {
		return fmt.Errorf("store: unable to move folder: %w", err)
	}
	if parent != nil {
		if _, err := tx.ExecContext(ctx, linkFolderSQL, tenantID, id, *parent); err != nil {
			return fmt.Errorf("store: unable to move folder: %w", err)
		}
	}
	return nil
}

func lockLiveFolder(ctx context.Context, tx *sqlx.Tx, tenantID, id string) error {
	var got string
	if err := tx.GetContext(ctx, &got, lockFolderSQL, tenantID, id); err != nil {
		return notFoundOr(err, "store: unable to lock folder %s: %w", id)
	}
	return nil
}

func validOrNil(id string) any {
	if loupe.ValidID(id) {
		return id
	}
	return nil
}

const setFolderMetadataSQL = `
UPDATE items SET metadata_form_id = $3, metadata_form_data = $4, title = $5,
                 metadata_version = metadata_version + 1, modified_on = $6
WHERE tenant_id = $1 AND id = $2`

// SetFolderMetadata replaces a live folder's form and values; a non-empty
// default_title renames the folder. Returns ENOTFOUND for an unknown folder,
// EINVALID for bad metadata.
func (s *Store) SetFolderMetadata(ctx context.Context, p *loupe.Principal, id string, formID *string, formData loupe.JSON) (*Folder, error) {
	form := "default_folder"
	if formID != nil {
		if !loupe.ValidFormID(*formID) {
			return nil, loupe.Invalid("invalid metadata.formId %q", *formID)
		}
		form = *formID
	}
	data := map[string]json.RawMessage{}
	if !formData.IsNull() {
		if err := json.Unmarshal(formData, &data); err != nil || data == nil {
			return nil, loupe.Invalid("metadata.formData must be an object")
		}
	}
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveFolder(ctx, tx, p.TenantID, id); err != nil {
			return err
		}
		cur, err := folderTx(ctx, tx, p.TenantID, id)
		if err != nil {
			return err
		}
		name := cur.Name
		if raw, ok := data["default_title"]; ok {
			var t string
			if json.Unmarshal(raw, &t) != nil {
				return loupe.Invalid("default_title must be a string")
			}
			if t != "" {
				if name, err = loupe.ValidFolderName(t); err != nil {
					return err
				}
			}
		}
		data["default_title"] = loupe.RawJSON(name)
		before, err := cur.MetadataFormData.Object()
		if err != nil {
			return fmt.Errorf("store: unreadable metadata of folder %s: %w", id, err)
		}
		if data, err = replaceFormDataTx(ctx, tx, p.TenantID, cur.MetadataFormID, before, form, data, ""); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, setFolderMetadataSQL, p.TenantID, id, form, loupe.JSONOf(data), name, now()); err != nil {
			return fmt.Errorf("store: unable to write folder metadata: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Folder(ctx, p, id)
}

func folderTx(ctx context.Context, tx *sqlx.Tx, tenantID, id string) (*Folder, error) {
	var f Folder
	if err := tx.GetContext(ctx, &f, folderByIDSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch folder %s: %w", id)
	}
	return &f, nil
}

// Folder paths.

const (
	// folderPathLockClass namespaces the advisory lock that serialises path
	// creation in a tenant, so that racing calls never make twins.
	folderPathLockClass = 0x4650 // "FP"
	lockFolderPathsSQL  = `SELECT pg_advisory_xact_lock($2::int, hashtext($1::text))`

	// Folders the principal may not see are not found: the path gets its
	// own folder beside them.
	childFolderSQL = `
SELECT l.item_id FROM item_folders l JOIN items i ON i.tenant_id = l.tenant_id AND i.id = l.item_id
WHERE l.tenant_id = $1 AND l.folder_id = $2 AND l.child_type = 'folder' AND NOT l.child_deleted AND l.child_name = $3
  AND loupe_admits(i.visible_to, i.owner_id, $4::uuid, $5::text[])
ORDER BY l.item_id LIMIT 1`

	topFolderSQL = `
SELECT i.id FROM items i
WHERE i.tenant_id = $1 AND i.item_type = 'folder' AND i.deleted_on IS NULL AND i.title = $2
  AND NOT EXISTS (SELECT 1 FROM item_folders l WHERE l.tenant_id = i.tenant_id AND l.item_id = i.id)
  AND loupe_admits(i.visible_to, i.owner_id, $3::uuid, $4::text[])
ORDER BY i.id LIMIT 1`
)

// CreateFolderPath makes the missing folders of a slash-separated path and
// answers the path's folders from the top down. It is idempotent, also
// under concurrent calls. Returns EINVALID for an empty or bad path.
func (s *Store) CreateFolderPath(ctx context.Context, p *loupe.Principal, path string) ([]*Folder, error) {
	names, err := loupe.FolderPathNames(path)
	if err != nil {
		return nil, err
	}
	var ids []string
	created := 0
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		ids, created, err = folderPathTx(ctx, tx, p, names)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, MetricItemsCreated, created)
	byID, err := s.FoldersByIDs(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*Folder, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// folderPathTx makes the missing folders of the path names (checked by
// FolderPathNames) in tx and answers the ids of the path's folders from the
// top down and how many it made: CreateFolderPath, and an ingest placing
// items in the folders of their keys.
func folderPathTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, names []string) ([]string, int, error) {
	ids := make([]string, len(names))
	created := 0
	if _, err := tx.ExecContext(ctx, lockFolderPathsSQL, p.TenantID, folderPathLockClass); err != nil {
		return nil, 0, fmt.Errorf("store: unable to lock folder paths: %w", err)
	}
	parent := ""
	for i, name := range names {
		var found []string
		var err error
		if parent == "" {
			err = tx.SelectContext(ctx, &found, topFolderSQL, p.TenantID, name, p.UserID, aclTokens(p))
		} else {
			err = tx.SelectContext(ctx, &found, childFolderSQL, p.TenantID, parent, name, p.UserID, aclTokens(p))
		}
		if err != nil {
			return nil, 0, fmt.Errorf("store: unable to look up folder %q: %w", name, err)
		}
		if len(found) > 0 {
			ids[i] = found[0]
		} else {
			in := &loupe.CreateItemInput{Title: &name, ItemType: "folder"}
			if parent != "" {
				in.FolderParents = []string{parent}
			}
			it, err := createItem(ctx, tx, p, in)
			if err != nil {
				return nil, 0, err
			}
			ids[i] = it.ID
			created++
		}
		parent = ids[i]
	}
	return ids, created, nil
}

// Item membership in folders.

const (
	addToFolderSQL = `
INSERT INTO item_folders (tenant_id, item_id, folder_id, position)
SELECT $1, $2, $3, COALESCE(max(position), 0) + 1 FROM item_folders WHERE tenant_id = $1 AND item_id = $2
ON CONFLICT DO NOTHING`
	removeFromFolderSQL = `DELETE FROM item_folders WHERE tenant_id = $1 AND item_id = $2 AND folder_id = $3`
	moveInFolderSQL     = `UPDATE item_folders SET folder_id = $4 WHERE tenant_id = $1 AND item_id = $2 AND folder_id = $3`
	itemTypeSQL         = `SELECT item_type FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`
)

// AddItemToFolder puts a live item into one more live folder (nothing
// changes when it is there already). Returns ENOTFOUND for an unknown item,
// EINVALID for an unknown folder or a folder item (folders move with
// UpdateFolder).
func (s *Store) AddItemToFolder(ctx context.Context, p *loupe.Principal, itemID, folderID string) (*Item, error) {
	return s.changeFolders(ctx, p, itemID, "", folderID)
}

// RemoveItemFromFolder takes a live item out of one of its folders.
// Returns ENOTFOUND when the item is not in that folder.
func (s *Store) RemoveItemFromFolder(ctx context.Context, p *loupe.Principal, itemID, folderID string) (*Item, error) {
	return s.changeFolders(ctx, p, itemID, folderID, "")
}

// MoveItem moves a live item from one of its folders to another, keeping
// its place in folderParents.
func (s *Store) MoveItem(ctx context.Context, p *loupe.Principal, itemID, from, to string) (*Item, error) {
	return s.changeFolders(ctx, p, itemID, from, to)
}

func (s *Store) changeFolders(ctx context.Context, p *loupe.Principal, itemID, from, to string) (*Item, error) {
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	var it *Item
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var typ string
		if err := tx.GetContext(ctx, &typ, itemTypeSQL, p.TenantID, itemID); err != nil {
			return notFoundOr(err, "store: unable to lock item %s: %w", itemID)
		}
		if typ == "folder" {
			return loupe.Invalid("folders move with updateFolder (POST /api/v1/folders/{folderId} with parent)")
		}
		if to != "" {
			if !loupe.ValidID(to) {
				return loupe.Invalid("folder %s does not exist", to)
			}
			if err := checkParents(ctx, tx, p, []string{to}); err != nil {
				return err
			}
		}
		var (
			res sqlResult
			err error
		)
		switch {
		case from == "":
			res, err = tx.ExecContext(ctx, addToFolderSQL, p.TenantID, itemID, to)
		case to == "":
			res, err = tx.ExecContext(ctx, removeFromFolderSQL, p.TenantID, itemID, validOrNil(from))
		default:
			res, err = tx.ExecContext(ctx, moveInFolderSQL, p.TenantID, itemID, validOrNil(from), to)
		}
		if err != nil {
			if isUniqueViolation(err) {
				return loupe.Errorf(loupe.ECONFLICT, "the item is in folder %s already", to)
			}
			return fmt.Errorf("store: unable to change folders of %s: %w", itemID, err)
		}
		if from != "" {
			if err := oneRow(res); err != nil {
				return loupe.Errorf(loupe.ENOTFOUND, "the item is not in folder %s", from)
			}
		}
		at := now()
		if err := touchItem(ctx, tx, p.TenantID, itemID, at); err != nil {
			return err
		}
		change := map[string]string{}
		if from != "" {
			change["removedFrom"] = from
		}
		if to != "" {
			change["addedTo"] = to
		}
		if err := emitTx(ctx, tx, p.TenantID, at, itemChange(itemID, p.UserID, []loupe.ItemPart{loupe.PartFolders},
			"folders", change)); err != nil {
			return err
		}
		it, err = getItem(ctx, tx, itemByIDSQL, p.TenantID, itemID)
		return err
	})
	return it, err
}
