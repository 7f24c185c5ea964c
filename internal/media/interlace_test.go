package media_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// measured probes path and measures its video as the pipeline does.
func measured(t *testing.T, path string) *media.Probe {
	t.Helper()
	p := probe(t, path)
	if err := media.MeasureVideo(context.Background(), path, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// proxyOf makes the web proxy of path (probed and measured as p).
func proxyOf(t *testing.T, path string, p *media.Probe) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "proxy.mp4")
	args, err := media.ProxyArgs(path, out, p)
	if err != nil {
		t.Fatal(err)
	}
	run(t, args, nil)
	return out
}

// idetOn runs idet over the whole of path: its multi-frame verdicts.
func idetOn(t *testing.T, path string) (tff, bff, prog int) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-an", "-vf", "idet", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("idet: %v %s", err, out)
	}
	m := regexp.MustCompile(`Multi frame detection: TFF:\s*(\d+) BFF:\s*(\d+) Progressive:\s*(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("idet said: %s", out)
	}
	n := func(b []byte) int { v, _ := strconv.Atoi(string(b)); return v }
	return n(m[1]), n(m[2]), n(m[3])
}

// frameTimes are the presentation times of path's video frames, in order.
func frameTimes(t *testing.T, path string) []float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
		"-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var ts []float64
	for _, l := range strings.Fields(string(bytes.TrimSpace(out))) {
		v, err := strconv.ParseFloat(strings.TrimSuffix(l, ","), 64)
		if err == nil {
			ts = append(ts, v)
		}
	}
	return ts
}

// Interlaced sources — TFF and BFF flagged as such, and TFF content whose
// flag says progressive — are found by their field order (idet catches
// the lie), and their proxies are deinterlaced at frame rate: idet finds
// no combing left, one frame per source frame at 25 fps. A progressive
// source stays untouched.
func TestInterlacedSources(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	// 50 progressive frames a second woven into 25 interlaced ones: each
	// field a moment of its own, as a 50i camera records.
	weave := func(name, mode, field string, x264 ...string) string {
		args := []string{"-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=2",
			"-vf", "tinterlace=mode=" + mode + ",setfield=" + field, "-c:v", "libx264", "-preset", "ultrafast"}
		return lavfi(t, name, append(args, x264...)...)
	}
	cases := []struct {
		name, path, order, source string
	}{
		{"tff", weave("tff.mp4", "interleave_top", "tff", "-flags", "+ildct+ilme", "-x264opts", "tff=1"), media.FieldTFF, media.ScanByIdet},
		{"bff", weave("bff.mp4", "interleave_bottom", "bff", "-flags", "+ildct+ilme", "-x264opts", "bff=1"), media.FieldBFF, media.ScanByIdet},
		{"flagged progressive, woven TFF", weave("lie.mp4", "interleave_top", "prog"), media.FieldTFF, media.ScanByIdet},
		{"progressive", lavfi(t, "prog.mp4", "-f", "lavfi", "-i", "testsrc2=size=960x720:rate=25:duration=2",
			"-vf", "scale=320:240", "-c:v", "libx264", "-preset", "ultrafast"), media.FieldProgressive, media.ScanByIdet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := measured(t, c.path)
			scan := p.Video().Scan()
			if scan.FieldOrder != c.order || scan.Source != c.source || scan.Idet == nil {
				t.Fatalf("scan %+v (idet %+v), want %s by %s", scan, scan.Idet, c.order, c.source)
			}
			if c.order == media.FieldProgressive {
				return
			}
			if scan.Idet.TFF+scan.Idet.BFF < 45 {
				t.Fatalf("the source is not combed: %+v", scan.Idet)
			}
			proxy := proxyOf(t, c.path, p)
			tff, bff, prog := idetOn(t, proxy)
			if tff+bff > 5 || prog < 40 { // idet's false alarms on testsrc2 stay under a tenth
				t.Errorf("proxy still combed: idet tff %d bff %d progressive %d", tff, bff, prog)
			}
			ts := frameTimes(t, proxy)
			if len(ts) != 50 {
				t.Errorf("proxy has %d frames, want 50 (25i for 2 s at frame rate)", len(ts))
			}
			for i := 1; i < len(ts); i++ {
				if d := ts[i] - ts[i-1]; d < 0.039 || d > 0.041 {
					t.Fatalf("frame %d %.4f s after the one before, want 0.040", i, d)
				}
			}
			// The early poster is deinterlaced the same way.
			if !strings.Contains(strings.Join(media.EarlyPosterArgs(c.path, "p.jpg", p), " "), "bwdif=mode=send_frame:parity="+c.order) {
				t.Errorf("early poster args %q", media.EarlyPosterArgs(c.path, "p.jpg", p))
			}
		})
	}
}
