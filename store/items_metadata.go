package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
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

// One item's read and write of its metadata, for a write that changes it
// along with other things (retitleTx: a recording's title). A metadata
// edit of its own goes through checkMetadataTx and writeMetadataTx.
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
// transaction. The title follows default_title. It is the write of
// UpdateItemsMetadata for one edit (checkMetadataTx, writeMetadataTx).
// Returns ENOTFOUND for an unknown item, ECONFLICT when RequiredVersion is
// stale (nothing is written), EINVALID for a bad delta.
func (s *Store) UpdateItemMetadata(ctx context.Context, p *loupe.Principal, u MetadataUpdate) (*Item, error) {
	e := parseMetadataUpdate(u)
	if e.err != nil {
		return nil, e.err
	}
	edits := []*metadataEdit{e}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := checkMetadataTx(ctx, tx, p.TenantID, edits); err != nil {
			return err
		}
		if e.err != nil {
			return e.err
		}
		if err := writeMetadataTx(ctx, tx, p, edits); err != nil {
			return err
		}
		return e.err
	})
	if err != nil {
		return nil, err
	}
	return e.item, nil
}

// metadataEdit is a MetadataUpdate on its way through a write: parsed
// (parseMetadataUpdate), checked against its item, read locked, and its form
// (checkMetadataTx), written (writeMetadataTx). err is why it is not
// written, from the first step that found it; a step passes over edits
// that have one.
type metadataEdit struct {
	MetadataUpdate
	delta map[string]json.RawMessage
	err   error

	// Found by checkMetadataTx.
	cur     lockedMetadata
	formID  string
	data    map[string]json.RawMessage // as it will be stored
	title   string
	changes []fieldChange

	// item is the item after the write (writeMetadataTx).
	item *Item
}

// lockedMetadata is an item's metadata as a write reads it, locked.
type lockedMetadata struct {
	ID       string     `db:"id"`
	Title    string     `db:"title"`
	FormID   string     `db:"metadata_form_id"`
	FormData loupe.JSON `db:"metadata_form_data"`
	Version  int        `db:"metadata_version"`
}

// parseMetadataUpdate checks what an update says on its own: its delta
// (parseMetadataDelta), then its id (ENOTFOUND when it cannot name an item).
func parseMetadataUpdate(u MetadataUpdate) *metadataEdit {
	e := &metadataEdit{MetadataUpdate: u}
	if e.delta, e.err = parseMetadataDelta(u.FormID, u.FormData); e.err == nil && !loupe.ValidID(u.ItemID) {
		e.err = loupe.NotFound()
	}
	return e
}

// parseMetadataDelta returns a delta's form data as an object. Returns
// EINVALID for form data that is not an object, a malformed form id, or a
// delta that changes nothing.
func parseMetadataDelta(formID *string, formData loupe.JSON) (map[string]json.RawMessage, error) {
	var delta map[string]json.RawMessage
	if formData.IsNull() {
		delta = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(formData, &delta); err != nil || delta == nil {
		return nil, loupe.Invalid("metadataDelta.formData must be an object")
	}
	if formID != nil && !loupe.ValidFormID(*formID) {
		return nil, loupe.Invalid("invalid metadataDelta.formId %q", *formID)
	}
	if len(delta) == 0 && formID == nil {
		return nil, loupe.Invalid("metadataDelta changes nothing: give formId or formData")
	}
	return delta, nil
}

// CheckMetadataDelta checks a delta on its own, as every metadata write
// does first: one delta given for many items is refused once, for all.
// Returns EINVALID (parseMetadataDelta).
func CheckMetadataDelta(formID *string, formData loupe.JSON) error {
	_, err := parseMetadataDelta(formID, formData)
	return err
}

// lockItemsMetadataSQL reads the metadata of live items, locked, in id
// order: two writes of overlapping items lock them in the same order and
// never deadlock.
const lockItemsMetadataSQL = `
SELECT id, title, metadata_form_id, metadata_form_data, metadata_version FROM items
WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND deleted_on IS NULL
ORDER BY id FOR UPDATE`

// checkMetadataTx reads the items of the edits that have no error yet,
// locked, and checks each edit against its item and form, setting its err
// or what it will write: ENOTFOUND for an item that is missing or deleted,
// ECONFLICT for a stale RequiredVersion, EINVALID from the form's check
// (package mdf) or for a bad default_title. The forms and the users the
// values name are read once for all the edits. The error returned is the
// database's: the edits' own are in their err.
func checkMetadataTx(ctx context.Context, tx *sqlx.Tx, tenantID string, edits []*metadataEdit) error {
	pending := withoutError(edits)
	if len(pending) == 0 {
		return nil
	}
	ids := make([]string, len(pending))
	for i, e := range pending {
		ids[i] = e.ItemID
	}
	var rows []lockedMetadata
	if err := tx.SelectContext(ctx, &rows, lockItemsMetadataSQL, tenantID, stringArray(ids)); err != nil {
		return fmt.Errorf("store: unable to read metadata of items: %w", err)
	}
	byID := make(map[string]lockedMetadata, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	before := make(map[*metadataEdit]map[string]json.RawMessage, len(pending))
	var formIDs []string
	for _, e := range pending {
		cur, ok := byID[strings.ToLower(e.ItemID)]
		switch {
		case !ok:
			e.err = loupe.NotFound()
			continue
		case e.RequiredVersion != nil && *e.RequiredVersion != cur.Version:
			e.err = staleVersion(*e.RequiredVersion, cur.Version)
			continue
		}
		data, err := cur.FormData.Object()
		if err != nil {
			return fmt.Errorf("store: unreadable metadata of %s: %w", cur.ID, err)
		}
		e.cur, before[e] = cur, data
		e.formID = cur.FormID
		if e.FormID != nil {
			e.formID = *e.FormID
		}
		if !slices.Contains(formIDs, e.formID) {
			formIDs = append(formIDs, e.formID)
		}
	}
	pending = withoutError(pending)
	if len(pending) == 0 {
		return nil
	}
	forms, err := formsTx(ctx, tx, tenantID, formIDs...)
	if err != nil {
		return err
	}
	writes := make([]*mdf.Write, 0, len(pending))
	merged := make([]*metadataEdit, 0, len(pending))
	for _, e := range pending {
		w, err := mergeWrite(forms[e.formID], e.cur.FormID, before[e], e.formID, e.delta)
		if err != nil {
			e.err = err
			continue
		}
		writes, merged = append(writes, w), append(merged, e)
	}
	problems, err := checkFormDataEach(ctx, tx, tenantID, writes)
	if err != nil {
		return err
	}
	for i, e := range merged {
		if e.err = problems[i]; e.err != nil {
			continue
		}
		e.data = writes[i].After
		e.title = e.cur.Title
		if raw, ok := e.data["default_title"]; ok {
			var t string
			if json.Unmarshal(raw, &t) != nil || t == "" || len(t) > loupe.MaxTitleLength {
				e.err = loupe.Invalid("default_title must be a non-empty string of at most %d bytes", loupe.MaxTitleLength)
				continue
			}
			e.title = t
		}
		e.changes = formDataChanges(before[e], e.data)
	}
	return nil
}

// mergeWrite is the form check of a delta merged into before (of form
// beforeForm), for the form formID (nil when the tenant has none), not yet
// run: its After is the merged data. Returns EINVALID when two keys of the
// delta name one field.
func mergeWrite(form *mdf.Mdf, beforeForm string, before map[string]json.RawMessage, formID string,
	delta map[string]json.RawMessage) (*mdf.Write, error) {
	w := &mdf.Write{FormID: formID, Form: form, Before: before, Fresh: beforeForm != formID}
	delta, err := w.CanonicalKeys(delta)
	if err != nil {
		return nil, err
	}
	w.After = make(map[string]json.RawMessage, len(before)+len(delta))
	for k, v := range before {
		w.After[k] = v
	}
	mergeFormData(w.After, delta)
	return w, nil
}

// checkFormDataEach is checkFormData for writes that pass or fail each on
// its own: the users all of them name are read once, then each is checked
// (mdf.Check); the answer holds each one's EINVALID or nil, in order.
func checkFormDataEach(ctx context.Context, q selecter, tenantID string, writes []*mdf.Write) ([]error, error) {
	users, err := formDataUsers(ctx, q, tenantID, writes)
	if err != nil {
		return nil, err
	}
	out := make([]error, len(writes))
	for i, w := range writes {
		out[i] = mdf.Check(users, w)
	}
	return out, nil
}

// writeItemsMetadataSQL writes checked edits, their audit records and
// their events in one statement, and answers the items written. Each row of
// the arrays is one edit ($3 ids, $4 form ids, $5 form data, $6 titles, $7
// the versions read); $11 the audit records' ids and $12 their mdfDiffs;
// $14 the events' data. The version is checked again, so that the write
// is correct even without the row locks; an item whose version moved is
// not written, and has no record and no event.
var writeItemsMetadataSQL = `
WITH written AS (
    UPDATE items i SET metadata_form_id = w.form_id, metadata_form_data = w.form_data, title = w.title,
                       metadata_version = i.metadata_version + 1, modified_on = $2::timestamptz
    FROM unnest($3::uuid[], $4::text[], $5::jsonb[], $6::text[], $7::int[]) AS w(id, form_id, form_data, title, version)
    WHERE i.tenant_id = $1::uuid AND i.id = w.id AND i.metadata_version = w.version
    RETURNING ` + itemColumns + `
), audited AS (
    INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on, mdf_diff)
    SELECT $1::uuid, a.id, a.item_id, $8::text, $9::uuid, $10::text, a.title, $2::timestamptz, a.diff
    FROM unnest($11::uuid[], $3::uuid[], $6::text[], $12::jsonb[]) AS a(id, item_id, title, diff)
    WHERE a.item_id IN (SELECT id FROM written)
), announced AS (
    INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
    SELECT $1::uuid, $13::text, e.item_id, $9::uuid, $2::timestamptz, e.data
    FROM unnest($3::uuid[], $14::jsonb[]) WITH ORDINALITY AS e(item_id, data, n)
    WHERE e.item_id IN (SELECT id FROM written)
    ORDER BY e.n
)
SELECT * FROM written`

// writeMetadataTx writes the edits that have no error, checked by
// checkMetadataTx, in one statement: each item's form data, title,
// metadataVersion + 1 and modified time, a metadataUpdated audit record
// with its mdfDiff and an itemChange event, as one write of one item
// always did. Each edit written gets its item; one whose version moved
// under it (never, with the locks of checkMetadataTx) gets ECONFLICT.
func writeMetadataTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, edits []*metadataEdit) error {
	pending := withoutError(edits)
	if len(pending) == 0 {
		return nil
	}
	n := len(pending)
	ids, formIDs, datas, titles, versions := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	auditIDs, diffs, events := make([]string, n), make([]string, n), make([]string, n)
	for i, e := range pending {
		ids[i], formIDs[i], titles[i], versions[i] = e.cur.ID, e.formID, e.title, int64(e.cur.Version)
		datas[i] = string(loupe.JSONOf(e.data))
		auditIDs[i] = loupe.NewID()
		diffs[i] = string(loupe.JSONOf(map[string]any{"oldMdfId": e.cur.FormID, "newMdfId": e.formID, "metadataFields": e.changes}))
		parts := []loupe.ItemPart{loupe.PartMetadata}
		if e.title != e.cur.Title {
			parts = append(parts, loupe.PartTitle)
		}
		fields := make([]string, len(e.changes))
		for k, c := range e.changes {
			fields[k] = c.FieldID
		}
		ev := itemChange(e.cur.ID, p.UserID, parts, "metadataVersion", e.cur.Version+1, "fields", fields)
		events[i] = string(loupe.JSONOf(ev.Data))
	}
	rows, err := tx.QueryContext(ctx, writeItemsMetadataSQL, p.TenantID, now(), stringArray(ids), stringArray(formIDs),
		stringArray(datas), stringArray(titles), pq.Int64Array(versions), string(loupe.ActionMetadataUpdated), p.UserID, p.Email,
		stringArray(auditIDs), stringArray(diffs), string(loupe.EventItemChange), stringArray(events))
	if err != nil {
		return fmt.Errorf("store: unable to write metadata of items: %w", err)
	}
	defer rows.Close()
	written := make(map[string]*Item, n)
	for rows.Next() {
		it := new(Item)
		if err := rows.Scan(it.dests()...); err != nil {
			return fmt.Errorf("store: unable to read items written: %w", err)
		}
		if err := decodeMedia(it); err != nil {
			return err
		}
		written[it.ID] = it
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: unable to write metadata of items: %w", err)
	}
	for _, e := range pending {
		if e.item = written[e.cur.ID]; e.item == nil {
			e.err = staleVersion(e.cur.Version, e.cur.Version+1)
		}
	}
	return nil
}

// withoutError are the edits that have no error yet.
func withoutError(edits []*metadataEdit) []*metadataEdit {
	out := make([]*metadataEdit, 0, len(edits))
	for _, e := range edits {
		if e.err == nil {
			out = append(out, e)
		}
	}
	return out
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
		// Detected text is searched (itemSpokenAndShownSQL).
		if _, err := tx.ExecContext(ctx, stampItemSearchTextSQL, tenantID, itemID); err != nil {
			return fmt.Errorf("store: unable to keep the item's searched text: %w", err)
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
