package store

import (
	"encoding/json"
	"fmt"
	"github.com/loupe-mam/loupe"
	"reflect"
	"strings"
	"testing"
)

const (
	knownUser   = "01a20242-9dca-771b-bd4e-ca31c13a56ec"
	unknownUser = "01a20242-9dca-771b-bd4e-ca31c13a56ed"
)

func TestFieldCheckValue(t *testing.T) {
	alts := []Alternative{{"a", "Alpha"}, {"b", "Beta"}}
	users := map[string]bool{knownUser: true}
	cases := []struct {
		typ   MdfFieldType
		value string
		valid bool
	}{
		{FieldText, `"x"`, true}, {FieldText, `""`, true}, {FieldText, `5`, false}, {FieldText, `true`, false},
		{FieldText, `["x"]`, false}, {FieldText, `{"x":1}`, false},
		{FieldText, `"` + strings.Repeat("x", MaxTextValue) + `"`, true},
		{FieldText, `"` + strings.Repeat("x", MaxTextValue+1) + `"`, false},
		{FieldDate, `"2026-02-28"`, true}, {FieldDate, `"2026-02-28T23:59:59Z"`, true},
		{FieldDate, `"2026-02-28T23:59:59.5-05:00"`, true}, {FieldDate, `"2026-02-30"`, false},
		{FieldDate, `"28.02.2026"`, false}, {FieldDate, `"2026-02-28 12:00"`, false}, {FieldDate, `20260228`, false},
		{FieldChoice, `"a"`, true}, {FieldChoice, `"c"`, false}, {FieldChoice, `"Alpha"`, false},
		{FieldChoice, `["a"]`, false}, {FieldChoice, `1`, false},
		{FieldCheckbox, `true`, true}, {FieldCheckbox, `false`, true}, {FieldCheckbox, `"true"`, false}, {FieldCheckbox, `0`, false},
		{FieldNumber, `0`, true}, {FieldNumber, `-1.5e3`, true}, {FieldNumber, `"1"`, false}, {FieldNumber, `false`, false},
		{FieldMultipleChoice, `[]`, true}, {FieldMultipleChoice, `["b","a"]`, true}, {FieldMultipleChoice, `["a","a"]`, false},
		{FieldMultipleChoice, `["c"]`, false}, {FieldMultipleChoice, `"a"`, false}, {FieldMultipleChoice, `[true]`, false},
		{FieldLink, `"https://example.com"`, true}, {FieldLink, `"HTTP://example.com/x?y#z"`, true},
		{FieldLink, `"mailto:a@example.com"`, false}, {FieldLink, `"/relative"`, false}, {FieldLink, `"https:///x"`, false},
		{FieldLink, `"https://` + strings.Repeat("x", maxLinkValue) + `"`, false},
		{FieldUser, `"` + knownUser + `"`, true}, {FieldUser, `"` + strings.ToUpper(knownUser) + `"`, true},
		{FieldUser, `"` + unknownUser + `"`, false}, {FieldUser, `"admin"`, false}, {FieldUser, `7`, false},
	}
	for _, c := range cases {
		name := c.value
		if len(name) > 30 {
			name = name[:30]
		}
		t.Run(fmt.Sprintf("%s %s", c.typ, name), func(t *testing.T) {
			f := &MdfField{ID: "f", Type: c.typ, Alternatives: alts}
			exp := f.checkValue(json.RawMessage(c.value), users)
			if (exp == "") != c.valid {
				t.Fatalf("checkValue(%s) = %q, want valid %v", c.value, exp, c.valid)
			}
		})
	}
	// Without the tenant's users only the form of a user id is checked
	// (form definitions check the users afterwards).
	f := &MdfField{ID: "f", Type: FieldUser}
	if exp := f.checkValue(json.RawMessage(`"`+unknownUser+`"`), nil); exp != "" {
		t.Fatalf("user id without users: %q", exp)
	}
}

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

func TestFormWriteRules(t *testing.T) {
	cases := []struct {
		name    string
		before  string // "" for new data
		after   string
		fresh   bool
		replace bool
		want    []string // problem messages
		stored  string   // after, when there is no problem ("" to skip)
	}{
		{name: "new data gets defaults", after: `{"status":"draft"}`, fresh: true,
			stored: `{"status":"draft","desk":"national"}`},
		{name: "new data may set read-only fields", after: `{"status":"draft","code":"C","desk":"local"}`, fresh: true,
			stored: `{"status":"draft","code":"C","desk":"local"}`},
		{name: "new data misses a required field", after: `{}`, fresh: true,
			want: []string{`missing value for required field: "status"`}},
		{name: "null is no value", after: `{"status":null,"n":null}`, fresh: true,
			want: []string{`missing value for required field: "status"`}},
		{name: "every problem, in form order", after: `{"status":"maybe","n":"x","default_nope":1}`, fresh: true,
			want: []string{`invalid value "maybe" for field: "status"`, `invalid value "x" for field: "n"`, `unknown field: "default_nope"`}},
		{name: "free keys are kept", after: `{"status":"draft","reel":"A1"}`, fresh: true,
			stored: `{"status":"draft","reel":"A1","desk":"national"}`},
		{name: "retired field cannot be set", after: `{"status":"draft","old":"x"}`, fresh: true,
			want: []string{`unknown field: "old"`}},
		{name: "retired value kept", before: `{"status":"draft","old":"x"}`, after: `{"status":"final","old":"x"}`,
			stored: `{"status":"final","old":"x"}`},
		{name: "retired value removed", before: `{"status":"draft","old":"x"}`, after: `{"status":"draft"}`,
			stored: `{"status":"draft"}`},
		{name: "read-only cannot change", before: `{"status":"draft","code":"C"}`, after: `{"status":"draft","code":"D"}`,
			want: []string{`cannot change read-only field: "code"`}},
		{name: "read-only cannot be set later", before: `{"status":"draft"}`, after: `{"status":"draft","code":"D"}`,
			want: []string{`cannot change read-only field: "code"`}},
		{name: "read-only cannot be removed", before: `{"status":"draft","code":"C"}`, after: `{"status":"draft"}`,
			want: []string{`cannot change read-only field: "code"`}},
		{name: "a replace keeps read-only values", before: `{"status":"draft","code":"C"}`, after: `{"status":"final"}`,
			replace: true, stored: `{"status":"final","code":"C"}`},
		{name: "required cannot be emptied", before: `{"status":"draft"}`, after: `{"status":""}`,
			want: []string{`missing value for required field: "status"`}},
		{name: "a required gap already there stays", before: `{"n":1}`, after: `{"n":2}`, stored: `{"n":2}`},
		{name: "values kept as they are are not checked", before: `{"status":"gone","n":"text"}`, after: `{"status":"gone","n":"text","code":null}`,
			stored: `{"status":"gone","n":"text"}`},
		{name: "a form switch checks every value", before: `{"status":"gone"}`, after: `{"status":"gone"}`, fresh: true,
			want: []string{`invalid value "gone" for field: "status"`}},
		{name: "a form switch keeps values of other forms", before: `{"status":"draft","other":1,"default_x":2}`,
			after: `{"status":"draft","other":1,"default_x":2}`, fresh: true,
			stored: `{"status":"draft","other":1,"default_x":2,"desk":"national"}`},
		{name: "spacing does not make a change", before: `{"status":"draft","code":["a", "b"]}`, after: `{"status":"draft","code":["a","b"]}`,
			stored: `{"status":"draft","code":["a","b"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &formWrite{formID: "story", form: testForm(), before: data(c.before), after: data(c.after),
				fresh: c.fresh, replace: c.replace}
			w.prepare()
			var got []string
			for _, p := range w.problems(nil) {
				got = append(got, p.msg)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("problems = %q, want %q", got, c.want)
			}
			if c.stored != "" {
				if g, want := loupe.JSONOf(w.after), loupe.JSONOf(data(c.stored)); string(g) != string(want) {
					t.Fatalf("stored %s, want %s", g, want)
				}
			}
		})
	}

	// An unknown form, an inactive one.
	w := &formWrite{formID: "nope", after: data(`{}`), fresh: true}
	if p := w.problems(nil); len(p) != 1 || p[0].msg != `unknown form: "nope"` {
		t.Fatalf("unknown form: %v", p)
	}
	inactive := testForm()
	inactive.Active = false
	w = &formWrite{formID: "story", form: inactive, after: data(`{"status":"draft"}`), fresh: true}
	if p := w.problems(nil); len(p) != 1 || p[0].msg != `inactive form: "story"` {
		t.Fatalf("inactive form: %v", p)
	}
	w = &formWrite{formID: "story", form: inactive, before: data(`{"status":"draft"}`), after: data(`{"status":"final"}`)}
	if p := w.problems(nil); len(p) != 0 {
		t.Fatalf("data already on an inactive form: %v", p)
	}
}

func TestCanonicalKeys(t *testing.T) {
	m := testForm()
	got, err := m.canonicalKeys(data(`{"default_count":1,"default_title":"T","status":"draft","x":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := data(`{"n":1,"default_title":"T","status":"draft","x":2}`); !reflect.DeepEqual(got, want) {
		t.Fatalf("canonical keys = %v", got)
	}
	if _, err := m.canonicalKeys(data(`{"default_count":1,"n":2}`)); err == nil || err.(*loupe.Error).Message != `field given twice: "n"` {
		t.Fatalf("two keys of one field: %v", err)
	}
}

func TestMdfInputBuild(t *testing.T) {
	s := func(v string) *string { return &v }
	typ := func(v MdfFieldType) *MdfFieldType { return &v }
	in := &MdfInput{Label: s(" News "), Fields: []*MdfFieldInput{
		{FieldID: s("title"), Label: s("Headline"), Type: typ(FieldText), Required: ptr(true)},
		{FieldID: s("genre"), Type: typ(FieldChoice), Alternatives: []*AlternativeInput{{Value: "a"}, {Value: "b", Label: s("Bee")}}},
	}}
	m, err := in.build("news", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
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

	// An overwrite keeps ids by fieldId and retires what it leaves out.
	m.fields[2].OptionListID = nil
	again := &MdfInput{Label: s("News"), Fields: []*MdfFieldInput{{FieldID: s("genre"), Type: typ(FieldText)}}}
	m2, err := again.build("news", m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.fields) != 3 || m2.fields[2].ID != "genre" || m2.fields[2].Type != FieldText || len(m2.retired) != 0 {
		t.Fatalf("overwrite = %+v, retired %+v", m2.fields, m2.retired)
	}
	m3, err := (&MdfInput{Label: s("News"), Fields: []*MdfFieldInput{}}).build("news", m2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m3.retired) != 1 || m3.retired[0].ID != "genre" {
		t.Fatalf("retired = %+v", m3.retired)
	}
}

func TestReadableFormData(t *testing.T) {
	m := testForm()
	m.fields = append(m.fields,
		&MdfField{ID: "tags", FieldID: "tags", Label: "Tags", Type: FieldMultipleChoice, Alternatives: []Alternative{{"x", "Ex"}}},
		&MdfField{ID: "dup", FieldID: "dup", Label: "Status", Type: FieldText})
	got, err := ReadableFormData(m, loupe.JSON(`{"default_title":"T","status":"final","tags":["x","gone"],"old":1,"dup":"d","free":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Old":1,"Status":"Final","Status (dup)":"d","Tags":["Ex","gone"],"Title":"T","free":true}`
	if string(got) != want {
		t.Fatalf("readable = %s, want %s", got, want)
	}
	// An unknown form still labels the system fields.
	got, _ = ReadableFormData(nil, loupe.JSON(`{"default_description":"D","x":1}`))
	if string(got) != `{"Description":"D","x":1}` {
		t.Fatalf("readable without a form = %s", got)
	}
}
