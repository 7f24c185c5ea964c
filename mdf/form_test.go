package mdf

import (
	"encoding/json"
	"reflect"
	"testing"

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

func TestDecode(t *testing.T) {
	cases := []struct {
		name                   string
		fields, retired, lists string
		want                   []Alternative // the alternatives of the second field
		wantErr                bool
	}{
		{name: "own alternatives", fields: `[{"id":"a","type":"text"},{"id":"b","type":"choice","alternatives":[{"value":"x","label":"X"}]}]`,
			want: []Alternative{{"x", "X"}}},
		{name: "alternatives of the option list", fields: `[{"id":"a","type":"text"},{"id":"b","type":"choice","optionListId":"l"}]`,
			lists: `{"l":[{"value":"y","label":"Y"}]}`, want: []Alternative{{"y", "Y"}}},
		{name: "an option list that is gone offers none", fields: `[{"id":"a","type":"text"},{"id":"b","type":"choice","optionListId":"l"}]`,
			lists: `{}`, want: []Alternative{}},
		{name: "retired fields", fields: `[{"id":"a","type":"text"},{"id":"b","type":"text"}]`, retired: `[{"id":"r","type":"text"}]`},
		{name: "unreadable fields", fields: `{"id":"a"}`, wantErr: true},
		{name: "unreadable retired fields", fields: `[]`, retired: `{}`, wantErr: true},
		{name: "unreadable option lists", fields: `[]`, lists: `[]`, wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &Mdf{ID: "f", FieldsDoc: loupe.JSON(c.fields)}
			if c.retired != "" {
				m.RetiredDoc = loupe.JSON(c.retired)
			}
			if c.lists != "" {
				m.OptionAlternatives = loupe.JSON(c.lists)
			}
			err := m.Decode()
			if (err != nil) != c.wantErr {
				t.Fatalf("Decode() = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				return
			}
			if c.retired != "" && len(m.RetiredFields()) != 1 {
				t.Fatalf("retired = %+v", m.RetiredFields())
			}
			if got := m.Fields()[1].Alternatives; !reflect.DeepEqual(got, c.want) {
				t.Fatalf("alternatives = %#v, want %#v", got, c.want)
			}
			// The stored fields keep a field's own alternatives, not a list's.
			var stored []MdfField
			if err := json.Unmarshal(m.StoredFields(), &stored); err != nil {
				t.Fatal(err)
			}
			listed, kept := m.Fields()[1].OptionListID != nil, stored[1].Alternatives != nil
			if len(c.want) > 0 && kept == listed {
				t.Fatalf("stored %s", m.StoredFields())
			}
		})
	}
}
