package render

import (
	"context"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// gopX264 encodes what the h264aac profile makes, in closed GOPs of 25
// frames (a keyframe each second at 25 fps) with B-frames.
var gopX264 = []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "12", "-g", "25", "-keyint_min", "25",
	"-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p", "-profile:v", "high",
	"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"}

// gopSource makes name: seconds of the frame-numbered grey at size and
// rate, encoded with video, and beeps at each of at with audio.
func gopSource(t *testing.T, name, size, rate string, seconds float64, video, audio []string, at ...float64) string {
	t.Helper()
	args := []string{"-f", "lavfi", "-i", grayCount(size, rate, seconds), "-f", "lavfi", "-i", beeps(48000, seconds, at...)}
	return lavfi(t, name, append(append(args, video...), audio...)...)
}

// videoPackets are the hashes of path's video packets in decoding order,
// each with its time in frames at 25 fps (the sources start at 0).
func videoPackets(t *testing.T, path string) (frames []float64, hashes []string) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_data_hash", "md5",
		"-show_entries", "packet=pts_time,data_hash", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pts, hash, _ := strings.Cut(line, ",")
		frames = append(frames, parseFloat(pts)*25)
		hashes = append(hashes, hash)
	}
	return frames, hashes
}

// Sources that are what the profile makes, cut on their keyframes: the
// video is copied packet for packet — every frame the source's, the
// frame count exact — and the sound is cut at the same frames.
func TestStreamCopy(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	// A: 8 s MP4, AAC, beeps at frames 25 and 100; B: 6 s MOV (150
	// frames), PCM, beeps at frames 50 and 125.
	a := gopSource(t, "a.mp4", "320x180", "25", 8, gopX264, []string{"-c:a", "aac", "-b:a", "128k"}, 1, 4)
	b := gopSource(t, "b.mov", "320x180", "25", 6, gopX264, []string{"-c:a", "pcm_s16le"}, 2, 5)
	clips := []Clip{{a, 25, 75}, {b, 50, 100}, {a, 100, 150}, {b, 125, 150}} // the last to B's end
	starts := []int64{0, 50, 100, 150, 175}

	for _, c := range []struct {
		name string
		p    Profile
	}{
		{"mp4 aac", h264aac(320, 180, Rational{25, 1})},
		{"mov pcm", func() Profile {
			p := h264aac(320, 180, Rational{25, 1})
			p.Container, p.Audio.Codec = "mov", "pcm_s16le"
			return p
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out."+c.p.Container)
			j, err := Plan(ctx, clips, c.p, out)
			if err != nil {
				t.Fatal(err)
			}
			if !j.StreamCopy || j.Reencoded != "" {
				t.Fatalf("not copied: %s", j.Reencoded)
			}
			if j.Frames != 175 || j.Duration != 7*time.Second {
				t.Fatalf("job: %d frames, %v", j.Frames, j.Duration)
			}
			start := time.Now()
			if err := j.Run(ctx, nil); err != nil {
				t.Fatalf("%v\n%q", err, j.Args)
			}
			copied := time.Since(start)

			v := ffprobe(t, out, "-count_frames", "-select_streams", "v:0", "-show_entries",
				"stream=nb_read_frames,r_frame_rate,width,height,pix_fmt,start_time,codec_name,profile")
			if v["nb_read_frames"] != "175" || v["r_frame_rate"] != "25/1" || v["width"] != "320" || v["height"] != "180" ||
				v["pix_fmt"] != "yuv420p" || parseFloat(v["start_time"]) != 0 || v["codec_name"] != "h264" || v["profile"] != "High" {
				t.Errorf("video: %v", v)
			}
			// Every frame is its source's: each clip's first its In.
			ys := lumas(t, out, "320:180:0:0")
			if len(ys) != 175 {
				t.Fatalf("%d frames decoded", len(ys))
			}
			for i, cl := range clips {
				for k := starts[i]; k < starts[i+1]; k++ {
					if want := frameLuma(cl.In + k - starts[i]); math.Abs(ys[k]-want) > 1.5 {
						t.Errorf("output frame %d (clip %d): luma %.1f, want %.0f (source frame %d)", k, i, ys[k], want, cl.In+k-starts[i])
					}
				}
			}
			// The packets are the sources' own, in their decoding order.
			var want []string
			for _, cl := range clips {
				frames, hashes := videoPackets(t, cl.Source)
				for i, f := range frames {
					if n := int64(math.Round(f)); n >= cl.In && n < cl.Out {
						want = append(want, hashes[i])
					}
				}
			}
			times, got := videoPackets(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d packets, want the sources' %d", len(got), len(want))
			}
			// Shown at 0, 1/25, 2/25 … s, each frame once.
			slices.Sort(times)
			for i, f := range times {
				if math.Abs(f-float64(i)) > 0.01 {
					t.Fatalf("frame %d shown at %.4f s", i, f/25)
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("packet %d: %s, the source's %s", i, got[i], want[i])
				}
			}
			// The sound: each clip's beep starts with it.
			mono := channel(pcm(t, out, 1, 48000), 1, 0)
			if n := len(mono); math.Abs(float64(n-175*1920)) > 1024 {
				t.Errorf("%d audio samples, want %d", n, 175*1920)
			}
			beeps := onsets(mono, 48000, 0.1, 0.05)
			if len(beeps) != 4 {
				t.Fatalf("beeps at %v", beeps)
			}
			for i, at := range beeps {
				cut := float64(starts[i]) / 25
				t.Logf("beep %d at %.4f s, cut at %.2f s: %+.1f ms", i, at, cut, (at-cut)*1000)
				if math.Abs(at-cut) > 0.040 {
					t.Errorf("beep %d at %.4f s, cut at %.2f s", i, at, cut)
				}
			}

			// The same sequence re-encoded, for the time it takes.
			ref, err := plan(ctx, clips, c.p, filepath.Join(t.TempDir(), "ref."+c.p.Container), false)
			if err != nil {
				t.Fatal(err)
			}
			start = time.Now()
			if err := ref.Run(ctx, nil); err != nil {
				t.Fatal(err)
			}
			reencoded := time.Since(start)
			t.Logf("7 s of 320x180 from 4 clips: copied in %v, re-encoded in %v (%.1f×)", copied.Round(time.Millisecond),
				reencoded.Round(time.Millisecond), reencoded.Seconds()/copied.Seconds())
			if ref.StreamCopy || ref.Frames != j.Frames || ref.Samples != j.Samples {
				t.Errorf("re-encoded job: copy %v, %d frames, %d samples", ref.StreamCopy, ref.Frames, ref.Samples)
			}
		})
	}

	// A source read over http (a presigned URL): copied the same.
	t.Run("url", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := os.Open(a)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			http.ServeContent(w, r, "a.mp4", time.Time{}, f)
		}))
		defer srv.Close()
		p := h264aac(320, 180, Rational{25, 1})
		out := filepath.Join(t.TempDir(), "out.mp4")
		j, err := Plan(ctx, []Clip{{srv.URL + "/a.mp4?X-Amz-Signature=x", 100, 150}, {b, 50, 75}}, p, out)
		if err != nil {
			t.Fatal(err)
		}
		if !j.StreamCopy {
			t.Fatalf("not copied: %s", j.Reencoded)
		}
		if err := j.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		ys := lumas(t, out, "320:180:0:0")
		if len(ys) != 75 || math.Abs(ys[0]-frameLuma(100)) > 1.5 || math.Abs(ys[49]-frameLuma(149)) > 1.5 || math.Abs(ys[50]-frameLuma(50)) > 1.5 {
			t.Errorf("%d frames: %v", len(ys), ys)
		}
	})
}

// Where a cut is off a keyframe or a source is not what the profile
// makes, the video is re-encoded, as exactly.
func TestStreamCopyRefused(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	a := gopSource(t, "a.mp4", "320x180", "25", 8, gopX264, []string{"-c:a", "aac"}, 1, 4)
	b := gopSource(t, "b.mov", "320x180", "25", 6, gopX264, []string{"-c:a", "pcm_s16le"}, 2, 5)
	p := h264aac(320, 180, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")

	// In 30 is inside a GOP: re-encoded, and exact.
	clips := []Clip{{a, 25, 75}, {b, 30, 100}, {a, 100, 150}}
	j, err := Plan(ctx, clips, p, out)
	if err != nil {
		t.Fatal(err)
	}
	if j.StreamCopy || j.Reencoded != "clips[1]: in 30 is not on a keyframe" {
		t.Fatalf("copy %v: %q", j.StreamCopy, j.Reencoded)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ys := lumas(t, out, "320:180:0:0")
	if len(ys) != 170 || j.Frames != 170 {
		t.Fatalf("%d frames, planned %d", len(ys), j.Frames)
	}
	for i, k := range []int64{0, 50, 120} {
		if want := frameLuma(clips[i].In); math.Abs(ys[k]-want) > 1.5 {
			t.Errorf("clip %d's first frame: luma %.1f, want %.0f", i, ys[k], want)
		}
	}
	if beeps := onsets(channel(pcm(t, out, 1, 48000), 1, 0), 48000, 0.1, 0.05); len(beeps) != 3 ||
		math.Abs(beeps[0]) > 0.002 || math.Abs(beeps[1]-70.0/25) > 0.002 || math.Abs(beeps[2]-120.0/25) > 0.002 {
		t.Errorf("beeps at %v, want at 0, 2.8 (B's frame 50) and 4.8 s", beeps)
	}

	// The other refusals, planned only.
	big := gopSource(t, "big.mp4", "352x288", "25", 3, gopX264, []string{"-c:a", "aac"})
	fast := gopSource(t, "fast.mp4", "320x180", "50", 3, append(cloneArgs(gopX264), "-g", "50", "-keyint_min", "50"), []string{"-c:a", "aac"})
	untagged := gopSource(t, "untagged.mp4", "320x180", "25", 3, gopX264[:len(gopX264)-8], []string{"-c:a", "aac"})
	prores := gopSource(t, "prores.mov", "320x180", "25", 3, []string{"-vf", "setparams=colorspace=bt709:color_primaries=bt709:color_trc=bt709:range=tv", // prores_ks tags what the frames say
		"-c:v", "prores_ks", "-profile:v", "3", "-pix_fmt", "yuv422p10le"}, []string{"-c:a", "pcm_s16le"})
	mp4 := p
	for _, c := range []struct {
		clips []Clip
		p     Profile
		want  string
	}{
		{[]Clip{{a, 25, 75}, {a, 50, 60}}, mp4, "clips[1]: out 60 is not on a keyframe"},
		{[]Clip{{a, 25, 75}, {big, 25, 50}}, mp4, "clips[1]: the source's picture is 352x288, not 320x180"},
		{[]Clip{{fast, 50, 100}, {a, 25, 75}}, mp4, "clips[0]: the source's frame rate is 50/1 (average 50/1), not 25"},
		{[]Clip{{a, 25, 75}, {untagged, 25, 50}}, mp4, `clips[1]: the source's colour matrix is bt601 (""), not BT.709`},
		{[]Clip{{a, 25, 75}, {prores, 25, 50}}, mp4, "clips[1]: the source's video is prores, not h264"},
	} {
		j, err := Plan(ctx, c.clips, c.p, out)
		if err != nil {
			t.Fatal(err)
		}
		if j.StreamCopy || j.Reencoded != c.want {
			t.Errorf("copy %v: %q, want %q", j.StreamCopy, j.Reencoded, c.want)
		}
	}
	// ProRes into a ProRes profile: every frame a keyframe, any cut is
	// copied.
	pp := Profile{Container: "mov", Video: &Video{Codec: "prores", Profile: "hq", Width: 320, Height: 180, FrameRate: Rational{25, 1}},
		Audio: &Audio{Codec: "pcm_s16le", SampleRate: 48000, Mapping: p.Audio.Mapping}}
	out = filepath.Join(t.TempDir(), "out.mov")
	j, err = Plan(ctx, []Clip{{prores, 3, 17}, {prores, 40, 75}}, pp, out)
	if err != nil {
		t.Fatal(err)
	}
	if !j.StreamCopy {
		t.Fatalf("prores not copied: %s", j.Reencoded)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ys = lumas(t, out, "320:180:0:0")
	for i := range ys {
		ys[i] /= 4 // 10 bits
	}
	if len(ys) != 49 || math.Abs(ys[0]-frameLuma(3)) > 1.5 || math.Abs(ys[13]-frameLuma(16)) > 1.5 ||
		math.Abs(ys[14]-frameLuma(40)) > 1.5 || math.Abs(ys[48]-frameLuma(74)) > 1.5 {
		t.Errorf("prores: %d frames %v", len(ys), ys)
	}
}

func cloneArgs(s []string) []string { return append([]string(nil), s...) }

// The verdict on a cut, from the packets read around it: a GOP of 25
// frames with two B-frames (decoding order I0 P3 B1 B2 P6 B4 B5 …, each
// decoded two frames before it shows).
func TestJudgeCut(t *testing.T) {
	s := &source{rate: Rational{25, 1}, video: &videoStream{index: 0}, frames: 75}
	var order []int64
	for g := int64(0); g < 75; g += 25 {
		order = append(order, g)
		for p := g + 3; p < g+25; p += 3 {
			order = append(order, p, p-2, p-1)
		}
	}
	packets := func(order []int64) []packet {
		var pkts []packet
		for i, f := range order {
			pkts = append(pkts, packet{stream: 0, pts: big.NewRat(f, 25), dts: big.NewRat(int64(i)-2, 25), key: f%25 == 0})
		}
		return pkts
	}
	audio := func(pkts []packet, before int, dts *big.Rat) []packet {
		return append(pkts[:before:before], append([]packet{{stream: 1, pts: dts, dts: dts, key: true}}, pkts[before:]...)...)
	}
	at := func(frame int64) int { return slices.Index(order, frame) }
	open := slices.Clone(order) // … 22 25 24 23 28 …: B-frames 23 and 24 lead I25
	copy(open[at(24):], []int64{22, 25, 24, 23})

	for _, c := range []struct {
		name  string
		pkts  []packet
		n     int64
		kind  cutKind
		point int64
		why   string
	}{
		{"in on a keyframe", packets(order), 25, cutIn, 1_000_000, ""},
		{"out on a keyframe: its decoding time", packets(order), 50, cutOut, 1_920_000, ""},
		{"in off a keyframe", packets(order), 26, cutIn, 0, "in 26 is not on a keyframe"},
		{"out off a keyframe", packets(order), 49, cutOut, 0, "out 49 is not on a keyframe"},
		{"open GOP", packets(open), 25, cutIn, 0, "in 25: frames are reordered across its keyframe (an open GOP)"},
		{"sound stored after the clip's last frame", audio(packets(order), at(50), big.NewRat(1930, 1000)), 50, cutOut, 1_920_000, ""},
		{"sound stored before it", audio(packets(order), at(48), big.NewRat(1930, 1000)), 50, cutOut, 0,
			"out 50: stream 1 is stored ahead of the picture there (the concat demuxer would stop early)"},
		{"a frame missing", packets(slices.DeleteFunc(slices.Clone(order), func(f int64) bool { return f == 30 })), 25, cutIn, 0,
			"the source lacks frame 30 (near in 25)"},
		{"the end", packets(order), 75, cutEnd, -1, ""},
		{"the end short of the header's count", packets(order), 76, cutEnd, 0,
			"out 76 is the source's frame count, but its last frame is not frame 75"},
	} {
		point, why := judgeCut(c.pkts, s, c.n, c.kind)
		if point != c.point || why != c.why {
			t.Errorf("%s: %d %q, want %d %q", c.name, point, why, c.point, c.why)
		}
	}
}
