package pipeline_test

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
)

func lavfi(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-nostdin", "-loglevel", "error", "-y"}, args...), out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making %s: %v %s", name, err, b)
	}
	return out
}

// roles counts the outputs by their key (a strip's sheets: "").
func roles(r *pipeline.Result) map[string]int {
	m := map[string]int{}
	for _, o := range r.Outputs {
		m[o.Key]++
		if _, err := os.Stat(o.Path); err != nil {
			panic(err)
		}
	}
	return m
}

// Each kind of media gets its outputs, progress rises to 100, technical
// metadata comes from the probe.
func TestRunByKind(t *testing.T) {
	mediatest.Need(t)
	ctx := context.Background()
	video := lavfi(t, "two-tracks.mkv", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=5",
		"-f", "lavfi", "-i", "sine=frequency=300:duration=5", "-f", "lavfi", "-i", "sine=frequency=900:duration=5",
		"-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "flac",
		"-metadata", "creation_time=2024-05-06T07:08:09Z")
	var last pipeline.Progress
	var n int
	r, err := pipeline.Run(ctx, video, t.TempDir(), pipeline.AllSteps, nil, func(p pipeline.Progress) {
		if p.Percent < last.Percent {
			t.Errorf("progress went back: %+v after %+v", p, last)
		}
		last, n = p, n+1
	})
	if err != nil {
		t.Fatal(err)
	}
	got := roles(r)
	// The two mono tracks are the proxy's left and right: no track proxy.
	want := map[string]int{pipeline.OutProxy: 1, pipeline.OutAudioTracks: 0, pipeline.OutThumbnails: 3,
		pipeline.OutPoster: 1, "": 1, pipeline.OutStrip: 1, pipeline.OutWaveform: 1,
		pipeline.OutWaveformImage: 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d outputs, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if r.Kind != media.KindVideo || last.Percent != 100 || n < 5 {
		t.Fatalf("kind %s, last progress %+v after %d reports", r.Kind, last, n)
	}
	for _, o := range r.Outputs {
		if o.Key == pipeline.OutThumbnails && o.Name == "thumbnails/00002.jpg" && o.Position != 2*time.Second {
			t.Errorf("thumbnail 2 at %v", o.Position)
		}
	}
	tech := pipeline.Technical(r.Probe)
	if tech["video"].(map[string]any)["width"] != 640 || len(tech["audio"].([]map[string]any)) != 2 {
		t.Errorf("technical metadata: %v", tech)
	}
	if c := pipeline.CreatedOn(r.Probe); c == nil || c.Year() != 2024 {
		t.Errorf("created on %v", c)
	}
	if fc := pipeline.FrameCount(r.Probe); fc < 120 || fc > 130 {
		t.Errorf("frame count %d", fc)
	}

	audio := lavfi(t, "a.wav", "-f", "lavfi", "-i", "sine=duration=3")
	r, err = pipeline.Run(ctx, audio, t.TempDir(), pipeline.AllSteps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(r); r.Kind != media.KindAudio || got[pipeline.OutProxy] != 1 || got[pipeline.OutWaveform] != 1 || got[pipeline.OutThumbnails] != 0 {
		t.Fatalf("audio: %s %v", r.Kind, got)
	}

	img := lavfi(t, "i.png", "-f", "lavfi", "-i", "testsrc2=size=2000x1000", "-frames:v", "1")
	r, err = pipeline.Run(ctx, img, t.TempDir(), pipeline.AllSteps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(r); r.Kind != media.KindImage || got[pipeline.OutPoster] != 1 || got[pipeline.OutPreview] != 1 {
		t.Fatalf("image: %s %v", r.Kind, got)
	}
	for _, o := range r.Outputs {
		if o.Key == pipeline.OutPreview && (o.Width != 1280 || o.Height != 640) {
			t.Errorf("preview %dx%d", o.Width, o.Height)
		}
	}

	junk := filepath.Join(t.TempDir(), "junk.bin")
	b := make([]byte, 32<<10)
	rand.Read(b)                 //nolint:errcheck
	os.WriteFile(junk, b, 0o600) //nolint:errcheck
	r, err = pipeline.Run(ctx, junk, t.TempDir(), pipeline.AllSteps, nil, nil)
	if err == nil && (r.Kind != media.KindOther || len(r.Outputs) != 0) {
		t.Fatalf("random bytes: %s %v", r.Kind, roles(r))
	}
}
