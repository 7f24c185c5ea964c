package tool

import (
	"strings"
	"sync"
)

// Tail is an io.Writer that keeps the last bytes written to it: the end of
// what a program says is where its reason is. It is safe for concurrent
// use.
type Tail struct {
	max int

	mu  sync.Mutex
	buf []byte
	cut bool // bytes were dropped from the front
}

// NewTail keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// String is what is kept, trimmed; when its front was dropped, from the
// first whole line on, after "...".
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.cut {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		return "..." + strings.TrimSpace(s)
	}
	return strings.TrimSpace(s)
}

// maxLines bounds Lines: a line of a tool's error output can be long
// (a Python traceback's repr of its input).
const maxLines = 600

// Lines are LastLines of what is kept.
func (t *Tail) Lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return LastLines(string(t.buf), n)
}

// LastLines are the last n non-empty lines of s, trimmed and "; "-joined,
// at most maxLines bytes.
func LastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, "; ")
	if len(out) > maxLines {
		out = "…" + strings.ToValidUTF8(out[len(out)-maxLines:], "")
	}
	return out
}
