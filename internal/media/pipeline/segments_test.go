package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// memKeeper keeps segments in a directory of the test's, as a store
// would: what a later attempt finds.
type memKeeper struct {
	mu    sync.Mutex
	dir   string
	plan  string
	kept  map[int]string
	last  int // -1: the last is not kept
	wrote []int
	// after is called once segment i is kept.
	after func(i int)
}

func newKeeper(t *testing.T) *memKeeper {
	return &memKeeper{dir: t.TempDir(), kept: map[int]string{}, last: -1}
}

func (k *memKeeper) Kept(_ context.Context, plan, dir string) ([]string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var paths []string
	if plan != k.plan {
		return nil, false, nil
	}
	for i := 0; ; i++ {
		src, ok := k.kept[i]
		if !ok {
			return paths, false, nil
		}
		dst := filepath.Join(dir, "kept-"+strconv.Itoa(i)+".mp4")
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, false, err
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return nil, false, err
		}
		paths = append(paths, dst)
		if i == k.last {
			return paths, true, nil
		}
	}
}

func (k *memKeeper) Keep(ctx context.Context, plan string, i int, path string, last bool) error {
	if err := ctx.Err(); err != nil {
		return err // a dead node keeps nothing more
	}
	k.mu.Lock()
	b, err := os.ReadFile(path)
	if err == nil {
		dst := filepath.Join(k.dir, fmt.Sprintf("%s-%d-%d.mp4", plan, len(k.wrote), i))
		err = os.WriteFile(dst, b, 0o600)
		k.plan, k.kept[i] = plan, dst
	}
	if last {
		k.last = i
	}
	k.wrote = append(k.wrote, i)
	after := k.after
	k.mu.Unlock()
	if err == nil && after != nil {
		after(i)
	}
	return err
}

// counterClip is a clip of the given rate whose every frame shows its own
// index as 12 black or white blocks (bit b: block b of the top half), and
// a tone: a frame's index can be read back from any proxy of it.
func counterClip(t *testing.T, rate, seconds int, then string) string {
	return lavfi(t, fmt.Sprintf("counter-%d.mp4", rate), "-f", "lavfi", "-i",
		fmt.Sprintf("color=c=gray:s=320x180:r=%d:d=%d,geq=lum='if(lt(Y,H/2),235*mod(floor(N/pow(2,floor(X/(W/12)))),2)+16,128)':cb=128:cr=128%s",
			rate, seconds, then),
		"-f", "lavfi", "-i", fmt.Sprintf("sine=frequency=440:duration=%d", seconds), "-fps_mode", "vfr",
		"-c:v", "libx264", "-preset", "ultrafast", "-g", strconv.Itoa(4*rate), "-pix_fmt", "yuv420p", "-c:a", "aac")
}

// frameIndexes reads the source frame index each frame of video shows.
func frameIndexes(t *testing.T, video string) []int {
	t.Helper()
	const w, h = 96, 54
	raw, err := exec.Command("ffmpeg", "-v", "error", "-i", video, "-map", "0:v", "-vf", fmt.Sprintf("scale=%d:%d", w, h),
		"-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil {
		t.Fatalf("decoding %s: %v", video, err)
	}
	var idx []int
	for f := 0; (f+1)*w*h <= len(raw); f++ {
		fr := raw[f*w*h : (f+1)*w*h]
		n := 0
		for b := range 12 {
			if fr[(h/4)*w+int((float64(b)+0.5)*w/12)] > 128 {
				n |= 1 << b
			}
		}
		idx = append(idx, n)
	}
	return idx
}

// ptsOf are the presentation times of a stream's packets, in order.
func ptsOf(t *testing.T, file, stream string) []float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
		"-of", "csv=p=0", file).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", file, err)
	}
	var pts []float64
	for _, l := range strings.Fields(string(out)) {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(l, ","), 64); err == nil {
			pts = append(pts, v)
		}
	}
	slices.Sort(pts)
	return pts
}

func streamDuration(t *testing.T, file, stream string) float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "stream=duration",
		"-of", "csv=p=0", file).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", file, err)
	}
	d, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return d
}

func proxyOf(t *testing.T, r *pipeline.Result) string {
	for _, o := range r.Outputs {
		if o.Key == pipeline.OutProxy {
			return o.Path
		}
	}
	t.Fatal("no proxy")
	return ""
}

// A proxy made in segments, interrupted after k of them and resumed by a
// second attempt, is the proxy of one uninterrupted run frame for frame:
// the same count, each frame the same source frame (no frame repeated or
// missing at the joins), one constant cadence, the audio as long as the
// picture within one AAC frame; and the second attempt encodes only the
// segments the first did not keep. A 25 fps source (a 25 fps proxy), a
// 50 fps one (25 fps: every other source frame), and a variable-rate one
// that lacks the frames where segments start (the one run shows the frame
// before twice: a resumed run that began at the next source frame would
// not).
func TestResumedProxyIsTheUninterruptedOne(t *testing.T) {
	mediatest.Need(t)
	for _, c := range []struct {
		name string
		rate int
		then string // after the counter
	}{
		{"25fps", 25, ""},
		{"50fps", 50, ""},
		{"vfr", 25, `,select='not(eq(mod(n\,50)\,0)*gt(n\,0))'`},
	} {
		rate := c.rate
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			src := counterClip(t, rate, 12, c.then)
			proxyOnly := pipeline.Steps{pipeline.StepProxy: true}
			const segSeconds, k = 2, 2 // 6 segments of 50 frames; interrupted after 2

			one, err := pipeline.Run(ctx, src, t.TempDir(), proxyOnly, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := frameIndexes(t, proxyOf(t, one))
			if len(want) != 300 {
				t.Fatalf("the one run's proxy has %d frames, want 300", len(want))
			}

			// Interrupted: the node dies once segment k-1 is kept.
			keeper := newKeeper(t)
			runCtx, cancel := context.WithCancel(ctx)
			keeper.after = func(i int) {
				if i == k-1 {
					cancel()
				}
			}
			_, err = pipeline.RunResuming(runCtx, src, t.TempDir(), proxyOnly, nil,
				&pipeline.Resume{Keeper: keeper, SegmentSeconds: segSeconds}, nil)
			if !errors.Is(err, context.Canceled) && runCtx.Err() == nil {
				t.Fatalf("the interrupted attempt: %v", err)
			}
			if !slices.Equal(keeper.wrote, []int{0, 1}) {
				t.Fatalf("the interrupted attempt kept segments %v, want [0 1]", keeper.wrote)
			}

			// Resumed.
			keeper.after, keeper.wrote = nil, nil
			dir := t.TempDir()
			res, err := pipeline.RunResuming(ctx, src, dir, proxyOnly, nil,
				&pipeline.Resume{Keeper: keeper, SegmentSeconds: segSeconds}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s := res.Segments; s == nil || s.Count != 6 || s.Reused != k {
				t.Fatalf("segments %+v, want 6 with %d reused", s, k)
			}
			if !slices.Equal(keeper.wrote, []int{2, 3, 4, 5}) {
				t.Fatalf("the resumed attempt made segments %v, want [2 3 4 5] only", keeper.wrote)
			}
			// What the second attempt's ffmpeg encoded: the frames of the
			// segments it made, the 200 not kept.
			encoded := 0
			for _, i := range []int{2, 3, 4, 5} {
				encoded += len(ptsOf(t, filepath.Join(dir, "segments", fmt.Sprintf("%05d.mp4", i)), "v:0"))
			}
			if encoded != 300-k*50 {
				t.Errorf("the resumed attempt encoded %d frames, want %d", encoded, 300-k*50)
			}

			proxy := proxyOf(t, res)
			got := frameIndexes(t, proxy)
			if len(got) != len(want) {
				t.Fatalf("resumed proxy: %d frames, the one run's %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("frame %d shows source frame %d, the one run's %d (around: %v / %v)", i, got[i], want[i],
						got[max(0, i-3):min(len(got), i+3)], want[max(0, i-3):min(len(want), i+3)])
				}
			}
			// The source frames follow each other at the proxy's rate
			// (at the joins too: frames 50·k-1 and 50·k).
			step := rate / 25
			for i := 1; i < len(got) && c.then == ""; i++ {
				if got[i]-got[i-1] != step {
					t.Fatalf("frames %d, %d show source frames %d, %d", i-1, i, got[i-1], got[i])
				}
			}
			pts := ptsOf(t, proxy, "v:0")
			for i := 1; i < len(pts); i++ {
				if d := pts[i] - pts[i-1]; math.Abs(d-0.04) > 0.0005 {
					t.Fatalf("frame %d is %.4f s after the one before", i, d)
				}
			}
			if pts[0] != 0 {
				t.Errorf("the picture starts at %.3f s", pts[0])
			}
			v, a := streamDuration(t, proxy, "v:0"), streamDuration(t, proxy, "a:0")
			if math.Abs(v-a) > 1024.0/48000 {
				t.Errorf("audio %.4f s, picture %.4f s: more than one AAC frame apart", a, v)
			}
			if math.Abs(v-12) > 0.001 {
				t.Errorf("the picture lasts %.4f s", v)
			}
			if b, _ := os.ReadFile(proxy); !(strings.Index(string(b), "moov") < strings.Index(string(b), "mdat")) {
				t.Error("the proxy's index is not up front (faststart)")
			}
		})
	}
}
