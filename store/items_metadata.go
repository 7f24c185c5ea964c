package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds writes of an item's descriptive metadata: form data
// (versioned), custom icons and timed metadata.

// MetadataUpdate is a delta to merge into an item's metadata.
type MetadataUpdate struct {
	ItemID string
	// FormID switches the item to another form when set.
	FormID *string
	// FormData is merged key by key; a null value removes the key.
	FormData loupe.JSON
	// RequiredVersion, when set, must equal the item's metadataVersion.
	RequiredVersion *int
}

const (
	lockItemMetadataSQL = `
SELECT title, metadata_form_id, metadata_form_data, metadata_version FROM items
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`

	// writeItemMetadataSQL checks the version again, so that the write is
	// correct even without the row lock.
	writeItemMetadataSQL = `
UPDATE items SET metadata_form_id = $3, metadata_form_data = $4, title = $5,
                 metadata_version = metadata_version + 1, modified_on = $6
WHERE tenant_id = $1 AND id = $2 AND metadata_version = $7`
)

// UpdateItemMetadata merges a delta into a live item's form data, bumps its
// metadataVersion and records the change with its mdfDiff, in one
// transaction. The title follows default_title.
// Returns ENOTFOUND for an unknown item, ECONFLICT when RequiredVersion is
// stale (nothing is written), EINVALID for a bad delta.
func (s *Store) UpdateItemMetadata(ctx context.Context, p *loupe.Principal, u MetadataUpdate) (*Item, error) {
	var delta map[string]json.RawMessage
	if u.FormData.IsNull() {
		delta = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(u.FormData, &delta); err != nil || delta == nil {
		return nil, loupe.Invalid("metadataDelta.formData must be an object")
	}
	if u.FormID != nil && !loupe.ValidFormID(*u.FormID) {
		return nil, loupe.Invalid("invalid metadataDelta.formId %q", *u.FormID)
	}
	if len(delta) == 0 && u.FormID == nil {
		return nil, loupe.Invalid("metadataDelta changes nothing: give formId or formData")
	}
	if !loupe.ValidID(u.ItemID) {
		return nil, loupe.NotFound()
	}
	var it *Item
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur struct {
			Title    string     `db:"title"`
			FormID   string     `db:"metadata_form_id"`
			FormData loupe.JSON `db:"metadata_form_data"`
			Version  int        `db:"metadata_version"`
		}
		if err := tx.GetContext(ctx, &cur, lockItemMetadataSQL, p.TenantID, u.ItemID); err != nil {
			return notFoundOr(err, "store: unable to read metadata of %s: %w", u.ItemID)
		}
		if u.RequiredVersion != nil && *u.RequiredVersion != cur.Version {
			return staleVersion(*u.RequiredVersion, cur.Version)
		}
		before, err := cur.FormData.Object()
		if err != nil {
			return fmt.Errorf("store: unreadable metadata of %s: %w", u.ItemID, err)
		}
		formID := cur.FormID
		if u.FormID != nil {
			formID = *u.FormID
		}
		data, err := mergeFormDataTx(ctx, tx, p.TenantID, cur.FormID, before, formID, delta)
		if err != nil {
			return err
		}
		changes := formDataChanges(before, data)
		title := cur.Title
		if raw, ok := data["default_title"]; ok {
			var t string
			if json.Unmarshal(raw, &t) != nil || t == "" || len(t) > loupe.MaxTitleLength {
				return loupe.Invalid("default_title must be a non-empty string of at most %d bytes", loupe.MaxTitleLength)
			}
			title = t
		}
		at := now()
		res, err := tx.ExecContext(ctx, writeItemMetadataSQL, p.TenantID, u.ItemID, formID, loupe.JSONOf(data), title, at, cur.Version)
		if err != nil {
			return fmt.Errorf("store: unable to write metadata of %s: %w", u.ItemID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return staleVersion(cur.Version, cur.Version+1)
		}
		diff := loupe.JSONOf(map[string]any{"oldMdfId": cur.FormID, "newMdfId": formID, "metadataFields": changes})
		parts := []loupe.ItemPart{loupe.PartMetadata}
		if title != cur.Title {
			parts = append(parts, loupe.PartTitle)
		}
		fields := make([]string, len(changes))
		for i, c := range changes {
			fields[i] = c.FieldID
		}
		if err := auditEmitTx(ctx, tx, p, u.ItemID, title, loupe.ActionMetadataUpdated, at, diff,
			itemChange(u.ItemID, p.UserID, parts, "metadataVersion", cur.Version+1, "fields", fields)); err != nil {
			return err
		}
		it, err = getItem(ctx, tx, itemByIDSQL, p.TenantID, u.ItemID)
		return err
	})
	return it, err
}

func staleVersion(required, current int) error {
	return &loupe.Error{Kind: loupe.ECONFLICT,
		Message: fmt.Sprintf("metadataVersion %d is stale: the item is at version %d", required, current),
		Payload: map[string]any{"debug": []string{"ConditionalCheckFailedException"}, "metadataVersion": current}}
}

// fieldChange is one entry of an mdfDiff.
type fieldChange struct {
	FieldID  string          `json:"fieldId"`
	OldValue json.RawMessage `json:"oldValue"`
	NewValue json.RawMessage `json:"newValue"`
}

// mergeFormData applies delta to data (null removes a key) and returns the
// changes, sorted by field id.
func mergeFormData(data, delta map[string]json.RawMessage) []fieldChange {
	keys := make([]string, 0, len(delta))
	for k := range delta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changes := []fieldChange{}
	for _, k := range keys {
		old, had := data[k]
		if !had {
			old = json.RawMessage("null")
		}
		v := delta[k]
		if string(v) == "null" {
			delete(data, k)
		} else {
			data[k] = v
		}
		if string(old) != string(v) {
			changes = append(changes, fieldChange{FieldID: k, OldValue: old, NewValue: v})
		}
	}
	return changes
}

// Custom icons.

var iconPositionRE = regexp.MustCompile(`^pos[1-8]$`)

const (
	lockCustomIconsSQL = `
SELECT custom_icons FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`
	writeCustomIconsSQL = `
UPDATE items SET custom_icons = $3, modified_on = $4 WHERE tenant_id = $1 AND id = $2`
)

// SetCustomIcons replaces a live item's icons with the positions given, or,
// with merge, changes only those (a null value empties a position).
// Returns ENOTFOUND for an unknown item, EINVALID for keys other than pos1
// to pos8 or a body that is not an object.
func (s *Store) SetCustomIcons(ctx context.Context, tenantID, itemID string, icons loupe.JSON, merge bool) (*Item, error) {
	var given map[string]json.RawMessage
	if err := json.Unmarshal(icons, &given); err != nil || given == nil {
		return nil, loupe.Invalid("customIcons must be an object with keys pos1 to pos8")
	}
	keys := make([]string, 0, len(given))
	for k := range given {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !iconPositionRE.MatchString(k) {
			return nil, loupe.Invalid("invalid custom icon position %q: expected pos1 to pos8", k)
		}
	}
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	var it *Item
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur loupe.JSON
		if err := tx.GetContext(ctx, &cur, lockCustomIconsSQL, tenantID, itemID); err != nil {
			return notFoundOr(err, "store: unable to read custom icons of %s: %w", itemID)
		}
		icons := map[string]json.RawMessage{}
		if merge {
			var err error
			if icons, err = cur.Object(); err != nil {
				return fmt.Errorf("store: unreadable custom icons of %s: %w", itemID, err)
			}
		}
		for k, v := range given {
			if string(v) == "null" {
				delete(icons, k)
			} else {
				icons[k] = v
			}
		}
		if _, err := tx.ExecContext(ctx, writeCustomIconsSQL, tenantID, itemID, loupe.JSONOf(icons), now()); err != nil {
			return fmt.Errorf("store: unable to write custom icons of %s: %w", itemID, err)
		}
		var err error
		it, err = getItem(ctx, tx, itemByIDSQL, tenantID, itemID)
		return err
	})
	return it, err
}

// Timed metadata.

// MaxTimedMetadataWrite bounds the entries one write may touch.
const MaxTimedMetadataWrite = 1000

var timedIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

const (
	timedMetadataOfItemsSQL = `
SELECT item_id, id, start_ms, end_ms, form_id, form_data FROM timed_metadata
WHERE tenant_id = $1 AND item_id = ANY($2::uuid[]) ORDER BY item_id, start_ms, id`

	upsertTimedMetadataSQL = `
INSERT INTO timed_metadata (tenant_id, item_id, id, start_ms, end_ms, form_id, form_data, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (tenant_id, item_id, id) DO UPDATE
SET start_ms = EXCLUDED.start_ms, end_ms = EXCLUDED.end_ms, form_id = EXCLUDED.form_id,
    form_data = EXCLUDED.form_data, modified_on = EXCLUDED.modified_on`

	deleteTimedMetadataSQL = `
DELETE FROM timed_metadata WHERE tenant_id = $1 AND item_id = $2 AND id = ANY($3::text[])`
)

// TimedMetadataOfItems returns, per item, its entries by start time.
func (s *Store) TimedMetadataOfItems(ctx context.Context, tenantID string, itemIDs []string) (map[string][]*TimedMetadata, error) {
	return listOf[TimedMetadata](ctx, s, timedMetadataOfItemsSQL, tenantID, itemIDs, func(t *TimedMetadata) string { return t.ItemID })
}

// UpdateTimedMetadata inserts or replaces entries and removes others of a
// live item, in one transaction, and answers all its entries.
// Returns ENOTFOUND for an unknown item, EINVALID for a bad entry.
func (s *Store) UpdateTimedMetadata(ctx context.Context, tenantID, itemID string, upsert []loupe.TimedMetadataInput, remove []string) ([]*TimedMetadata, error) {
	if len(upsert)+len(remove) > MaxTimedMetadataWrite {
		return nil, loupe.Invalid("at most %d timed metadata entries per write", MaxTimedMetadataWrite)
	}
	type row struct {
		in    loupe.TimedMetadataInput
		entry *timedWrite
	}
	rows := make([]row, 0, len(upsert))
	seen := map[string]bool{}
	for _, e := range upsert {
		if !timedIDRE.MatchString(e.ID) {
			return nil, loupe.Invalid("invalid timed metadata id %q", e.ID)
		}
		if seen[e.ID] {
			return nil, loupe.Invalid("timed metadata id %q is given twice", e.ID)
		}
		seen[e.ID] = true
		if e.StartMs < 0 || e.EndMs < e.StartMs {
			return nil, loupe.Invalid("timed metadata %q: need 0 <= startMs <= endMs", e.ID)
		}
		r := row{in: e, entry: &timedWrite{id: e.ID, formID: "default"}}
		if e.Data.FormID != nil {
			if !loupe.ValidFormID(*e.Data.FormID) {
				return nil, loupe.Invalid("timed metadata %q: invalid formId %q", e.ID, *e.Data.FormID)
			}
			r.entry.formID = *e.Data.FormID
		}
		var obj map[string]json.RawMessage
		if e.Data.FormData.IsNull() {
			obj = map[string]json.RawMessage{}
		} else if err := json.Unmarshal(e.Data.FormData, &obj); err != nil || obj == nil {
			return nil, loupe.Invalid("timed metadata %q: data.formData must be an object", e.ID)
		}
		r.entry.data = obj
		rows = append(rows, r)
	}
	for _, id := range remove {
		if seen[id] {
			return nil, loupe.Invalid("timed metadata id %q is both written and removed", id)
		}
	}
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, tenantID, itemID, loupe.NotFound()); err != nil {
			return err
		}
		entries := make([]*timedWrite, len(rows))
		for i, r := range rows {
			entries[i] = r.entry
		}
		if err := checkTimedFormDataTx(ctx, tx, tenantID, itemID, entries); err != nil {
			return err
		}
		at := now()
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, upsertTimedMetadataSQL, tenantID, itemID, r.in.ID,
				r.in.StartMs, r.in.EndMs, r.entry.formID, loupe.JSONOf(r.entry.data), at); err != nil {
				return fmt.Errorf("store: unable to write timed metadata: %w", err)
			}
		}
		if len(remove) > 0 {
			if _, err := tx.ExecContext(ctx, deleteTimedMetadataSQL, tenantID, itemID, stringArray(remove)); err != nil {
				return fmt.Errorf("store: unable to remove timed metadata: %w", err)
			}
		}
		if err := touchItem(ctx, tx, tenantID, itemID, at); err != nil {
			return err
		}
		return emitTx(ctx, tx, tenantID, at, itemChange(itemID, "", []loupe.ItemPart{loupe.PartMetadata}, "timed", true))
	})
	if err != nil {
		return nil, err
	}
	all, err := s.TimedMetadataOfItems(ctx, tenantID, []string{itemID})
	if err != nil {
		return nil, err
	}
	if all[itemID] == nil {
		return []*TimedMetadata{}, nil
	}
	return all[itemID], nil
}
