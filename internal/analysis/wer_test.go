package analysis

import "testing"

func TestWordErrorRate(t *testing.T) {
	for _, c := range []struct {
		want, got string
		rate      float64
	}{
		{"the quick brown fox", "the quick brown fox", 0},
		{"The quick, brown fox.", "the QUICK brown fox", 0},
		{"the quick brown fox", "the quick fox", 0.25},           // a deletion
		{"the quick brown fox", "the quick red brown fox", 0.25}, // an insertion
		{"the quick brown fox", "a quick brown dog", 0.5},        // two substitutions
		{"the quick brown fox", "", 1},
		{"", "", 0},
		{"", "noise", 1},
	} {
		if got := WordErrorRate(c.want, c.got); got != c.rate {
			t.Errorf("WordErrorRate(%q, %q) = %v, want %v", c.want, c.got, got, c.rate)
		}
	}
}
