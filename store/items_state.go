package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds the small per-item states: versions, the upload lock,
// media usage and location, external ids and folder ancestry.

const versionsOfItemsSQL = `
SELECT v.item_id, v.id, v.name, v.created_by, v.created_on,
       CASE WHEN i.deleted_on IS NULL THEN 'EXISTS' ELSE 'IN_RECYCLE_BIN' END AS version_state
FROM item_versions v JOIN items i ON i.tenant_id = v.tenant_id AND i.id = v.item_id
WHERE v.tenant_id = $1 AND v.item_id = ANY($2::uuid[])
ORDER BY v.item_id, v.id DESC`

// VersionsOfItems returns, per item, its versions newest first, in one query.
func (s *Store) VersionsOfItems(ctx context.Context, tenantID string, itemIDs []string) (map[string][]*ItemVersion, error) {
	return listOf[ItemVersion](ctx, s, versionsOfItemsSQL, tenantID, itemIDs, func(v *ItemVersion) string { return v.ItemID })
}

const renameVersionSQL = `
UPDATE item_versions v SET name = $4
FROM items i
WHERE v.tenant_id = $1 AND v.item_id = $2 AND v.id = $3
  AND i.tenant_id = v.tenant_id AND i.id = v.item_id AND i.deleted_on IS NULL`

// MaxVersionName bounds a version's name.
const MaxVersionName = 256

// RenameVersion names a version of a live item. Returns ENOTFOUND for an
// unknown item or version, EINVALID for a blank or overlong name.
func (s *Store) RenameVersion(ctx context.Context, tenantID, itemID, versionID, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > MaxVersionName {
		return loupe.Invalid("name must be 1 to %d characters", MaxVersionName)
	}
	if !loupe.ValidID(itemID) || !loupe.ValidID(versionID) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, renameVersionSQL, tenantID, itemID, versionID, name)
	if err != nil {
		return fmt.Errorf("store: unable to rename version: %w", err)
	}
	return oneRow(res)
}

const setUploadLockSQL = `
UPDATE items SET upload_lock_owner = $3::text,
                 upload_locked_on = CASE WHEN $3::text IS NULL THEN NULL ELSE $4::timestamptz END,
                 upload_lock_upload = NULL,
                 modified_on = $4
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

// SetUploadLock takes (owner not nil) or releases (nil) the upload lock of a
// live item. Releasing also breaks the lock of any of the item's tus
// uploads (a stale one, or a request writing now, which stops: its client
// resumes from what was stored). Returns ENOTFOUND for an unknown item.
func (s *Store) SetUploadLock(ctx context.Context, tenantID, itemID string, owner *string) error {
	if owner != nil && (strings.TrimSpace(*owner) == "" || len(*owner) > 256) {
		return loupe.Invalid("ownerInstanceId must be 1 to 256 characters")
	}
	if !loupe.ValidID(itemID) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, setUploadLockSQL, tenantID, itemID, owner, now())
		if err != nil {
			return fmt.Errorf("store: unable to set upload lock: %w", err)
		}
		if err := oneRow(res); err != nil {
			return err
		}
		if owner == nil {
			if _, err := tx.ExecContext(ctx, breakUploadLocksSQL, tenantID, itemID); err != nil {
				return fmt.Errorf("store: unable to break upload locks: %w", err)
			}
		}
		return nil
	})
}

const setMediaUsageSQL = `
UPDATE items SET media_usage = $3 WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

// SetMediaUsage records that a workflow used a live item's media. It does not
// change modifiedOn: using media is no change of the item.
// Returns ENOTFOUND for an unknown item, EINVALID for a blank workflow.
func (s *Store) SetMediaUsage(ctx context.Context, tenantID, itemID string, u MediaUsage) error {
	u.LastUsedWorkflow = strings.TrimSpace(u.LastUsedWorkflow)
	if u.LastUsedWorkflow == "" || len(u.LastUsedWorkflow) > 256 {
		return loupe.Invalid("lastUsedWorkflow must be 1 to 256 characters")
	}
	if !loupe.ValidID(itemID) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, setMediaUsageSQL, tenantID, itemID, loupe.JSONOf(u))
	if err != nil {
		return fmt.Errorf("store: unable to set media usage: %w", err)
	}
	return oneRow(res)
}

// MaxExternalIDs bounds one external-id lookup.
const MaxExternalIDs = 100

var itemsByExternalIDSQL = `
SELECT i.external_id, i.id FROM items i
WHERE i.tenant_id = $1 AND i.external_id = ANY($2::text[]) AND i.deleted_on IS NULL AND ` + visibleItem

// ItemsByExternalIDs answers, in the order asked, which live item has each
// external id. Returns EINVALID for none or too many ids.
func (s *Store) ItemsByExternalIDs(ctx context.Context, p *loupe.Principal, externalIDs []string) ([]*ExternalIDMatch, error) {
	if len(externalIDs) == 0 || len(externalIDs) > MaxExternalIDs {
		return nil, loupe.Invalid("give 1 to %d external ids", MaxExternalIDs)
	}
	var rows []struct {
		ExternalID string `db:"external_id"`
		ID         string `db:"id"`
	}
	if err := s.selectPrepared(ctx, &rows, itemsByExternalIDSQL, p.TenantID, stringArray(externalIDs), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to look up external ids: %w", err)
	}
	found := make(map[string]string, len(rows))
	for _, r := range rows {
		found[r.ExternalID] = r.ID
	}
	out := make([]*ExternalIDMatch, len(externalIDs))
	for i, ext := range externalIDs {
		m := &ExternalIDMatch{Status: "notFound", ExternalID: ext}
		if id, ok := found[ext]; ok {
			m.Status, m.ItemID = "success", &id
		}
		out[i] = m
	}
	return out, nil
}

// ancestrySQL walks up from each item's folders to the top, keeping the path
// of each folder the item sits in. Depth is bounded so that a cycle (which
// moves refuse) could never loop.
const ancestrySQL = `
WITH RECURSIVE up(item_id, pos, folder_id, depth, path) AS (
    SELECT l.item_id, l.position, l.folder_id, 1,
           ARRAY[jsonb_build_object('id', f.id, 'name', f.title)]
    FROM item_folders l
    JOIN items f ON f.tenant_id = l.tenant_id AND f.id = l.folder_id AND f.deleted_on IS NULL
     AND loupe_admits(f.visible_to, f.owner_id, $3::uuid, $4::text[])
    WHERE l.tenant_id = $1 AND l.item_id = ANY($2::uuid[])
  UNION ALL
    SELECT up.item_id, up.pos, p.folder_id, up.depth + 1,
           jsonb_build_object('id', f.id, 'name', f.title) || up.path
    FROM up
    JOIN item_folders p ON p.tenant_id = $1 AND p.item_id = up.folder_id AND p.position = 1
    JOIN items f ON f.tenant_id = p.tenant_id AND f.id = p.folder_id AND f.deleted_on IS NULL
     AND loupe_admits(f.visible_to, f.owner_id, $3::uuid, $4::text[])
    WHERE up.depth < 64
)
SELECT DISTINCT ON (item_id, pos) item_id, to_jsonb(path) AS path
FROM up ORDER BY item_id, pos, depth DESC`

// AncestryOfItems returns, per item, the folder path to each folder it sits
// in (in folderParents order), each path from the top folder down. Folders
// the principal may not see end a path (it starts below them) or, for the
// folder the item sits in, leave the path out.
func (s *Store) AncestryOfItems(ctx context.Context, p *loupe.Principal, itemIDs []string) (map[string][][]*PathEntry, error) {
	out := make(map[string][][]*PathEntry, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ItemID string     `db:"item_id"`
		Path   loupe.JSON `db:"path"`
	}
	if err := s.selectPrepared(ctx, &rows, ancestrySQL, p.TenantID, stringArray(itemIDs), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch ancestry: %w", err)
	}
	for _, r := range rows {
		var path []*PathEntry
		if err := jsonUnmarshal(r.Path, &path); err != nil {
			return nil, err
		}
		out[r.ItemID] = append(out[r.ItemID], path)
	}
	return out, nil
}

// listOf selects rows keyed by item id and groups them by key, in one query.
func listOf[T any](ctx context.Context, s *Store, query, tenantID string, ids []string, key func(*T) string) (map[string][]*T, error) {
	out := make(map[string][]*T, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []*T
	if err := s.selectPrepared(ctx, &rows, query, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to list %T: %w", rows, err)
	}
	for _, r := range rows {
		out[key(r)] = append(out[key(r)], r)
	}
	return out, nil
}
