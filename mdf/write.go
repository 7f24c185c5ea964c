package mdf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

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
//
// A check runs in steps because user values need the tenant's users, which
// only the store can read: Prepare each write, read the users among their
// UserIDs, then Check them all.

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

// Write is one write of form data, checked against the form it uses.
type Write struct {
	FormID string
	// Form is nil when the tenant has no form of FormID.
	Form *Mdf
	// Before is the stored data; nil for new data.
	Before map[string]json.RawMessage
	// After is the data to store, keyed by field id (CanonicalKeys);
	// Prepare fills in defaults and drops null values.
	After map[string]json.RawMessage
	// Fresh: the data starts using the form (a new item or entry, or a
	// form switch).
	Fresh bool
	// Replace: After replaces Before wholesale (folder metadata, timed
	// metadata entries), so read-only values it does not give are kept.
	Replace bool
	// Prefix names the data in messages (which timed metadata entry).
	Prefix string
}

// CanonicalKeys returns data as written keyed by the field ids of the
// write's form (a key default_<fieldId> names the field of that fieldId),
// or data as it is when there is no form. Returns EINVALID, its message
// after Prefix, when two keys name one field.
func (w *Write) CanonicalKeys(data map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if w.Form == nil {
		return data, nil
	}
	out, err := w.Form.canonicalKeys(data)
	if err != nil {
		return nil, prefixed(w.Prefix, err)
	}
	return out, nil
}

// problem is one thing wrong with a write, as the client is told.
type problem struct{ msg, dev string }

// Prepare settles After: null values are no values; data that starts using
// the form gets the defaults of fields it does not give; a replacing write
// keeps read-only values.
func (w *Write) Prepare() {
	for k, v := range w.After {
		if loupe.JSON(v).IsNull() {
			delete(w.After, k)
		}
	}
	if w.Form == nil {
		return
	}
	for _, f := range w.Form.fields {
		_, has := w.After[f.ID]
		switch {
		case has:
		case w.Fresh && !f.DefaultValue.IsNull():
			w.After[f.ID] = json.RawMessage(f.DefaultValue)
		case w.Replace && !w.Fresh && f.ReadOnly:
			if old, ok := w.Before[f.ID]; ok {
				w.After[f.ID] = old
			}
		}
	}
}

// checked reports whether the value of a field is checked: always when the
// data starts using the form, else when the write changes it.
func (w *Write) checked(id string) bool {
	v, has := w.After[id]
	if !has {
		return false
	}
	old, hadOld := w.Before[id]
	return w.Fresh || !hadOld || !SameValue(old, v)
}

// UserIDs are the user ids among the values the write checks: Check needs
// to know which of them are users of the tenant.
func (w *Write) UserIDs() []string {
	if w.Form == nil {
		return nil
	}
	var ids []string
	for _, f := range w.Form.fields {
		if f.Type != FieldUser || !w.checked(f.ID) {
			continue
		}
		var s string
		if json.Unmarshal(w.After[f.ID], &s) == nil && loupe.ValidID(s) {
			ids = append(ids, s)
		}
	}
	return ids
}

// problems lists what is wrong with the write, fields in form order, then
// unknown keys by name. users holds the tenant's user ids among the values.
func (w *Write) problems(users map[string]bool) []problem {
	m := w.Form
	if m == nil {
		return []problem{{w.Prefix + fmt.Sprintf(msgUnknownForm, w.FormID),
			fmt.Sprintf("the tenant has no form %q (GET /api/v1/mdfs lists them)", w.FormID)}}
	}
	if w.Fresh && !m.Active {
		return []problem{{w.Prefix + fmt.Sprintf(msgInactiveForm, w.FormID),
			fmt.Sprintf("form %q is not active: nothing can start using it", w.FormID)}}
	}
	var out []problem
	add := func(msg, dev string) { out = append(out, problem{w.Prefix + msg, dev}) }
	for _, f := range m.fields {
		v, has := w.After[f.ID]
		old, hadOld := w.Before[f.ID]
		if f.ReadOnly && !w.Fresh && (has != hadOld || (has && !SameValue(old, v))) {
			add(fmt.Sprintf(msgReadOnly, f.ID), fmt.Sprintf("field %q of form %q is read-only: it is set when the data starts using the form", f.ID, m.ID))
			continue
		}
		if f.Required && isEmptyValue(v) && (w.Fresh || !isEmptyValue(old)) {
			add(fmt.Sprintf(msgMissingRequired, f.ID), fmt.Sprintf("form %q requires a value for %q (%s)", m.ID, f.ID, f.Label))
			continue
		}
		if w.checked(f.ID) {
			if exp := f.CheckValue(v, users); exp != "" {
				add(fmt.Sprintf(msgInvalidValue, shortJSON(v), f.ID), fmt.Sprintf("field %q of form %q is %s: %s", f.ID, m.ID, f.Type, exp))
			}
		}
	}
	for _, k := range sortedKeys(w.After) {
		if m.field(k) != nil {
			continue
		}
		if old, ok := w.Before[k]; ok && SameValue(old, w.After[k]) {
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

// Check checks prepared writes against their forms. users holds which of
// their UserIDs are users of the tenant (lower case). Returns EINVALID with
// the first problem as the message, what was expected as developerMessage
// and every problem in payload.messages; nil when there is none.
func Check(users map[string]bool, writes ...*Write) error {
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

// SameValue reports whether two JSON values are equal whatever their
// spacing: a write changes a value only when they differ, and a record of
// the change should say the same.
func SameValue(a, b json.RawMessage) bool {
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
