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

// KeepStored fills what an overwrite leaves out with the stored form's
// values, so that building it gives the stored form back with only the
// given keys changed; keys given (as null too) are the input's.
func TestKeepStored(t *testing.T) {
	s := func(v string) *string { return &v }
	typ := func(v MdfFieldType) *MdfFieldType { return &v }
	listID := "01a20242-9dca-771b-bd4e-ca31c13a56ec"
	lists := map[string][]Alternative{listID: {{"x", "Ex"}}}
	old, err := (&MdfInput{
		Label: s("News"), DisplayName: s("News story"), Active: ptr(false), Flavor: s(FlavorTechnicalData),
		Color: s("#FF8800CC"), Icon: s("paper"), Rule: s("{title} {genre}"),
		Fields: []*MdfFieldInput{
			{FieldID: s("genre"), Type: typ(FieldChoice), Alternatives: []*AlternativeInput{{Value: "a", Label: s("A")}}, Required: ptr(true)},
			{ID: s("news_pick"), FieldID: s("pick"), Type: typ(FieldChoice), OptionListID: s(listID)},
			{FieldID: s("desk"), Type: typ(FieldText), ReadOnly: ptr(true), Sortable: ptr(true), DefaultValue: []byte(`"national"`)},
		},
		Views: []byte(`{"v":1}`), ViewSections: []byte(`{"s":1}`), Permissions: []byte(`{"read":{"r":1},"write":{}}`),
		UsageRules: []byte(`[{"identifier":{"key":"k","label":"K"},"contexts":[]}]`),
	}).Build("news", nil, lists)
	if err != nil {
		t.Fatal(err)
	}

	// Nothing given but the id: the same form.
	in := &MdfInput{ID: s("news"), Written: map[string]bool{"id": true}}
	in.KeepStored(old)
	same, err := in.Build("news", old, lists)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(same, old) {
		t.Fatalf("kept everything:\n got %+v\nwant %+v", same, old)
	}

	// The icon given, the color given as null: only those change.
	in = &MdfInput{ID: s("news"), Icon: s("radio"), Written: map[string]bool{"id": true, "icon": true, "color": true}}
	in.KeepStored(old)
	m, err := in.Build("news", old, lists)
	if err != nil {
		t.Fatal(err)
	}
	if *m.Icon != "radio" || m.Color != nil || *m.Rule != "{title} {genre}" || m.Label != "News" || m.Active ||
		!reflect.DeepEqual(m.fields, old.fields) || string(m.UsageRules) != string(old.UsageRules) {
		t.Fatalf("icon given, color null: %+v", m)
	}

	// Without Written (nil), nothing is kept: the input is the whole form.
	in = &MdfInput{ID: s("news"), Label: s("Bare"), Fields: []*MdfFieldInput{}}
	in.KeepStored(old)
	if in.Icon != nil || in.Color != nil || len(in.Fields) != 0 {
		t.Fatalf("no Written, yet kept: %+v", in)
	}
}
