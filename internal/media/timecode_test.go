package media_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// Frame N's label, by SMPTE 12M's counting: drop-frame skips labels 0 and
// 1 (0–3 at 59.94) of each minute but every tenth.
func TestTimecodeOfFrameN(t *testing.T) {
	for _, c := range []struct {
		start string
		rate  float64
		frame int64
		want  string
	}{
		{"00:00:00;00", 30000.0 / 1001, 1799, "00:00:59;29"},
		{"00:00:00;00", 30000.0 / 1001, 1800, "00:01:00;02"},
		{"00:00:00;00", 30000.0 / 1001, 17981, "00:09:59;29"},
		{"00:00:00;00", 30000.0 / 1001, 17982, "00:10:00;00"},
		{"00:00:00;00", 30000.0 / 1001, 17982 + 1800, "00:11:00;02"},
		{"10:00:00;00", 30000.0 / 1001, 107892, "11:00:00;00"}, // an hour of 29.97 DF is 107,892 frames
		{"00:00:00;00", 60000.0 / 1001, 3600, "00:01:00;04"},
		{"00:00:00:00", 30000.0 / 1001, 1800, "00:01:00:00"}, // non-drop counts every label
		{"01:00:00:00", 25, 90000, "02:00:00:00"},
		{"23:59:59:24", 25, 1, "00:00:00:00"},
		{"00:59:59:23", 24000.0 / 1001, 1, "01:00:00:00"},
	} {
		tc, err := media.ParseTimecode(c.start, c.rate)
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.Add(c.frame).String(); got != c.want {
			t.Errorf("%s + %d frames at %.3f: %s, want %s", c.start, c.frame, c.rate, got, c.want)
		}
		// And back: the label names the frame (the day wraps at midnight).
		want := tc.FrameNumber() + c.frame
		if c.want == "00:00:00:00" {
			want = 0
		}
		if back, _ := media.ParseTimecode(c.want, c.rate); back.FrameNumber() != want {
			t.Errorf("%s names frame %d, want %d", c.want, back.FrameNumber(), want)
		}
	}
	for _, bad := range []string{"10:00:00", "10:00:00:30", "25:00:00:00", "aa:bb:cc:dd"} {
		if _, err := media.ParseTimecode(bad, 30); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A MOV's start timecode is the item's and the proxy's: the proxy carries
// it as a tmcd track, at its own rate (a 50p source's frames field halved
// in its 25p proxy).
func TestTimecodeCarriesIntoTheProxy(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	for _, c := range []struct {
		rate, tc, want string
	}{
		{"30000/1001", "10:00:00;00", "10:00:00;00"},
		{"50", "09:59:59:37", "09:59:59:18"},
	} {
		src := lavfi(t, "tc.mov", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate="+c.rate+":duration=2",
			"-c:v", "libx264", "-preset", "ultrafast", "-timecode", c.tc)
		p := probe(t, src)
		if got, ok := p.StartTimecode(); !ok || got.String() != c.tc {
			t.Fatalf("start timecode %v %v, want %s", got, ok, c.tc)
		}
		proxy := filepath.Join(t.TempDir(), "proxy.mp4")
		args, err := media.ProxyArgs(src, proxy, p)
		if err != nil {
			t.Fatal(err)
		}
		run(t, args, nil)
		pp, err := media.ProbeFile(context.Background(), proxy)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := pp.StartTimecode()
		if !ok || got.String() != c.want {
			t.Fatalf("%s at %s: the proxy starts at %v (%v), want %s", c.tc, c.rate, got, ok, c.want)
		}
	}
}
