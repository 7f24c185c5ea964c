package demo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// Each sample is what docs/demo.md says it is, as the processing worker's own probe
// sees it: the kind, the size shown, the rotation, the length.
func TestSamples(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	files, err := Make(context.Background(), t.TempDir(), Options{MaxDuration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind     string
		w, h     int
		rotated  bool
		duration float64
	}{
		"demo-test-pattern.mp4":   {media.KindVideo, 1280, 720, false, 2},
		"demo-phone-portrait.mp4": {media.KindVideo, 720, 1280, true, 2},
		"demo-tones.m4a":          {media.KindAudio, 0, 0, false, 2},
		"demo-mandelbrot.jpg":     {media.KindImage, 4000, 3000, false, 0},
	}
	if len(files) != len(want) {
		t.Fatalf("%d files, want %d", len(files), len(want))
	}
	for _, f := range files {
		w, ok := want[f.FileName]
		if !ok {
			t.Errorf("unexpected sample %s", f.FileName)
			continue
		}
		p, err := media.ProbeFile(context.Background(), f.Path)
		if err != nil {
			t.Fatalf("%s: %v", f.FileName, err)
		}
		if k := p.Kind(); k != w.kind {
			t.Errorf("%s: kind %s, want %s", f.FileName, k, w.kind)
		}
		if w.duration > 0 && math.Abs(p.Duration()-w.duration) > 0.2 {
			t.Errorf("%s: %.2f s, want %g", f.FileName, p.Duration(), w.duration)
		}
		var s *media.Stream
		switch w.kind {
		case media.KindVideo:
			s = p.Video()
			if p.Audio() == nil {
				t.Errorf("%s: no sound", f.FileName)
			}
		case media.KindImage:
			s = &p.Streams[0]
		case media.KindAudio:
			if a := p.Audio(); a == nil || a.Channels != 2 {
				t.Errorf("%s: audio %+v, want stereo", f.FileName, a)
			}
			continue
		}
		if gw, gh := s.DisplaySize(); gw != w.w || gh != w.h {
			t.Errorf("%s: shown %dx%d, want %dx%d", f.FileName, gw, gh, w.w, w.h)
		}
		// The phone clip's pixels lie sideways: only its rotation stands
		// it upright.
		if r := s.Rotation(); (r == 90) != w.rotated {
			t.Errorf("%s: rotation %d (stored %dx%d)", f.FileName, r, s.Width, s.Height)
		}
		if w.rotated && s.Width != 1280 {
			t.Errorf("%s: stored %dx%d, want 1280x720", f.FileName, s.Width, s.Height)
		}
	}
}
