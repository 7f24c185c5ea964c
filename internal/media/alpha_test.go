package media_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// frameRGB decodes frame 0 of a video or image to rgb24 at its own size.
func frameRGB(t *testing.T, path string, w int) func(x, y int) [3]int {
	t.Helper()
	b, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return func(x, y int) [3]int {
		i := (y*w + x) * 3
		return [3]int{int(b[i]), int(b[i+1]), int(b[i+2])}
	}
}

func isGrey(c [3]int, g, tol int) bool {
	for _, v := range c {
		if v < g-tol || v > g+tol {
			return false
		}
	}
	return true
}

// Video with alpha — ProRes 4444 with a transparent surround and an opaque
// red centre, QuickTime Animation (qtrle, argb) and VP9 with alpha in
// WebM (its alpha plane decoded by libvpx) — gets a proxy and an
// early poster with the surround on the grey checkerboard (not black) and
// the centre red.
func TestVideoAlphaOnCheckerboard(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := "color=c=red:s=320x240:r=25:d=1,format=rgba,geq=r=255:g=0:b=0:a='255*between(X,80,239)*between(Y,60,179)'"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"prores4444.mov", []string{"-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"}},
		{"animation.mov", []string{"-c:v", "qtrle", "-pix_fmt", "argb"}},
		{"vp9-alpha.webm", []string{"-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-deadline", "realtime", "-cpu-used", "8"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := lavfi(t, c.name, append([]string{"-f", "lavfi", "-i", src}, c.args...)...)
			p := probe(t, in)
			if v := p.Video(); !media.HasAlpha(v.PixFmt) && v.Tags["alpha_mode"] != "1" {
				t.Fatalf("the source has no alpha: %s %v", v.PixFmt, v.Tags)
			}
			dir := t.TempDir()
			proxy := filepath.Join(dir, "proxy.mp4")
			args, err := media.ProxyArgs(in, proxy, p)
			if err != nil {
				t.Fatal(err)
			}
			run(t, args, nil)
			poster := filepath.Join(dir, "poster.jpg")
			run(t, media.EarlyPosterArgs(in, poster, p), nil)
			for _, out := range []string{proxy, poster} {
				px := frameRGB(t, out, 320)
				// The squares are 10 px (240 / 24): (5, 5) and (15, 5)
				// lie in two of them, one of each grey.
				a, b := px(5, 5), px(15, 5)
				if !isGrey(a, media.CheckerDark, 8) && !isGrey(a, media.CheckerLight, 8) ||
					!isGrey(b, media.CheckerDark, 8) && !isGrey(b, media.CheckerLight, 8) || isGrey(a, b[0], 20) {
					t.Errorf("%s: transparent corner %v, %v: want the checkerboard's two greys (%d, %d)",
						filepath.Base(out), a, b, media.CheckerLight, media.CheckerDark)
				}
				if c := px(160, 120); c[0] < 220 || c[1] > 40 || c[2] > 40 {
					t.Errorf("%s: centre %v, want red", filepath.Base(out), c)
				}
			}
		})
	}
}

// An opaque video's proxy has no compositing in its filters (its cost and
// its picture unchanged).
func TestOpaqueVideoNotComposited(t *testing.T) {
	p := &media.Probe{Streams: []media.Stream{{CodecType: "video", CodecName: "h264", Width: 1920, Height: 1080,
		PixFmt: "yuv420p", AvgFrameRate: "25/1", RFrameRate: "25/1"}}}
	args, err := media.ProxyArgs("in.mp4", "out.mp4", p)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(args, " "); strings.Contains(all, "overlay") || strings.Contains(all, "libvpx") {
		t.Errorf("opaque source composited: %s", all)
	}
}
