package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
)

// This file checks form data against its form on every metadata write
// (item create, metadata update, folder metadata, timed metadata): it reads
// the forms (locked against deletion) and the users the values name, and
// package mdf decides (its write.go has the rules).

// checkFormData prepares and checks writes of form data against their
// forms (mdf.Check).
func checkFormData(ctx context.Context, q selecter, tenantID string, writes ...*mdf.Write) error {
	users, err := formDataUsers(ctx, q, tenantID, writes)
	if err != nil {
		return err
	}
	return mdf.Check(users, writes...)
}

// formDataUsers prepares writes of form data and reads, in one statement,
// which of the users their values name are the tenant's.
func formDataUsers(ctx context.Context, q selecter, tenantID string, writes []*mdf.Write) (map[string]bool, error) {
	var ids []string
	for _, w := range writes {
		w.Prepare()
		ids = append(ids, w.UserIDs()...)
	}
	return knownUsersTx(ctx, q, tenantID, ids)
}

const knownUsersSQL = `SELECT id::text FROM users WHERE tenant_id = $1 AND id = ANY($2::uuid[])`

// knownUsersTx returns which of ids are users of the tenant (lower case).
func knownUsersTx(ctx context.Context, q selecter, tenantID string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var found []string
	if err := q.SelectContext(ctx, &found, knownUsersSQL, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to check users: %w", err)
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// newFormData checks the form data of a new item against its form and
// answers it as stored: keyed by field ids, with defaults filled in.
func newFormData(ctx context.Context, tx selecter, tenantID, formID string, data map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	forms, err := formsTx(ctx, tx, tenantID, formID)
	if err != nil {
		return nil, err
	}
	return newFormDataOf(ctx, tx, tenantID, formID, forms[formID], data)
}

// newFormDataOf is newFormData with the form given (nil: the tenant has
// none of formID), as a create reads it from the node's cache: the same
// check whichever way the form was read.
func newFormDataOf(ctx context.Context, q selecter, tenantID, formID string, form *mdf.Mdf,
	data map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	w := &mdf.Write{FormID: formID, Form: form, Fresh: true, Replace: true}
	var err error
	if w.After, err = w.CanonicalKeys(data); err != nil {
		return nil, err
	}
	return w.After, checkFormData(ctx, q, tenantID, w)
}

// replaceFormDataTx checks data that replaces before (of form beforeForm;
// before is nil for new data) and answers it as stored.
func replaceFormDataTx(ctx context.Context, tx selecter, tenantID, beforeForm string, before map[string]json.RawMessage,
	formID string, data map[string]json.RawMessage, prefix string) (map[string]json.RawMessage, error) {
	w, err := replaceWriteTx(ctx, tx, tenantID, beforeForm, before, formID, data, prefix)
	if err != nil {
		return nil, err
	}
	return w.After, checkFormData(ctx, tx, tenantID, w)
}

// replaceWriteTx is the check of data that replaces before, not yet run.
func replaceWriteTx(ctx context.Context, tx selecter, tenantID, beforeForm string, before map[string]json.RawMessage,
	formID string, data map[string]json.RawMessage, prefix string) (*mdf.Write, error) {
	forms, err := formsTx(ctx, tx, tenantID, formID)
	if err != nil {
		return nil, err
	}
	w := &mdf.Write{FormID: formID, Form: forms[formID], Before: before,
		Fresh: before == nil || beforeForm != formID, Replace: true, Prefix: prefix}
	if w.After, err = w.CanonicalKeys(data); err != nil {
		return nil, err
	}
	return w, nil
}

// mergeFormDataTx checks a delta merged into before (of form beforeForm),
// for the form formID, and answers the data as stored (before is not changed).
func mergeFormDataTx(ctx context.Context, tx *sqlx.Tx, tenantID, beforeForm string, before map[string]json.RawMessage,
	formID string, delta map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	forms, err := formsTx(ctx, tx, tenantID, formID)
	if err != nil {
		return nil, err
	}
	w := &mdf.Write{FormID: formID, Form: forms[formID], Before: before, Fresh: beforeForm != formID}
	if delta, err = w.CanonicalKeys(delta); err != nil {
		return nil, err
	}
	w.After = make(map[string]json.RawMessage, len(before)+len(delta))
	for k, v := range before {
		w.After[k] = v
	}
	mergeFormData(w.After, delta)
	return w.After, checkFormData(ctx, tx, tenantID, w)
}

// formDataChanges are the changes from before to after, sorted by field id
// (an mdfDiff's metadataFields).
func formDataChanges(before, after map[string]json.RawMessage) []fieldChange {
	keys := slices.Collect(maps.Keys(after))
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	changes := []fieldChange{}
	for _, k := range keys {
		old, had := before[k]
		if !had {
			old = json.RawMessage("null")
		}
		v, has := after[k]
		if !has {
			v = json.RawMessage("null")
		}
		if !mdf.SameValue(old, v) {
			changes = append(changes, fieldChange{FieldID: k, OldValue: old, NewValue: v})
		}
	}
	return changes
}

// timedWrite is the form data of a timed metadata entry about to be
// written; checkTimedFormDataTx replaces data with the data as stored.
type timedWrite struct {
	id, formID string
	data       map[string]json.RawMessage
}

const timedEntriesSQL = `
SELECT id, form_id, form_data FROM timed_metadata WHERE tenant_id = $1 AND item_id = $2 AND id = ANY($3::text[])`

// checkTimedFormDataTx checks entries that replace (or create) timed
// metadata entries of an item, each against its form, in one pass.
func checkTimedFormDataTx(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string, entries []*timedWrite) error {
	if len(entries) == 0 {
		return nil
	}
	ids, formIDs := make([]string, len(entries)), make([]string, len(entries))
	for i, e := range entries {
		ids[i], formIDs[i] = e.id, e.formID
	}
	var rows []struct {
		ID       string     `db:"id"`
		FormID   string     `db:"form_id"`
		FormData loupe.JSON `db:"form_data"`
	}
	if err := tx.SelectContext(ctx, &rows, timedEntriesSQL, tenantID, itemID, stringArray(ids)); err != nil {
		return fmt.Errorf("store: unable to read timed metadata: %w", err)
	}
	type stored struct {
		formID string
		data   map[string]json.RawMessage
	}
	existing := make(map[string]stored, len(rows))
	for _, r := range rows {
		data, err := r.FormData.Object()
		if err != nil {
			return fmt.Errorf("store: unreadable timed metadata %s: %w", r.ID, err)
		}
		existing[r.ID] = stored{r.FormID, data}
	}
	forms, err := formsTx(ctx, tx, tenantID, formIDs...)
	if err != nil {
		return err
	}
	writes := make([]*mdf.Write, len(entries))
	for i, e := range entries {
		old, had := existing[e.id]
		w := &mdf.Write{FormID: e.formID, Form: forms[e.formID], Before: old.data,
			Fresh: !had || old.formID != e.formID, Replace: true, Prefix: fmt.Sprintf("timed metadata %q: ", e.id)}
		if w.After, err = w.CanonicalKeys(e.data); err != nil {
			return err
		}
		writes[i] = w
	}
	if err := checkFormData(ctx, tx, tenantID, writes...); err != nil {
		return err
	}
	for i, e := range entries {
		e.data = writes[i].After
	}
	return nil
}
