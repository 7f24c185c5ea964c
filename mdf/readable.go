package mdf

import (
	"encoding/json"

	"github.com/loupe-mam/loupe"
)

// This file makes form data readable by people: labels for field ids and
// for choice values.

// ReadableFormData is form data as readableMetadataFields answers it: keyed
// by the fields' labels (retired fields' too), with the labels of the
// alternatives for choice values. Keys no field defines, and values no
// alternative has, stay as they are; a label two fields share gets the
// field id in brackets the second time. m may be nil (an unknown form): the
// system fields are labelled still.
func ReadableFormData(m *Mdf, data loupe.JSON) (loupe.JSON, error) {
	obj, err := data.Object()
	if err != nil {
		return nil, err
	}
	fields := systemFields
	if m != nil {
		fields = append(append([]*MdfField{}, m.fields...), m.retired...)
	}
	out := make(map[string]json.RawMessage, len(obj))
	put := func(label, key string, v json.RawMessage) {
		if _, taken := out[label]; taken {
			label = label + " (" + key + ")"
		}
		out[label] = v
	}
	done := make(map[string]bool, len(obj))
	for _, f := range fields {
		v, ok := obj[f.ID]
		if !ok || done[f.ID] {
			continue
		}
		done[f.ID] = true
		put(f.Label, f.ID, f.readableValue(v))
	}
	for _, k := range sortedKeys(obj) {
		if !done[k] {
			put(k, k, obj[k])
		}
	}
	return loupe.JSONOf(out), nil
}

// readableValue is a value with its alternatives' labels for its values.
func (f *MdfField) readableValue(v json.RawMessage) json.RawMessage {
	if !f.Type.hasAlternatives() {
		return v
	}
	label := func(s string) string {
		for _, a := range f.Alternatives {
			if a.Value == s {
				return a.Label
			}
		}
		return s
	}
	var one string
	if json.Unmarshal(v, &one) == nil {
		return loupe.RawJSON(label(one))
	}
	var many []any
	if json.Unmarshal(v, &many) != nil {
		return v
	}
	for i, e := range many {
		if s, ok := e.(string); ok {
			many[i] = label(s)
		}
	}
	return loupe.RawJSON(many)
}
