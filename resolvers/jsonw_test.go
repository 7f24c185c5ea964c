package resolvers

import (
	"encoding/json"
	"testing"
	"time"
)

// jsonw writes strings and times that decode to what encoding/json's
// output decodes to.
func TestJSONWriter(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "line\nbreak\r\ttab", "\x00\x01\x1f\x7f",
		"<b>&amp;</b>", "ünïcødé 日本 🎞", "bad \xff utf-8 \xe2\x82", "\u2028\u2029"} {
		var got, want string
		if err := json.Unmarshal(jsonw(nil).str(s), &got); err != nil {
			t.Fatalf("%q: %s does not decode: %v", s, jsonw(nil).str(s), err)
		}
		b, _ := json.Marshal(s)
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q: decodes to %q, encoding/json's to %q", s, got, want)
		}
	}
	if got, want := string(jsonw(nil).strs(nil)), `[]`; got != want {
		t.Errorf("nil list %s, want %s", got, want)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_234_000, time.FixedZone("x", 3600))
	if got, want := string(jsonw(nil).time(at)), `"2026-03-04T04:06:07.891Z"`; got != want {
		t.Errorf("time %s, want %s", got, want)
	}
}
