package subtitles

import (
	"reflect"
	"strings"
	"testing"
)

func TestWriteAndRead(t *testing.T) {
	long := "The quick brown fox jumps over the lazy dog and keeps running far away"
	cues := []Cue{
		{StartMs: 0, EndMs: 1500, Text: "Hello <world> & friends"},
		{StartMs: 1500, EndMs: 1500, Text: "zero\n\nlength"},
		{StartMs: 3_723_456, EndMs: 3_725_000, Text: long},
		{StartMs: 4_000_000, EndMs: 4_000_100, Text: "a --> b"},
	}
	vtt := WebVTT(cues)
	for _, want := range []string{"WEBVTT\n", "00:00:00.000 --> 00:00:01.500\nHello &lt;world&gt; &amp; friends\n",
		"00:00:01.500 --> 00:00:01.501\nzero length\n", "01:02:03.456 --> 01:02:05.000\n"} {
		if !strings.Contains(string(vtt), want) {
			t.Errorf("WebVTT lacks %q:\n%s", want, vtt)
		}
	}
	srt := SRT(cues)
	if !strings.HasPrefix(string(srt), "1\n00:00:00,000 --> 00:00:01,500\nHello <world> & friends\n\n2\n") {
		t.Errorf("SRT:\n%s", srt)
	}
	for name, parse := range map[string]func([]byte) ([]Cue, error){"vtt": ParseWebVTT, "srt": ParseSRT} {
		b := vtt
		if name == "srt" {
			b = srt
		}
		got, err := parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []Cue{
			{0, 1500, "Hello <world> & friends"},
			{1500, 1501, "zero length"},
			{3_723_456, 3_725_000, long},
			{4_000_000, 4_000_100, "a --> b"},
		}
		if name == "srt" {
			want[3].Text = "a -> b"
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s read back %+v", name, got)
		}
	}
	// Lines are wrapped at LineWidth.
	for _, line := range strings.Split(string(vtt), "\n") {
		if len([]rune(line)) > LineWidth {
			t.Errorf("line longer than %d: %q", LineWidth, line)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"no header", "1\n00:00:00.000 --> 00:00:01.000\nx\n"},
		{"bad time", "WEBVTT\n\n00:00:0.000 --> 00:00:01.000\nx\n"},
		{"backwards", "WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nx\n"},
		{"no timing", "WEBVTT\n\n1\nx\n"},
		{"minutes", "WEBVTT\n\n00:61:00.000 --> 00:62:00.000\nx\n"},
	} {
		if _, err := ParseWebVTT([]byte(c.in)); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	got, err := ParseWebVTT([]byte("WEBVTT - a title\n\nNOTE a comment\n\nid\n00:01.000 --> 00:02.000 align:start\nx\ny\n"))
	if err != nil || !reflect.DeepEqual(got, []Cue{{1000, 2000, "x y"}}) {
		t.Errorf("short times, settings, NOTE: %+v %v", got, err)
	}
}

func FuzzParseWebVTT(f *testing.F) {
	f.Add([]byte("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nx\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cues, err := ParseWebVTT(b)
		if err != nil {
			return
		}
		// What was read writes and reads back the same (as one line of
		// collapsed words).
		again, err := ParseWebVTT(WebVTT(cues))
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(again) != len(cues) {
			t.Fatalf("%d cues, then %d", len(cues), len(again))
		}
	})
}
