package tool_test

import (
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/tool"
)

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		writes []string
		str    string
		lines  string
	}{
		{name: "kept whole", max: 100, writes: []string{"a\n", "\n b \n", "c\n"}, str: "a\n\n b \nc", lines: "a; b; c"},
		{name: "last bytes", max: 4, writes: []string{"abc", "def"}, str: "...cdef", lines: "cdef"},
		{name: "from a line start", max: 8, writes: []string{"first\nsecond\nend\n"}, str: "...end", lines: "ond; end"},
		{name: "last lines", max: 100, writes: []string{"1\n2\n3\n4\n"}, str: "1\n2\n3\n4", lines: "2; 3; 4"},
		{name: "bounded", max: 4000, writes: []string{strings.Repeat("x", 2000) + "\n\nend\n"},
			str: strings.Repeat("x", 2000) + "\n\nend", lines: "…" + strings.Repeat("x", 595) + "; end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tail := tool.NewTail(tc.max)
			for _, w := range tc.writes {
				tail.Write([]byte(w)) //nolint:errcheck // never fails
			}
			if got := tail.String(); got != tc.str {
				t.Errorf("String %q, want %q", got, tc.str)
			}
			if got := tail.Lines(3); got != tc.lines {
				t.Errorf("Lines %q, want %q", got, tc.lines)
			}
		})
	}
}
