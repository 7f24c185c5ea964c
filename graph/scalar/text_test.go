package scalar

import (
	"encoding/json"
	"strings"
	"testing"
)

// Strings, ids and timestamps are read strictly as numbers are: the wrong
// type, U+0000 or a string past loupe.MaxTextBytes are InputErrors (the
// answer names the field), and no message quotes the value.
func TestUnmarshalTextStrictly(t *testing.T) {
	strs := func(v any) result {
		s, err := UnmarshalString(v)
		return wrap(s, err)
	}
	ids := func(v any) result {
		s, err := UnmarshalID(v)
		return wrap(s, err)
	}
	times := func(v any) result {
		tm, err := UnmarshalDateTime(v)
		if err != nil {
			return wrap(0, err)
		}
		return result{tm.Format(Layout), ""}
	}
	long := strings.Repeat("x", 128<<10)
	tooLong := "a string of 131073 bytes, over the limit of 131072"
	for _, c := range []struct {
		name string
		f    func(any) result
		in   any
		want any
		err  string
	}{
		{"string", strs, "café", "café", ""},
		{"string at the limit", strs, long, long, ""},
		{"string over the limit", strs, long + "x", nil, tooLong},
		{"string NUL", strs, "a\x00b", nil, "must not contain the NUL character (U+0000)"},
		{"string number", strs, json.Number("5"), nil, "must be a string"},
		{"id", ids, "01a20f4b-4ca2-7024-a091-920e53bb5c15", "01a20f4b-4ca2-7024-a091-920e53bb5c15", ""},
		{"id integer", ids, json.Number("42"), "42", ""},
		{"id literal int64", ids, int64(7), "7", ""},
		{"id null", ids, nil, "", ""},
		{"id NUL", ids, "a\x00b", nil, "must not contain the NUL character (U+0000)"},
		{"id over the limit", ids, long + "x", nil, tooLong},
		{"id fraction", ids, json.Number("1.5"), nil, notID},
		{"id float64", ids, 1.5, nil, notID},
		{"id boolean", ids, true, nil, notID},
		{"id object", ids, map[string]any{}, nil, notID},
		{"time", times, "2026-01-31T12:00:00+01:00", "2026-01-31T11:00:00.000Z", ""},
		{"time NUL", times, "2026-01-31T12:00:00Z\x00", nil, msgNotTime},
		{"time number", times, json.Number("5"), nil, msgNotTime},
		{"time huge", times, long, nil, msgNotTime},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.f(c.in)
			if c.err != "" {
				if got.err != c.err {
					t.Fatalf("error %q, want %q", got.err, c.err)
				}
				return
			}
			if got.err != "" || got.v != c.want {
				t.Fatalf("= %.80v (%s), want %.80v", got.v, got.err, c.want)
			}
		})
	}
}
