package mdf

import (
	"reflect"
	"testing"
)

// TestMdfInputBuild builds a form, then overwrites it step by step: each
// step's input overwrites the form the step before built.
func TestMdfInputBuild(t *testing.T) {
	s := func(v string) *string { return &v }
	typ := func(v MdfFieldType) *MdfFieldType { return &v }
	steps := []struct {
		name  string
		in    *MdfInput
		check func(t *testing.T, m *Mdf)
	}{
		{
			name: "create",
			in: &MdfInput{Label: s(" News "), Fields: []*MdfFieldInput{
				{FieldID: s("title"), Label: s("Headline"), Type: typ(FieldText), Required: ptr(true)},
				{FieldID: s("genre"), Type: typ(FieldChoice), Alternatives: []*AlternativeInput{{Value: "a"}, {Value: "b", Label: s("Bee")}}},
			}},
			check: func(t *testing.T, m *Mdf) {
				if m.Label != "News" || m.DisplayName != "News" || !m.Active || string(m.Permissions) != `{"read":{},"write":{}}` ||
					string(m.Views) != "{}" || m.UsageRules != nil {
					t.Fatalf("form = %+v", m)
				}
				var ids []string
				for _, f := range m.fields {
					ids = append(ids, f.ID+":"+f.Label)
				}
				// title names the system field; description is added; ids default to the fieldId.
				if want := []string{"default_description:Description", "default_title:Headline", "genre:genre"}; !reflect.DeepEqual(ids, want) {
					t.Fatalf("fields = %v, want %v", ids, want)
				}
				if m.fields[1].Required != true || !m.fields[1].SystemDefaultField ||
					!reflect.DeepEqual(m.fields[2].Alternatives, []Alternative{{"a", "a"}, {"b", "Bee"}}) {
					t.Fatalf("fields = %+v %+v", m.fields[1], m.fields[2])
				}
			},
		},
		{
			// An overwrite keeps ids by fieldId...
			name: "overwrite keeps ids by fieldId",
			in:   &MdfInput{Label: s("News"), Fields: []*MdfFieldInput{{FieldID: s("genre"), Type: typ(FieldText)}}},
			check: func(t *testing.T, m *Mdf) {
				if len(m.fields) != 3 || m.fields[2].ID != "genre" || m.fields[2].Type != FieldText || len(m.retired) != 0 {
					t.Fatalf("overwrite = %+v, retired %+v", m.fields, m.retired)
				}
			},
		},
		{
			// ...and retires what it leaves out.
			name: "overwrite retires what it leaves out",
			in:   &MdfInput{Label: s("News"), Fields: []*MdfFieldInput{}},
			check: func(t *testing.T, m *Mdf) {
				if len(m.retired) != 1 || m.retired[0].ID != "genre" {
					t.Fatalf("retired = %+v", m.retired)
				}
			},
		},
	}
	var old *Mdf
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			m, err := st.in.Build("news", old, nil)
			if err != nil {
				t.Fatal(err)
			}
			st.check(t, m)
			old = m
		})
		if !ok {
			break // the next step overwrites this one's form
		}
	}
}
