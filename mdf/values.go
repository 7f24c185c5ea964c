package mdf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
)

// This file holds what a value of each field type may be.

// MaxTextValue bounds a text value, in bytes.
const MaxTextValue = 100000

// maxLinkValue bounds a link value, in bytes.
const maxLinkValue = 2048

// CheckValue returns what the field expects when v does not fit it, or "".
// users holds the tenant's user ids (lower case) among the values; nil
// checks only that a user value is an id.
func (f *MdfField) CheckValue(v json.RawMessage, users map[string]bool) string {
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
		if !isString || !loupe.ValidID(s) || (users != nil && !users[strings.ToLower(s)]) {
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
