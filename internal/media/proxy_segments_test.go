package media_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// A proxy made in segments and joined is what the one run makes: the same
// picture filters (here an interlaced 29.97 source's deinterlacer), frame
// count, rate, start timecode (the tmcd track, drop-frame at 29.97, halved
// at 50p) and audio (none for a silent source).
func TestSegmentedProxyKeepsTheOneRuns(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	for _, c := range []struct {
		rate, tc, extra string
		silent          bool
	}{
		{"30000/1001", "10:00:00;00", "-flags +ildct+ilme -field_order tt", false},
		{"50", "09:59:59:37", "", false},
		{"25", "01:00:00:00", "", true},
	} {
		args := []string{"-f", "lavfi", "-i", "testsrc2=size=320x240:rate=" + c.rate + ":duration=7"}
		if !c.silent {
			args = append(args, "-f", "lavfi", "-i", "sine=duration=7", "-c:a", "pcm_s16le")
		}
		args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-timecode", c.tc)
		if c.extra != "" {
			args = append(args, strings.Fields(c.extra)...)
		}
		src := lavfi(t, "tc.mov", args...)
		p := probe(t, src)
		if err := media.MeasureVideo(ctx, src, p); err != nil {
			t.Fatal(err)
		}
		one := filepath.Join(t.TempDir(), "one.mp4")
		oneArgs, err := media.ProxyArgs(src, one, p)
		if err != nil {
			t.Fatal(err)
		}
		run(t, oneArgs, nil)

		plan, ok := media.PlanProxySegments(p, p.Duration(), 2)
		if !ok || plan.Count != 4 {
			t.Fatalf("%s: plan %+v %v, want 4 segments", c.rate, plan, ok)
		}
		dir := t.TempDir()
		segArgs, err := media.ProxySegmentArgs(src, dir, filepath.Join(dir, "list.csv"), p, plan, 0)
		if err != nil {
			t.Fatal(err)
		}
		vf := func(a []string) string { return a[slices.Index(a, "-vf")+1] }
		if chain := vf(oneArgs); !strings.HasPrefix(vf(segArgs), chain[:strings.Index(chain, "fps=")]) {
			t.Errorf("%s: the segments' filters %q are not the one run's %q", c.rate, vf(segArgs), chain)
		}
		if c.extra != "" && !strings.Contains(vf(segArgs), "bwdif") {
			t.Errorf("%s: interlaced, not deinterlaced: %q", c.rate, vf(segArgs))
		}
		run(t, segArgs, nil)
		var list strings.Builder
		for i := range plan.Count {
			list.WriteString("file '" + filepath.Join(dir, media.SegmentName(i)) + "'\n")
		}
		concat := filepath.Join(dir, "join.txt")
		os.WriteFile(concat, []byte(list.String()), 0o600) //nolint:errcheck
		joined := filepath.Join(t.TempDir(), "joined.mp4")
		joinArgs, err := media.ProxyJoinArgs(src, concat, joined, p)
		if err != nil {
			t.Fatal(err)
		}
		run(t, joinArgs, nil)

		a, b := probe(t, one), probe(t, joined)
		ta, _ := a.StartTimecode()
		tb, ok := b.StartTimecode()
		if !ok || ta.String() != tb.String() {
			t.Errorf("%s: joined timecode %v (%v), the one run's %v", c.rate, tb, ok, ta)
		}
		va, vb := a.Video(), b.Video()
		if vb.NbFrames != va.NbFrames || vb.AvgFrameRate != va.AvgFrameRate || vb.Width != va.Width || vb.FieldOrder != va.FieldOrder {
			t.Errorf("%s: joined %s frames at %s %dpx %q, the one run's %s at %s %dpx %q", c.rate,
				vb.NbFrames, vb.AvgFrameRate, vb.Width, vb.FieldOrder, va.NbFrames, va.AvgFrameRate, va.Width, va.FieldOrder)
		}
		if aa, ab := a.Audio(), b.Audio(); c.silent != (ab == nil) || (ab != nil && (ab.Channels != aa.Channels || ab.CodecName != "aac")) {
			t.Errorf("%s: joined audio %+v", c.rate, ab)
		}
	}
}
