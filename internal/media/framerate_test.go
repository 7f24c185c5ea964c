package media_test

import (
	"math"
	"os/exec"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// changes reports, for each frame of path's video after the first, whether
// its picture differs from the frame before (a repeated frame does not):
// the luma of each frame against the last, mean absolute difference.
func changes(t *testing.T, path string, w, h int) []bool {
	t.Helper()
	raw, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path, "-an", "-vf", "extractplanes=y",
		"-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	size := w * h
	var out []bool
	for off := size; off+size <= len(raw); off += size {
		sum := 0
		for i := range size {
			d := int(raw[off+i]) - int(raw[off-size+i])
			sum += max(d, -d)
		}
		out = append(out, float64(sum)/float64(size) > 0.5)
	}
	return out
}

// A VFR clip of 1 s at 24 fps, 1 s at 60 and ~1 s at 12 (millisecond
// timestamps, as MKV writes them) averages 32.9 fps; its proxy is 30 fps
// constant, so that every frame of the 24 and 12 fps sections is kept and
// the 60 fps section keeps every other one. Measured on the proxy: the
// frame spacing, and the changed pictures per section.
func TestVFRSections(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := lavfi(t, "vfr.mkv", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=1",
		"-f", "lavfi", "-i", "testsrc2=size=320x240:rate=60:duration=1", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=12:duration=1",
		"-filter_complex", "[0][1][2]concat=n=3:v=1", "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast")
	p := measured(t, src)
	r := p.Video().Rates()
	if r.Source != "timestamps" || r.Proxy != "30" || r.Slowest != 12 || r.Fastest != 60 || !r.Variable || len(r.Sections) != 3 {
		t.Fatalf("rates %+v", r)
	}
	for i, want := range []float64{24, 60, 12} {
		if s := r.Sections[i]; s.FPS != want || math.Abs(s.Start-float64(i)) > 0.05 {
			t.Errorf("section %d: %+v, want %v fps from %d s", i, s, want, i)
		}
	}
	proxy := proxyOf(t, src, p)
	ts := frameTimes(t, proxy)
	if len(ts) < 86 || len(ts) > 90 {
		t.Errorf("proxy has %d frames, want 88 (2.92 s at 30 fps)", len(ts))
	}
	for i := 1; i < len(ts); i++ {
		if d := ts[i] - ts[i-1]; math.Abs(d-1.0/30) > 0.001 {
			t.Fatalf("proxy frame %d %.4f s after the one before, want 1/30", i, d)
		}
	}
	ch := changes(t, proxy, 320, 240)
	for _, sec := range []struct {
		from, to int // proxy frames
		want     int
	}{{1, 30, 23}, {30, 60, 30}, {60, len(ch) + 1, 11}} {
		n := 0
		for i := sec.from; i < sec.to && i-1 < len(ch); i++ {
			if ch[i-1] {
				n++
			}
		}
		if n < sec.want-1 || n > sec.want+1 {
			t.Errorf("proxy frames %d–%d: %d new pictures, want %d", sec.from, sec.to, n, sec.want)
		}
	}
}

// Constant-rate sources keep their rate under the cap, NTSC rates exactly:
// 25 → 25, 29.97 → 30000/1001, 50 → 25, 59.94 → 30000/1001, and a 23.976
// one stays 24000/1001.
func TestCFRProxyRates(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	for _, c := range []struct{ rate, want string }{
		{"25", "25"}, {"30000/1001", "30000/1001"}, {"50", "25"}, {"60000/1001", "30000/1001"}, {"24000/1001", "24000/1001"},
	} {
		t.Run(c.rate, func(t *testing.T) {
			t.Parallel()
			src := lavfi(t, "cfr.mp4", "-f", "lavfi", "-i", "testsrc2=size=160x120:duration=1:rate="+c.rate,
				"-c:v", "libx264", "-preset", "ultrafast")
			p := measured(t, src)
			if r := p.Video().Rates(); r.Proxy != c.want || r.Variable {
				t.Errorf("%s fps source: proxy rate %s (variable %v), want %s", c.rate, r.Proxy, r.Variable, c.want)
			}
			if c.rate == "60000/1001" {
				if v := probe(t, proxyOf(t, src, p)).Video(); v.AvgFrameRate != "30000/1001" {
					t.Errorf("59.94 source: proxy at %s", v.AvgFrameRate)
				}
			}
		})
	}
}
