package pipeline_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
)

// A run measures the video before its proxy: an interlaced clip whose flag
// says progressive is reported as TFF found by idet in technicalMetadata,
// with its frame-rate facts; the benchmark's bare reference runs the same
// measuring commands and the same proxy command.
func TestVideoFactsReported(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := lavfi(t, "woven.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=2",
		"-vf", "tinterlace=mode=interleave_top,setfield=prog", "-c:v", "libx264", "-preset", "ultrafast")
	dir := t.TempDir()
	r, err := pipeline.Run(context.Background(), src, dir, pipeline.Steps{pipeline.StepProxy: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := pipeline.Technical(r.Probe)["video"].(map[string]any)
	for k, want := range map[string]any{"fieldOrder": "tff", "fieldOrderSource": "idet", "interlaced": true,
		"frameRateSource": "timestamps", "proxyFrameRate": "25", "variableFrameRate": false, "frameRateDominant": 25.0} {
		if v[k] != want {
			t.Errorf("technicalMetadata.video.%s = %v, want %v (all: %v)", k, v[k], want, v)
		}
	}

	bare := pipeline.Bare(src, dir, probeOf(t, src))
	made, err := media.ProxyArgs(src, dir+"/proxy.mp4", r.Probe)
	if err != nil {
		t.Fatal(err)
	}
	want := media.FFmpegArgv(made)
	i := slices.IndexFunc(bare, func(c []string) bool { return slices.Equal(c, want) })
	if i < 0 || !strings.Contains(strings.Join(want, " "), "bwdif") {
		t.Fatalf("the bare reference does not run the run's proxy command %q:\n%q", want, bare)
	}
	measuring := media.MeasureArgv(src, r.Probe)
	if len(measuring) != 2 || i < len(measuring) || !slices.Equal(bare[i-len(measuring)], measuring[0]) {
		t.Errorf("the bare reference's measuring commands: %q, want %q before the proxy", bare[:i], measuring)
	}
}

func probeOf(t *testing.T, path string) *media.Probe {
	t.Helper()
	p, err := media.ProbeFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
