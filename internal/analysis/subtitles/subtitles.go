// Package subtitles writes and reads the subtitle files made from an
// item's timed transcript (docs/attachments.md "Transcripts"): WebVTT, what
// browsers' <track> elements play, and SubRip (SRT), what editing and
// broadcast tools import.
//
// A transcript segment is one cue. Its text is made one line (newlines and
// runs of spaces collapsed: a blank line would end the cue) and wrapped at
// LineWidth characters, the common broadcast limit; a cue is never split,
// so its timing stays the transcript's.
package subtitles

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// LineWidth is the longest line of a cue, in characters (longer words stay
// whole).
const LineWidth = 42

// Cue is one timed text, times in milliseconds.
type Cue struct {
	StartMs, EndMs int64
	Text           string
}

// WebVTT writes cues as a WebVTT file. Text is escaped (&, <, >); a cue
// whose end is not after its start lasts 1 ms (WebVTT drops it otherwise).
func WebVTT(cues []Cue) []byte {
	var b bytes.Buffer
	b.WriteString("WEBVTT\n")
	for i, c := range cues {
		end := max(c.EndMs, c.StartMs+1)
		fmt.Fprintf(&b, "\n%d\n%s --> %s\n", i+1, stamp(c.StartMs, '.'), stamp(end, '.'))
		for _, line := range wrap(c.Text) {
			b.WriteString(vttEscaper.Replace(line))
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// SRT writes cues as a SubRip file (SRT has no escaping; "-->" in a text
// would read as a timing line and is written as "->").
func SRT(cues []Cue) []byte {
	var b bytes.Buffer
	for i, c := range cues {
		if i > 0 {
			b.WriteByte('\n')
		}
		end := max(c.EndMs, c.StartMs+1)
		fmt.Fprintf(&b, "%d\n%s --> %s\n", i+1, stamp(c.StartMs, ','), stamp(end, ','))
		for _, line := range wrap(c.Text) {
			b.WriteString(strings.ReplaceAll(line, "-->", "->"))
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// stamp is HH:MM:SS.mmm (sep '.', WebVTT) or HH:MM:SS,mmm (',', SRT).
func stamp(ms int64, sep byte) string {
	ms = max(ms, 0)
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, sep, ms%1000)
}

// wrap collapses text to one line of words and wraps it at LineWidth.
func wrap(text string) []string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return []string{"…"} // a cue needs a line; ValidateTranscript refuses blank segments anyway
	}
	var lines []string
	cur := words[0]
	for _, w := range words[1:] {
		if utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > LineWidth {
			lines = append(lines, cur)
			cur = w
			continue
		}
		cur += " " + w
	}
	return append(lines, cur)
}

// ParseWebVTT reads a WebVTT file's cues (identifiers, settings, NOTE and
// STYLE blocks skipped; lines of a cue joined with a space; entities
// &amp; &lt; &gt; decoded). An error names the first malformed line.
func ParseWebVTT(b []byte) ([]Cue, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || !strings.HasPrefix(strings.TrimPrefix(sc.Text(), "\ufeff"), "WEBVTT") {
		return nil, fmt.Errorf("subtitles: not a WebVTT file (no WEBVTT header)")
	}
	return parseBlocks(sc, '.', 1, strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace)
}

// ParseSRT reads a SubRip file's cues.
func ParseSRT(b []byte) ([]Cue, error) {
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	return parseBlocks(sc, ',', 0, func(s string) string { return s })
}

// parseBlocks reads blank-line separated blocks whose timing line is
// "start --> end"; lineNo is the number of lines already read.
func parseBlocks(sc *bufio.Scanner, sep byte, lineNo int, decode func(string) string) ([]Cue, error) {
	var (
		cues  []Cue
		block []string
	)
	flush := func() error {
		defer func() { block = block[:0] }()
		if len(block) == 0 || strings.HasPrefix(block[0], "NOTE") || strings.HasPrefix(block[0], "STYLE") || strings.HasPrefix(block[0], "REGION") {
			return nil
		}
		t := 0
		if !strings.Contains(block[0], "-->") {
			t = 1 // an identifier first
		}
		if t >= len(block) || !strings.Contains(block[t], "-->") {
			return fmt.Errorf("subtitles: line %d: a cue without a timing line", lineNo)
		}
		from, to, _ := strings.Cut(block[t], "-->")
		toFields := strings.Fields(to) // the end time, then settings
		if len(toFields) == 0 {
			return fmt.Errorf("subtitles: line %d: a timing line without an end time", lineNo)
		}
		to = toFields[0]
		start, err := parseStamp(strings.TrimSpace(from), sep)
		if err != nil {
			return fmt.Errorf("subtitles: line %d: %w", lineNo, err)
		}
		end, err := parseStamp(strings.TrimSpace(to), sep)
		if err != nil {
			return fmt.Errorf("subtitles: line %d: %w", lineNo, err)
		}
		if end < start {
			return fmt.Errorf("subtitles: line %d: a cue ends before it starts", lineNo)
		}
		cues = append(cues, Cue{StartMs: start, EndMs: end, Text: decode(strings.Join(block[t+1:], " "))})
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		block = append(block, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return cues, nil
}

// parseStamp reads [HH:]MM:SS<sep>mmm.
func parseStamp(s string, sep byte) (int64, error) {
	var h, m, sec, ms int64
	parts := strings.Split(s, ":")
	if len(parts) == 2 {
		parts = append([]string{"0"}, parts...)
	}
	if len(parts) != 3 || len(parts[2]) != 6 || parts[2][2] != sep {
		return 0, fmt.Errorf("malformed time %q", s)
	}
	if _, err := fmt.Sscanf(parts[0]+" "+parts[1]+" "+parts[2][:2]+" "+parts[2][3:], "%d %d %d %d", &h, &m, &sec, &ms); err != nil || m > 59 || sec > 59 {
		return 0, fmt.Errorf("malformed time %q", s)
	}
	return ((h*60+m)*60+sec)*1000 + ms, nil
}
