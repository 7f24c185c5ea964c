package mdf

import (
	"reflect"
	"testing"

	"github.com/loupe-mam/loupe"
)

func noForm() *Mdf { return nil }

func inactiveForm() *Mdf {
	m := testForm()
	m.Active = false
	return m
}

func TestFormWriteRules(t *testing.T) {
	cases := []struct {
		name    string
		before  string // "" for new data
		after   string
		fresh   bool
		replace bool
		want    []string    // problem messages
		stored  string      // after, when there is no problem ("" to skip)
		formID  string      // default "story"
		form    func() *Mdf // default testForm
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
		{name: "an unknown form", formID: "nope", form: noForm, after: `{}`, fresh: true,
			want: []string{`unknown form: "nope"`}},
		{name: "nothing starts using an inactive form", form: inactiveForm, after: `{"status":"draft"}`, fresh: true,
			want: []string{`inactive form: "story"`}},
		{name: "data already on an inactive form stays writable", form: inactiveForm, before: `{"status":"draft"}`,
			after: `{"status":"final"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			formID, form := "story", testForm
			if c.formID != "" {
				formID = c.formID
			}
			if c.form != nil {
				form = c.form
			}
			w := &Write{FormID: formID, Form: form(), Before: data(c.before), After: data(c.after),
				Fresh: c.fresh, Replace: c.replace}
			w.Prepare()
			var got []string
			for _, p := range w.problems(nil) {
				got = append(got, p.msg)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("problems = %q, want %q", got, c.want)
			}
			if c.stored != "" {
				if g, want := loupe.JSONOf(w.After), loupe.JSONOf(data(c.stored)); string(g) != string(want) {
					t.Fatalf("stored %s, want %s", g, want)
				}
			}
		})
	}
}

func TestCanonicalKeys(t *testing.T) {
	cases := []struct {
		name, data, want, wantErr string
	}{
		{name: "default_<fieldId> names the field", data: `{"default_count":1,"default_title":"T","status":"draft","x":2}`,
			want: `{"n":1,"default_title":"T","status":"draft","x":2}`},
		{name: "two keys of one field", data: `{"default_count":1,"n":2}`, wantErr: `field given twice: "n"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := testForm().canonicalKeys(data(c.data))
			if c.wantErr != "" {
				if err == nil || err.(*loupe.Error).Message != c.wantErr {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := data(c.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("canonical keys = %v", got)
			}
		})
	}
}

// A write's CanonicalKeys: its form's, with its prefix on the message.
func TestWriteCanonicalKeys(t *testing.T) {
	cases := []struct {
		name, prefix, data, want string
		form                     func() *Mdf
		wantErr                  string
		wantMessages             []string
	}{
		{name: "keyed by field ids", form: testForm, data: `{"default_count":1}`, want: `{"n":1}`},
		{name: "without a form, as written", form: noForm, data: `{"default_count":1,"n":2}`, want: `{"default_count":1,"n":2}`},
		{name: "the message without a prefix", form: testForm, data: `{"default_count":1,"n":2}`,
			wantErr: `field given twice: "n"`, wantMessages: []string{`field given twice: "n"`}},
		{name: "the message after the prefix", form: testForm, prefix: `timed metadata "t1": `, data: `{"default_count":1,"n":2}`,
			wantErr:      `timed metadata "t1": field given twice: "n"`,
			wantMessages: []string{`timed metadata "t1": field given twice: "n"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &Write{FormID: "story", Form: c.form(), Prefix: c.prefix}
			got, err := w.CanonicalKeys(data(c.data))
			if c.wantErr != "" {
				se, ok := err.(*loupe.Error)
				if !ok || se.Kind != loupe.EINVALID || se.Message != c.wantErr ||
					!reflect.DeepEqual(se.Payload["messages"], c.wantMessages) {
					t.Fatalf("error %#v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := data(c.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("canonical keys = %v, want %v", got, want)
			}
		})
	}
}

// Check answers every problem of every write, the first as the message.
func TestCheck(t *testing.T) {
	cases := []struct {
		name     string
		writes   []*Write
		wantMsgs []string // nil: no error
		wantDev  string
	}{
		{name: "no problem", writes: []*Write{{FormID: "story", Form: testForm(), After: data(`{"status":"draft"}`), Fresh: true}}},
		{name: "the problems of every write", writes: []*Write{
			{FormID: "story", Form: testForm(), After: data(`{}`), Fresh: true, Prefix: "a: "},
			{FormID: "nope", After: data(`{}`), Fresh: true, Prefix: "b: "},
		}, wantMsgs: []string{`a: missing value for required field: "status"`, `b: unknown form: "nope"`},
			wantDev: `form "story" requires a value for "status" (Status)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, w := range c.writes {
				w.Prepare()
			}
			err := Check(nil, c.writes...)
			if c.wantMsgs == nil {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			se, ok := err.(*loupe.Error)
			if !ok || se.Kind != loupe.EINVALID || se.Message != c.wantMsgs[0] || se.DeveloperMessage != c.wantDev ||
				!reflect.DeepEqual(se.Payload["messages"], c.wantMsgs) {
				t.Fatalf("Check() = %#v, want %q", err, c.wantMsgs)
			}
		})
	}
}
