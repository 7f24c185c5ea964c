package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
)

// This file checks form data against its form on every metadata write
// (item create, metadata update, folder metadata, timed metadata). The rule
// (docs/metadata-forms.md): a write is checked for what it changes. Every
// value it sets must fit its field; a read-only field keeps its value; a
// required field cannot be emptied; data that starts using a form (a new
// item or entry, a form switch) gets the fields' default values and must
// then fill every required field. Values a write leaves as they are stay,
// even when the form has changed since they were written, so a form update
// never makes an item unwritable. Keys that name no field are an
// integration's own and kept as written, except default_<name> keys (which
// claim to name a field) and keys of fields the form removed.

// MaxTextValue bounds a text value, in bytes.
const MaxTextValue = 100000

// maxLinkValue bounds a link value, in bytes.
const maxLinkValue = 2048

// Messages of form data problems. Each names the field by its key in the
// form data; developerMessage says what was expected.
const (
	msgInvalidValue    = "invalid value %s for field: %q"
	msgMissingRequired = "missing value for required field: %q"
	msgReadOnly        = "cannot change read-only field: %q"
	msgUnknownField    = "unknown field: %q"
	msgFieldTwice      = "field given twice: %q"
	msgUnknownForm     = "unknown form: %q"
	msgInactiveForm    = "inactive form: %q"
)

// checkValue returns what the field expects when v does not fit it, or "".
// users holds the tenant's user ids (lower case) among the values; nil
// checks only that a user value is an id.
func (f *MdfField) checkValue(v json.RawMessage, users map[string]bool) string {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return "expected a JSON value"
	}
	s, isString := x.(string)
	switch f.Type {
	case FieldText:
		if !isString || len(s) > MaxTextValue {
			return fmt.Sprintf("expected a string of at most %d bytes", MaxTextValue)
		}
	case FieldDate:
		if !isString || !validDate(s) {
			return "expected a date (YYYY-MM-DD) or an RFC 3339 date-time"
		}
	case FieldChoice:
		if !isString || !hasAlternative(f.Alternatives, s) {
			return "expected one of " + listAlternatives(f.Alternatives)
		}
	case FieldMultipleChoice:
		list, ok := x.([]any)
		if !ok {
			return "expected an array of distinct values among " + listAlternatives(f.Alternatives)
		}
		seen := make(map[string]bool, len(list))
		for _, e := range list {
			es, ok := e.(string)
			if !ok || seen[es] || !hasAlternative(f.Alternatives, es) {
				return "expected an array of distinct values among " + listAlternatives(f.Alternatives)
			}
			seen[es] = true
		}
	case FieldCheckbox:
		if _, ok := x.(bool); !ok {
			return "expected true or false"
		}
	case FieldNumber:
		if _, ok := x.(json.Number); !ok {
			return "expected a number"
		}
	case FieldLink:
		if !isString || !validLink(s) {
			return "expected an absolute http or https URL"
		}
	case FieldUser:
		if !isString || !validID(s) || (users != nil && !users[strings.ToLower(s)]) {
			return "expected the id of a user of the tenant"
		}
	default:
		return fmt.Sprintf("a field of unknown type %q takes no values", f.Type)
	}
	return ""
}

func validDate(s string) bool {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func validLink(s string) bool {
	if len(s) > maxLinkValue {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

func hasAlternative(alts []Alternative, v string) bool {
	for _, a := range alts {
		if a.Value == v {
			return true
		}
	}
	return false
}

// listAlternatives names the values of alternatives for a message, the
// first 20 of them.
func listAlternatives(alts []Alternative) string {
	if len(alts) == 0 {
		return "the alternatives (there are none)"
	}
	const shown = 20
	var b strings.Builder
	for i, a := range alts {
		if i == shown {
			fmt.Fprintf(&b, ", … (%d in all)", len(alts))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", a.Value)
	}
	return b.String()
}

// canonicalKeys returns data keyed by field ids: a key default_<fieldId>
// that is no field's id names the field with that fieldId (spec 2.2: keys
// are default_<field> names or field ids). Returns EINVALID when two keys
// name one field.
func (m *Mdf) canonicalKeys(data map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(data))
	keys := sortedKeys(data)
	for _, k := range keys {
		id := k
		if m.field(k) == nil && strings.HasPrefix(k, "default_") {
			for _, f := range m.fields {
				if "default_"+f.FieldID == k {
					id = f.ID
					break
				}
			}
		}
		if _, twice := out[id]; twice {
			return nil, problemsError([]problem{{fmt.Sprintf(msgFieldTwice, id),
				fmt.Sprintf("%q and default_<fieldId> name the same field of form %q", id, m.ID)}})
		}
		out[id] = data[k]
	}
	return out, nil
}

// formWrite is one write of form data, checked against the form it uses.
type formWrite struct {
	formID string
	// form is nil when the tenant has no form of formID.
	form *Mdf
	// before is the stored data; nil for new data.
	before map[string]json.RawMessage
	// after is the data to store, keyed by field id; prepare fills in
	// defaults and drops null values.
	after map[string]json.RawMessage
	// fresh: the data starts using the form (a new item or entry, or a
	// form switch).
	fresh bool
	// replace: after replaces before wholesale (folder metadata, timed
	// metadata entries), so read-only values it does not give are kept.
	replace bool
	// prefix names the data in messages (which timed metadata entry).
	prefix string
}

// problem is one thing wrong with a write, as the client is told.
type problem struct{ msg, dev string }

// prepare settles after: null values are no values; data that starts using
// the form gets the defaults of fields it does not give; a replacing write
// keeps read-only values.
func (w *formWrite) prepare() {
	for k, v := range w.after {
		if loupe.JSON(v).IsNull() {
			delete(w.after, k)
		}
	}
	if w.form == nil {
		return
	}
	for _, f := range w.form.fields {
		_, has := w.after[f.ID]
		switch {
		case has:
		case w.fresh && !f.DefaultValue.IsNull():
			w.after[f.ID] = json.RawMessage(f.DefaultValue)
		case w.replace && !w.fresh && f.ReadOnly:
			if old, ok := w.before[f.ID]; ok {
				w.after[f.ID] = old
			}
		}
	}
}

// checked reports whether the value of a field is checked: always when the
// data starts using the form, else when the write changes it.
func (w *formWrite) checked(id string) bool {
	v, has := w.after[id]
	if !has {
		return false
	}
	old, hadOld := w.before[id]
	return w.fresh || !hadOld || !jsonEqual(old, v)
}

// userIDs are the user ids among the values the write checks.
func (w *formWrite) userIDs() []string {
	if w.form == nil {
		return nil
	}
	var ids []string
	for _, f := range w.form.fields {
		if f.Type != FieldUser || !w.checked(f.ID) {
			continue
		}
		var s string
		if json.Unmarshal(w.after[f.ID], &s) == nil && validID(s) {
			ids = append(ids, s)
		}
	}
	return ids
}

// problems lists what is wrong with the write, fields in form order, then
// unknown keys by name. users holds the tenant's user ids among the values.
func (w *formWrite) problems(users map[string]bool) []problem {
	m := w.form
	if m == nil {
		return []problem{{w.prefix + fmt.Sprintf(msgUnknownForm, w.formID),
			fmt.Sprintf("the tenant has no form %q (GET /api/v1/mdfs lists them)", w.formID)}}
	}
	if w.fresh && !m.Active {
		return []problem{{w.prefix + fmt.Sprintf(msgInactiveForm, w.formID),
			fmt.Sprintf("form %q is not active: nothing can start using it", w.formID)}}
	}
	var out []problem
	add := func(msg, dev string) { out = append(out, problem{w.prefix + msg, dev}) }
	for _, f := range m.fields {
		v, has := w.after[f.ID]
		old, hadOld := w.before[f.ID]
		if f.ReadOnly && !w.fresh && (has != hadOld || (has && !jsonEqual(old, v))) {
			add(fmt.Sprintf(msgReadOnly, f.ID), fmt.Sprintf("field %q of form %q is read-only: it is set when the data starts using the form", f.ID, m.ID))
			continue
		}
		if f.Required && isEmptyValue(v) && (w.fresh || !isEmptyValue(old)) {
			add(fmt.Sprintf(msgMissingRequired, f.ID), fmt.Sprintf("form %q requires a value for %q (%s)", m.ID, f.ID, f.Label))
			continue
		}
		if w.checked(f.ID) {
			if exp := f.checkValue(v, users); exp != "" {
				add(fmt.Sprintf(msgInvalidValue, shortJSON(v), f.ID), fmt.Sprintf("field %q of form %q is %s: %s", f.ID, m.ID, f.Type, exp))
			}
		}
	}
	for _, k := range sortedKeys(w.after) {
		if m.field(k) != nil {
			continue
		}
		if old, ok := w.before[k]; ok && jsonEqual(old, w.after[k]) {
			continue // kept as it is, whatever the form says now
		}
		switch {
		case m.labelOf(k) != nil:
			add(fmt.Sprintf(msgUnknownField, k), fmt.Sprintf("field %q was removed from form %q: its values can be kept or removed (null), not set", k, m.ID))
		case strings.HasPrefix(k, "default_"):
			add(fmt.Sprintf(msgUnknownField, k), fmt.Sprintf("form %q has no field %q: a default_<fieldId> key must name a field of the form", m.ID, k))
		}
		// Any other key is the integration's own: kept as written.
	}
	return out
}

// checkFormData prepares and checks writes of form data against their
// forms. Returns EINVALID with the first problem as the message, what was
// expected as developerMessage and every problem in payload.messages.
func checkFormData(ctx context.Context, q selecter, tenantID string, writes ...*formWrite) error {
	var ids []string
	for _, w := range writes {
		w.prepare()
		ids = append(ids, w.userIDs()...)
	}
	users, err := knownUsersTx(ctx, q, tenantID, ids)
	if err != nil {
		return err
	}
	var all []problem
	for _, w := range writes {
		all = append(all, w.problems(users)...)
	}
	return problemsError(all)
}

// problemsError is the error of a write with problems, nil without.
func problemsError(ps []problem) error {
	if len(ps) == 0 {
		return nil
	}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.msg
	}
	return &loupe.Error{Kind: loupe.EINVALID, Message: ps[0].msg, DeveloperMessage: ps[0].dev,
		Payload: map[string]any{"messages": msgs}}
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

// jsonEqual reports whether two JSON values are equal (whatever their spacing).
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// isEmptyValue reports whether v is no value: absent, null, "" or [].
func isEmptyValue(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || string(t) == "null" || string(t) == `""` {
		return true
	}
	if t[0] == '[' {
		var list []any
		return json.Unmarshal(t, &list) == nil && len(list) == 0
	}
	return false
}

// shortJSON is a value as a message shows it: compact, at most 80 bytes.
func shortJSON(v json.RawMessage) string {
	s := string(compactJSON(loupe.JSON(v)))
	if len(s) <= 80 {
		return s
	}
	cut := 77
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// newFormDataTx checks the form data of a new item against its form and
// answers it as stored: keyed by field ids, with defaults filled in.
func newFormDataTx(ctx context.Context, tx *sqlx.Tx, tenantID, formID string, data map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	return replaceFormDataTx(ctx, tx, tenantID, "", nil, formID, data, "")
}

// replaceFormDataTx checks data that replaces before (of form beforeForm;
// before is nil for new data) and answers it as stored.
func replaceFormDataTx(ctx context.Context, tx *sqlx.Tx, tenantID, beforeForm string, before map[string]json.RawMessage,
	formID string, data map[string]json.RawMessage, prefix string) (map[string]json.RawMessage, error) {
	w, err := replaceWriteTx(ctx, tx, tenantID, beforeForm, before, formID, data, prefix)
	if err != nil {
		return nil, err
	}
	return w.after, checkFormData(ctx, tx, tenantID, w)
}

// replaceWriteTx is the check of data that replaces before, not yet run.
func replaceWriteTx(ctx context.Context, tx *sqlx.Tx, tenantID, beforeForm string, before map[string]json.RawMessage,
	formID string, data map[string]json.RawMessage, prefix string) (*formWrite, error) {
	forms, err := formsTx(ctx, tx, tenantID, formID)
	if err != nil {
		return nil, err
	}
	w := &formWrite{formID: formID, form: forms[formID], before: before, after: data,
		fresh: before == nil || beforeForm != formID, replace: true, prefix: prefix}
	if w.form != nil {
		if w.after, err = w.form.canonicalKeys(data); err != nil {
			return nil, prefixed(prefix, err)
		}
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
	w := &formWrite{formID: formID, form: forms[formID], before: before, fresh: beforeForm != formID}
	if w.form != nil {
		if delta, err = w.form.canonicalKeys(delta); err != nil {
			return nil, err
		}
	}
	w.after = make(map[string]json.RawMessage, len(before)+len(delta))
	for k, v := range before {
		w.after[k] = v
	}
	mergeFormData(w.after, delta)
	return w.after, checkFormData(ctx, tx, tenantID, w)
}

// formDataChanges are the changes from before to after, sorted by field id
// (an mdfDiff's metadataFields).
func formDataChanges(before, after map[string]json.RawMessage) []fieldChange {
	keys := sortedKeys(after)
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
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
		if !jsonEqual(old, v) {
			changes = append(changes, fieldChange{FieldID: k, OldValue: old, NewValue: v})
		}
	}
	return changes
}

// prefixed puts prefix before the message of an EINVALID error.
func prefixed(prefix string, err error) error {
	var se *loupe.Error
	if prefix == "" || !errors.As(err, &se) || se.Kind != loupe.EINVALID {
		return err
	}
	c := *se
	c.Message = prefix + c.Message
	if msgs, ok := c.Payload["messages"].([]string); ok && len(msgs) == 1 {
		c.Payload = map[string]any{"messages": []string{c.Message}}
	}
	return &c
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
	writes := make([]*formWrite, len(entries))
	for i, e := range entries {
		old, had := existing[e.id]
		w := &formWrite{formID: e.formID, form: forms[e.formID], before: old.data, after: e.data,
			fresh: !had || old.formID != e.formID, replace: true, prefix: fmt.Sprintf("timed metadata %q: ", e.id)}
		if w.form != nil {
			if w.after, err = w.form.canonicalKeys(e.data); err != nil {
				return prefixed(w.prefix, err)
			}
		}
		writes[i] = w
	}
	if err := checkFormData(ctx, tx, tenantID, writes...); err != nil {
		return err
	}
	for i, e := range entries {
		e.data = writes[i].after
	}
	return nil
}
