package openaistt

import (
	"encoding/json"
	"testing"
)

// Answers as services give them: segments with words, segments only, text
// only; words land in the segment they start in.
func TestSegmentsOf(t *testing.T) {
	type seg struct {
		content    string
		start, end int64
		words      int
	}
	for _, c := range []struct {
		name, body string
		want       []seg
	}{
		{"segments and words", `{"text":"hello there. bye","segments":[{"start":0,"end":1.5,"text":" hello there."},{"start":1.5,"end":2.25,"text":" bye"}],
			"words":[{"word":"hello","start":0.1,"end":0.6},{"word":"there.","start":0.7,"end":1.4},{"word":"bye","start":1.6,"end":2.2}]}`,
			[]seg{{"hello there.", 0, 1500, 2}, {"bye", 1500, 2250, 1}}},
		{"segments only", `{"segments":[{"start":0.0004,"end":0.9996,"text":"hi"},{"start":1,"end":1,"text":"  "}]}`, []seg{{"hi", 0, 1000, 0}}},
		{"text only", `{"text":" just text "}`, []seg{{"just text", 0, 0, 0}}},
		{"nothing", `{"text":""}`, nil},
	} {
		var a answer
		if err := json.Unmarshal([]byte(c.body), &a); err != nil {
			t.Fatal(err)
		}
		got := segmentsOf(a)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %+v", c.name, got)
		}
		for i, w := range c.want {
			if g := got[i]; g.Content != w.content || g.StartMs != w.start || g.EndMs != w.end || len(g.Words) != w.words {
				t.Errorf("%s: segment %d is %+v, want %+v", c.name, i, g, w)
			}
		}
	}
	if m := serviceMessage([]byte(`{"error":{"message":"Invalid file format."}}`)); m != "Invalid file format." {
		t.Errorf("service message %q", m)
	}
}
