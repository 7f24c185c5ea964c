package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

const (
	// liveFoldersSQL returns which of the ids are live folders of the tenant
	// (that the principal at $3 with tokens $4 may see).
	liveFoldersSQL = `
SELECT i.id FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.item_type = 'folder' AND i.deleted_on IS NULL
  AND loupe_admits(i.visible_to, i.owner_id, $3::uuid, $4::text[])`

	// parentAccessSQL is the access rules a new folder copies from its parent.
	parentAccessSQL = `SELECT visible_to, updatable_by FROM items WHERE tenant_id = $1 AND id = $2`

	// Every item starts with its first version, named like the
	// original service names it.
	insertFirstVersionSQL = `
INSERT INTO item_versions (tenant_id, item_id, id, name, created_by, created_on)
VALUES ($1, $2, $3, 'Version 1', $4, $5)`
)

// createItemSQL is the whole write of a create in one statement: the item
// ($1–$27 as insertItemValuesSQL), its itemCreation event ($28 its data),
// its first version ($29), its links to its folders (from $27, with the
// child's name and type given, so that the fill trigger need not look up
// a row this statement is inserting: migration 00037) and its create audit
// record ($30 its id, $31 the email, $32 the mdfDiff). It answers the item
// as itemByIDSQL reads it. Foreign keys and the links' AFTER triggers run
// at the statement's end and see the item.
var createItemSQL = `
WITH inserted AS (` + insertItemValuesSQL + `
    RETURNING ` + itemColumns + `),
event AS (
    INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
    SELECT $1, 'itemCreation', n.id, $2, $3, $28::jsonb FROM inserted n),
version AS (
    INSERT INTO item_versions (tenant_id, item_id, id, name, created_by, created_on)
    SELECT $1, n.id, $29::uuid, 'Version 1', $2, $3 FROM inserted n),
links AS (
    INSERT INTO item_folders (tenant_id, item_id, folder_id, position, child_name, child_type)
    SELECT $1, n.id, p.id, p.ord, n.title, n.item_type
    FROM inserted n, unnest($27::uuid[]) WITH ORDINALITY AS p(id, ord)),
audit AS (
    INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on, mdf_diff)
    SELECT $1, $30::uuid, n.id, 'create', $2, $31::text, n.title, $3, $32::jsonb FROM inserted n)
SELECT * FROM inserted`

// CreateItem stores a new item with its first version, folder links, event
// and create audit record. Returns EINVALID for bad input or an unknown
// folder parent, ECONFLICT for an externalId in use.
//
// It needs no transaction: what a create reads first (its folders, its
// form) is read as a transaction at READ COMMITTED would read it (no row
// is locked either way), and its writes are one statement, atomic on its
// own. A REST POST of an item is one round trip, its write, once the node
// has its form in memory (CacheForms), two before (it was seven: BEGIN,
// the form, three writes, a read of the item, COMMIT).
func (s *Store) CreateItem(ctx context.Context, p *loupe.Principal, in *loupe.CreateItemInput) (*Item, error) {
	// Prepared: a create's two statements are planned once per connection,
	// not on every POST (planning was a third of their time).
	it, err := createItemWith(ctx, s.prepQueryer(), s.forms, p, in)
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, MetricItemsCreated, 1)
	return it, nil
}

// createItem is CreateItem in a transaction of the caller's that makes the
// item among other writes: its form is read there, locked against
// deletion.
func createItem(ctx context.Context, q queryer, p *loupe.Principal, in *loupe.CreateItemInput) (*Item, error) {
	return createItemWith(ctx, q, nil, p, in)
}

// createItemWith is CreateItem on q, its form read through forms (the
// node's cache; nil reads it on q).
func createItemWith(ctx context.Context, q queryer, forms *formCache, p *loupe.Principal, in *loupe.CreateItemInput) (*Item, error) {
	n, err := in.NewItem()
	if err != nil {
		return nil, err
	}
	for _, id := range in.FolderParents {
		if !loupe.ValidID(id) {
			return nil, loupe.Invalid("folder %s does not exist", id)
		}
	}
	id, at := loupe.NewID(), now()
	if err := checkParents(ctx, q, p, in.FolderParents); err != nil {
		return nil, err
	}
	form, err := formOf(ctx, forms, q, p.TenantID, n.FormID)
	if err != nil {
		return nil, err
	}
	if n.FormData, err = newFormDataOf(ctx, q, p.TenantID, n.FormID, form, n.FormData); err != nil {
		return nil, err
	}
	row := &newItemRow{ID: id, In: in, NewItem: n}
	if in.ItemType == "folder" {
		access := loupe.TenantAccess()
		row.Owner, row.Visible, row.Updatable = &p.UserID, &access, &access
		if len(in.FolderParents) == 1 {
			// A subfolder starts with its parent's rules, so that a
			// private tree stays private.
			var rules struct {
				Visible   loupe.Access `db:"visible_to"`
				Updatable loupe.Access `db:"updatable_by"`
			}
			if err := q.GetContext(ctx, &rules, parentAccessSQL, p.TenantID, in.FolderParents[0]); err != nil {
				return nil, fmt.Errorf("store: unable to read parent access: %w", err)
			}
			row.Visible, row.Updatable = &rules.Visible, &rules.Updatable
		}
	}
	event, err := json.Marshal(createdEvent(row, p.UserID).Data)
	if err != nil {
		return nil, err
	}
	args := append([]any{p.TenantID, p.UserID, at}, itemRowsOf([]*newItemRow{row}).row(0)...)
	args = append(args, string(event), loupe.NewID(), loupe.NewID(), p.Email, CreateDiff(n.FormID, n.FormData))
	var it Item
	if err := q.GetContext(ctx, &it, createItemSQL, args...); err != nil {
		if isUniqueViolation(err) {
			return nil, loupe.Errorf(loupe.ECONFLICT, "externalId %q is already used by another item", *in.ExternalID)
		}
		return nil, fmt.Errorf("store: unable to create item: %w", err)
	}
	return &it, decodeMedia(&it)
}

// checkParents checks the folders a new item goes into: each must be a
// live folder the principal may see (EINVALID "does not exist" otherwise,
// as for a missing one) and change (EFORBIDDEN).
func checkParents(ctx context.Context, tx selecter, p *loupe.Principal, parents []string) error {
	if len(parents) == 0 {
		return nil
	}
	var found []string
	if err := tx.SelectContext(ctx, &found, liveFoldersSQL, p.TenantID, stringArray(parents), p.UserID, aclTokens(p)); err != nil {
		return fmt.Errorf("store: unable to check folders: %w", err)
	}
	if missing := firstMissing(parents, found); missing != "" {
		return loupe.Invalid("folder %s does not exist", missing)
	}
	if p.IsAdmin {
		return nil
	}
	var rows []ItemAccess
	if err := tx.SelectContext(ctx, &rows, itemAccessSQL, p.TenantID, stringArray(parents), p.UserID, aclTokens(p)); err != nil {
		return fmt.Errorf("store: unable to check folders: %w", err)
	}
	for _, r := range rows {
		if !r.Updatable {
			return loupe.Forbidden("you may not add items to folder %s", r.ID)
		}
	}
	return nil
}

// CreateDiff is the mdfDiff of a create record: every field set, from
// nothing (also what bulk seeding writes, to look like the API's records).
func CreateDiff(formID string, formData map[string]json.RawMessage) loupe.JSON {
	type change struct {
		FieldID  string          `json:"fieldId"`
		OldValue json.RawMessage `json:"oldValue"`
		NewValue json.RawMessage `json:"newValue"`
	}
	keys := make([]string, 0, len(formData))
	for k := range formData {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := make([]change, 0, len(keys))
	for _, k := range keys {
		fields = append(fields, change{FieldID: k, OldValue: json.RawMessage("null"), NewValue: formData[k]})
	}
	return loupe.JSONOf(map[string]any{"newMdfId": formID, "metadataFields": fields})
}

func firstMissing(want, found []string) string {
	have := make(map[string]bool, len(found))
	for _, f := range found {
		have[f] = true
	}
	for _, w := range want {
		if !have[w] {
			return w
		}
	}
	return ""
}

const (
	// deleteItemSQL moves an item to the recycle bin; for a folder, also its
	// subfolders (to a bounded depth) and the items that sit in no live
	// folder outside them. All remember the item they went with.
	deleteItemSQL = `
WITH RECURSIVE sub(id, depth) AS (
    SELECT i.id, 0 FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL
  UNION
    SELECT l.item_id, sub.depth + 1 FROM sub
    JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = sub.id
    WHERE l.child_type = 'folder' AND NOT l.child_deleted AND sub.depth < 64
),
cand AS (
    SELECT DISTINCT l.item_id AS id FROM sub
    JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = sub.id
    WHERE l.child_type <> 'folder' AND NOT l.child_deleted
),
keep AS (
    SELECT c.id FROM cand c
    JOIN item_folders o ON o.tenant_id = $1 AND o.item_id = c.id
    JOIN items f ON f.tenant_id = $1 AND f.id = o.folder_id AND f.deleted_on IS NULL
    WHERE NOT EXISTS (SELECT 1 FROM sub WHERE sub.id = o.folder_id)
)
UPDATE items i SET deleted_on = $3, modified_on = $3, deleted_with = $2
WHERE i.tenant_id = $1 AND i.deleted_on IS NULL
  AND (i.id IN (SELECT id FROM sub) OR i.id IN (SELECT id FROM cand EXCEPT SELECT id FROM keep))
RETURNING i.id, i.title, i.id = (SELECT t.archive_folder_id FROM tenants t WHERE t.id = $1) AS is_archive`

	// undeleteItemSQL restores an item and what was deleted with it.
	undeleteItemSQL = `
UPDATE items SET deleted_on = NULL, deleted_with = NULL, modified_on = $3
WHERE tenant_id = $1 AND deleted_on IS NOT NULL AND (id = $2 OR deleted_with = $2)
RETURNING id, title, false AS is_archive`
)

// changedItem is a row a bulk state change touched.
type changedItem struct {
	ID        string `db:"id"`
	Title     string `db:"title"`
	IsArchive bool   `db:"is_archive"`
}

// DeleteItem moves a live item to the recycle bin and records it. Deleting
// a folder also deletes its subfolders and the items that sit in no live
// folder outside them, each recorded. It answers the item and how many
// items went (itself included).
// Returns ENOTFOUND when there is no such live item, EINVALID for the
// tenant's archive folder.
func (s *Store) DeleteItem(ctx context.Context, p *loupe.Principal, id string) (*Item, int, error) {
	return s.changeState(ctx, p, id, deleteItemSQL, loupe.ActionDelete, itemAnyStateSQL)
}

// UndeleteItem restores an item from the recycle bin, with what was deleted
// with it (a folder's content), and records each.
// Returns ENOTFOUND when no such item is in the recycle bin, ECONFLICT when
// an externalId has been taken by another item meanwhile.
func (s *Store) UndeleteItem(ctx context.Context, p *loupe.Principal, id string) (*Item, error) {
	it, _, err := s.changeState(ctx, p, id, undeleteItemSQL, loupe.ActionUndelete, itemByIDSQL)
	return it, err
}

func (s *Store) changeState(ctx context.Context, p *loupe.Principal, id, change string, action loupe.AuditAction, reread string) (*Item, int, error) {
	if !loupe.ValidID(id) {
		return nil, 0, loupe.NotFound()
	}
	var (
		it   *Item
		rows []changedItem
	)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		if err := tx.SelectContext(ctx, &rows, change, p.TenantID, id, at); err != nil {
			if isUniqueViolation(err) {
				return loupe.Errorf(loupe.ECONFLICT, "an externalId of the restored items is used by another item")
			}
			return fmt.Errorf("store: unable to %s item %s: %w", action, id, err)
		}
		found := false
		for _, r := range rows {
			if r.IsArchive {
				return loupe.Invalid("the archive folder cannot be deleted")
			}
			found = found || r.ID == id
		}
		if !found {
			return loupe.NotFound()
		}
		ids, err := recordStateChangesTx(ctx, tx, p, rows, action, id, at)
		if err != nil {
			return err
		}
		switch action {
		case loupe.ActionDelete:
			if err := s.cancelProcessingTx(ctx, tx, p.TenantID, ids); err != nil {
				return err
			}
			if err := stopRecordingsTx(ctx, tx, p.TenantID, ids, at); err != nil {
				return err
			}
		case loupe.ActionUndelete:
			if err := s.requeueRestoredTx(ctx, tx, p.TenantID, ids); err != nil {
				return err
			}
		}
		it, err = getItem(ctx, tx, reread, p.TenantID, id)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	if action == loupe.ActionDelete {
		s.countUsage(p.TenantID, MetricItemsDeleted, len(rows))
	}
	return it, len(rows), nil
}

// recordStateChangesTx audits items deleted or undeleted in tx and
// announces each (itemDeletion, itemUndeletion) naming with, the item the
// change was asked for ("": each its own), and answers their ids.
func recordStateChangesTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, rows []changedItem, action loupe.AuditAction,
	with string, at time.Time) ([]string, error) {
	if err := auditManyTx(ctx, tx, p, rows, action, at); err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	events := make([]NewEvent, len(rows))
	typ := map[loupe.AuditAction]loupe.EventType{loupe.ActionDelete: loupe.EventItemDeletion,
		loupe.ActionUndelete: loupe.EventItemUndeletion}[action]
	for i, r := range rows {
		ids[i] = r.ID
		w := with
		if w == "" {
			w = r.ID
		}
		// Items that went with the one asked for name it.
		events[i] = NewEvent{Type: typ, ItemID: r.ID, ActorID: p.UserID, Data: map[string]any{"with": w}}
	}
	return ids, emitTx(ctx, tx, p.TenantID, at, events...)
}

// ArchiveFolder names the tenant's archive folder.
type ArchiveFolder struct {
	FolderID   string `db:"id"`
	FolderName string `db:"title"`
}

const (
	toggleArchiveSQL = `
UPDATE items SET archived_on = CASE WHEN archived_on IS NULL THEN $3::timestamptz END, modified_on = $3
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL
RETURNING title, archived_on IS NOT NULL AS archived`

	archiveFolderSQL = `
SELECT f.id, f.title FROM tenants t JOIN items f ON f.tenant_id = t.id AND f.id = t.archive_folder_id
WHERE t.id = $1`
)

// ToggleArchive archives a live item, or unarchives an archived one, and
// records it. It answers whether the item is now archived and names the
// tenant's archive folder. Returns ENOTFOUND when there is no such live item.
func (s *Store) ToggleArchive(ctx context.Context, p *loupe.Principal, id string) (*Item, bool, *ArchiveFolder, error) {
	if !loupe.ValidID(id) {
		return nil, false, nil, loupe.NotFound()
	}
	var (
		it  *Item
		row struct {
			Title    string `db:"title"`
			Archived bool   `db:"archived"`
		}
		folder ArchiveFolder
	)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		if err := tx.GetContext(ctx, &row, toggleArchiveSQL, p.TenantID, id, at); err != nil {
			return notFoundOr(err, "store: unable to archive item %s: %w", id)
		}
		if err := tx.GetContext(ctx, &folder, archiveFolderSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to find archive folder: %w", err)
		}
		action := loupe.ActionArchiveInitiated
		if !row.Archived {
			action = loupe.ActionUnarchiveInitiated
		}
		if err := auditTx(ctx, tx, p, id, row.Title, action, at, nil); err != nil {
			return err
		}
		typ := loupe.EventItemArchive
		if !row.Archived {
			typ = loupe.EventItemUnarchive
		}
		if err := emitTx(ctx, tx, p.TenantID, at, NewEvent{Type: typ, ItemID: id, ActorID: p.UserID}); err != nil {
			return err
		}
		var err error
		it, err = getItem(ctx, tx, itemByIDSQL, p.TenantID, id)
		return err
	})
	if err != nil {
		return nil, false, nil, err
	}
	return it, row.Archived, &folder, nil
}

const (
	lockLiveItemSQL = `
SELECT id FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`
	touchItemSQL = `UPDATE items SET modified_on = $3 WHERE tenant_id = $1 AND id = $2`
)

// lockLiveItem locks a live item of the tenant for a write of its details,
// so that it cannot be deleted meanwhile; missing answers when it does not
// exist.
func lockLiveItem(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string, missing *loupe.Error) error {
	if !loupe.ValidID(itemID) {
		return missing
	}
	var id string
	if err := tx.GetContext(ctx, &id, lockLiveItemSQL, tenantID, itemID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return missing
		}
		return fmt.Errorf("store: unable to lock item %s: %w", itemID, err)
	}
	return nil
}

// touchItem records that an item's details changed.
func touchItem(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, touchItemSQL, tenantID, itemID, at); err != nil {
		return fmt.Errorf("store: unable to touch item %s: %w", itemID, err)
	}
	return nil
}
