package mdf

import (
	"encoding/json"
	"fmt"
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
			exp := f.CheckValue(json.RawMessage(c.value), users)
			if (exp == "") != c.valid {
				t.Fatalf("CheckValue(%s) = %q, want valid %v", c.value, exp, c.valid)
			}
		})
	}
	// Without the tenant's users only the form of a user id is checked
	// (form definitions check the users afterwards).
	t.Run("user without the tenant's users", func(t *testing.T) {
		f := &MdfField{ID: "f", Type: FieldUser}
		if exp := f.CheckValue(json.RawMessage(`"`+unknownUser+`"`), nil); exp != "" {
			t.Fatalf("user id without users: %q", exp)
		}
	})
}
