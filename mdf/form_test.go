package mdf

import (
	"encoding/json"

	"github.com/loupe-mam/loupe"
)

// testForm is a form for the write rules.
func testForm() *Mdf {
	m := &Mdf{ID: "story", Active: true}
	m.fields = append([]*MdfField{}, systemFields...)
	m.fields = append(m.fields,
		&MdfField{ID: "status", FieldID: "status", Label: "Status", Type: FieldChoice, Required: true,
			Alternatives: []Alternative{{"draft", "Draft"}, {"final", "Final"}}},
		&MdfField{ID: "code", FieldID: "code", Label: "Code", Type: FieldText, ReadOnly: true},
		&MdfField{ID: "desk", FieldID: "desk", Label: "Desk", Type: FieldText, ReadOnly: true, DefaultValue: loupe.JSON(`"national"`)},
		&MdfField{ID: "n", FieldID: "count", Label: "Count", Type: FieldNumber},
	)
	m.retired = []*MdfField{{ID: "old", FieldID: "old", Label: "Old", Type: FieldText}}
	return m
}

// data is form data written as JSON; "" is no data (nil).
func data(s string) map[string]json.RawMessage {
	if s == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

func ptr[T any](v T) *T { return &v }
