package loupe_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe"
)

func TestReadJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name, body string
		want       string // the error's message; "" for accepted
	}{
		{"object", `{"a":[1,"x",{"b":null}],"c":true}`, ""},
		{"scalar", `12345678901234567890`, ""},
		{"at the nesting bound", deep(loupe.MaxJSONNesting), ""},
		{"past the nesting bound", deep(loupe.MaxJSONNesting + 1), "JSON nests arrays and objects more than 64 deep"},
		{"duplicate key", `{"a":1,"b":{"c":1,"c":2}}`, `the key "c" appears twice in one object`},
		{"same key in two objects", `{"a":{"c":1},"b":{"c":2}}`, ""},
		{"not UTF-8", "{\"a\":\"\xff\"}", loupe.ErrNotUTF8.Message},
		{"two values", `{} {}`, "syntax"},
		{"truncated", `{"a":[1,`, "syntax"},
		{"empty", ``, "syntax"},
		{"stray close", `]`, "syntax"},
		{"trailing comma", `{"a":1,}`, "syntax"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loupe.ReadJSON([]byte(tc.body))
			got := ""
			var le *loupe.Error
			switch {
			case err == nil:
			case errors.Is(err, loupe.ErrJSONSyntax):
				got = "syntax"
			case errors.As(err, &le):
				got = le.Message
			default:
				t.Fatalf("ReadJSON: unexpected error %v", err)
			}
			if got != tc.want {
				t.Fatalf("ReadJSON(%.40q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
	v, err := loupe.ReadJSON([]byte(`{"n":12345678901234567890}`))
	if err != nil || v.(map[string]any)["n"] != json.Number("12345678901234567890") {
		t.Errorf("numbers stay json.Number: %#v %v", v, err)
	}
}

func TestCheckJSON(t *testing.T) {
	l := loupe.JSONLimit{Bytes: 40, Depth: 2, Keys: 3, Items: 3}
	read := func(s string) any {
		v, err := loupe.ReadJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name, value string
		want        string
	}{
		{"within", `{"a":[1,2,3],"b":"x"}`, ""},
		{"scalar", `"x"`, ""},
		{"too deep", `{"a":[[1]]}`, "a[0]: arrays and objects nested more than 2 deep"},
		{"too many keys", `{"a":1,"b":2,"c":3,"d":4}`, "an object of 4 keys, over the limit of 3"},
		{"too many items", `{"a":[1,2,3,4]}`, "a: an array of 4 elements, over the limit of 3"},
		{"too large", `"` + strings.Repeat("x", 40) + `"`, "a JSON value of 42 bytes, over the limit of 40"},
		{"NUL in a string", `{"a":["x\u0000"]}`, "a[0]: " + loupe.ErrNUL.Message},
		{"NUL in a key", `{"a\u0000":1}`, loupe.ErrNUL.Message},
		{"first fault in key order", `{"b":"\u0000","a":"\u0000"}`, "a: " + loupe.ErrNUL.Message},
		{"escaped backslash is text", `{"a":"\\u0000"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := loupe.CheckJSON(l, read(tc.value))
			got := ""
			if err != nil {
				got = err.Error()
			} else if !json.Valid(j) {
				t.Fatalf("CheckJSON returned %s", j)
			}
			if got != tc.want {
				t.Fatalf("CheckJSON(%s) = %q, want %q", tc.value, got, tc.want)
			}
		})
	}
}
