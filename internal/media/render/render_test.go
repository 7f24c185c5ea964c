package render

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// frameLuma is the flat gray the test sources show at frame n: 4 levels a
// frame, so that a frame off by one is 4 levels off.
func frameLuma(n int64) float64 { return float64(16 + (4*n)%216) }

// grayCount is a lavfi picture whose luma says its frame number
// (frameLuma).
func grayCount(size, rate string, seconds float64) string {
	return fmt.Sprintf("color=c=black:s=%s:r=%s:d=%g,geq=lum='16+mod(N*4,216)':cb=128:cr=128", size, rate, seconds)
}

// beeps is lavfi audio: silence with 0.1 s bursts of 1 kHz starting at
// each of at (seconds).
func beeps(rate int, seconds float64, at ...float64) string {
	expr := "0"
	for _, a := range at {
		expr += fmt.Sprintf("+between(t,%.6f,%.6f)", a, a+0.1)
	}
	return fmt.Sprintf("aevalsrc=exprs='(%s)*0.5*sin(2*PI*1000*t)':s=%d:d=%g", expr, rate, seconds)
}

func h264aac(w, h int, fps Rational) Profile {
	m := NoMapping()
	m[0] = [4]int{0, 0, 0, 0}
	m[1] = [4]int{0, 0, 0, 0}
	return Profile{Container: "mp4",
		Video: &Video{Codec: "h264", Width: w, Height: h, FrameRate: fps},
		Audio: &Audio{Codec: "aac", SampleRate: 48000, Mapping: m}}
}

// Three sources of three rates, sizes and containers, cut off their
// keyframes (one GOP each, B-frames), into a 25 fps 320x180 H.264/AAC
// MP4: the frame count is the cumulative rounding of the clips'
// durations, every frame of every clip is the source frame it should be,
// each clip's beep (at its in point) starts with its first frame, and the
// sound lasts as long as the picture.
func TestSequenceIsFrameExact(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	x264 := []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "12", "-g", "250", "-bf", "3", "-pix_fmt", "yuv420p"}
	// A: 25 fps 4:3 MP4, AAC 48 kHz; beeps at frames 5 and 37.
	a := lavfi(t, "a.mp4", append(append([]string{"-f", "lavfi", "-i", grayCount("320x240", "25", 5),
		"-f", "lavfi", "-i", beeps(48000, 5, 5.0/25, 37.0/25)}, x264...), "-c:a", "aac", "-b:a", "128k")...)
	// B: 29.97 fps CIF MOV, PCM 44.1 kHz; a beep at frame 100.
	b := lavfi(t, "b.mov", append(append([]string{"-f", "lavfi", "-i", grayCount("352x288", "30000/1001", 5.5),
		"-f", "lavfi", "-i", beeps(44100, 5.5, 100*1001.0/30000)}, x264...), "-c:a", "pcm_s16le")...)
	// C: 50 fps 16:9 MPEG-TS (the video starts after the audio), AAC;
	// a beep at frame 123.
	c := lavfi(t, "c.ts", append(append([]string{"-f", "lavfi", "-i", grayCount("256x144", "50", 4),
		"-f", "lavfi", "-i", beeps(48000, 4, 123.0/50)}, x264...), "-c:a", "aac", "-b:a", "128k")...)

	clips := []Clip{{a, 37, 87}, {b, 100, 161}, {c, 123, 173}, {a, 5, 30}}
	p := h264aac(320, 180, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")
	j, err := Plan(ctx, clips, p, out)
	if err != nil {
		t.Fatal(err)
	}
	// 2 s, 61/29.97 = 2.0354 s, 1 s, 1 s: 50, 100.88, 125.88, 150.88.
	wantB := []int64{0, 50, 101, 126, 151}
	for i, cut := range j.Cuts {
		if cut.Clip != i || cut.Frame != wantB[i] || cut.Frames != wantB[i+1]-wantB[i] ||
			cut.Sample != wantB[i]*48000/25 || cut.Samples != (wantB[i+1]-wantB[i])*48000/25 {
			t.Errorf("cut %d: %+v, want frames %d..%d", i, cut, wantB[i], wantB[i+1])
		}
	}
	if j.Frames != 151 || j.Samples != 151*1920 || j.Duration != 6040*time.Millisecond || len(j.Cuts) != 4 {
		t.Fatalf("job: %d frames, %d samples, %v, %d cuts", j.Frames, j.Samples, j.Duration, len(j.Cuts))
	}
	var reports []float64
	start := time.Now()
	if err := j.Run(ctx, func(done float64) { reports = append(reports, done) }); err != nil {
		t.Fatalf("%v\n%q", err, j.Args)
	}
	t.Logf("rendered 6.04 s of 320x180 from 4 clips in %v", time.Since(start).Round(time.Millisecond))
	if len(reports) == 0 || reports[len(reports)-1] != 1 {
		t.Errorf("progress: %v", reports)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i] < reports[i-1] {
			t.Errorf("progress went back: %v", reports)
		}
	}

	// The file: 151 frames at 25 fps, 320x180, starting at 0.
	v := ffprobe(t, out, "-count_frames", "-select_streams", "v:0", "-show_entries",
		"stream=nb_read_frames,r_frame_rate,width,height,pix_fmt,start_time,sample_aspect_ratio")
	if v["nb_read_frames"] != "151" || v["r_frame_rate"] != "25/1" || v["width"] != "320" || v["height"] != "180" ||
		v["pix_fmt"] != "yuv420p" || parseFloat(v["start_time"]) != 0 {
		t.Errorf("video: %v", v)
	}

	// Every frame is the source frame it should be.
	ys := lumas(t, out, "100:100:110:40")
	if len(ys) != 151 {
		t.Fatalf("%d frames decoded: %v", len(ys), ys)
	}
	check := func(outFrame int, src int64, what string) {
		t.Helper()
		if got, want := ys[outFrame], frameLuma(src); math.Abs(got-want) > 1.5 {
			t.Errorf("output frame %d (%s): luma %.1f, want %.0f (source frame %d)", outFrame, what, got, want, src)
		}
	}
	for k := range 50 { // A at 25 fps: frame for frame
		check(k, 37+int64(k), "clip 0")
	}
	for k := range 25 { // C at 50 fps: every other frame
		check(101+k, 123+2*int64(k), "clip 2")
	}
	for k := range 25 { // A again, from frame 5 (no seeking)
		check(126+k, 5+int64(k), "clip 3")
	}
	// B at 29.97 fps: its in frame first, then the frames nearest in time.
	check(50, 100, "clip 1's first")
	for k := 1; k < 51; k++ {
		ideal := 100 + float64(k)*30000/1001/25
		ok := false
		for n := int64(math.Floor(ideal)) - 1; n <= int64(math.Ceil(ideal))+1; n++ {
			if math.Abs(ys[50+k]-frameLuma(n)) <= 1.5 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("output frame %d (clip 1): luma %.1f is no source frame near %.2f", 50+k, ys[50+k], ideal)
		}
	}
	// The bars beside a 4:3 picture are black.
	if bar := lumas(t, out, "30:180:0:0"); math.Abs(bar[0]-16) > 1 {
		t.Errorf("pillarbox luma %.1f, want 16", bar[0])
	}

	// The sound: each beep starts with its clip, and it lasts as long as
	// the picture.
	mono := channel(pcm(t, out, 1, 48000), 1, 0)
	if n := len(mono); math.Abs(float64(n-151*1920)) > 1920 {
		t.Errorf("%d audio samples decoded, want %d (±1 frame)", n, 151*1920)
	} else {
		t.Logf("audio: %d samples decoded, %d planned", n, 151*1920)
	}
	got := onsets(mono, 48000, 0.1, 0.05)
	want := []float64{0, 2, 4.04, 5.04}
	if len(got) != len(want) {
		t.Fatalf("beeps at %v, want at %v", got, want)
	}
	for i := range want {
		off := got[i] - want[i]
		t.Logf("beep %d at %.4f s, cut at %.2f s: %+.1f ms", i, got[i], want[i], off*1000)
		if math.Abs(off) > 0.040 {
			t.Errorf("beep %d at %.4f s, %+.1f ms off its cut at %.2f s", i, got[i], off*1000, want[i])
		}
	}
	ad := ffprobe(t, out, "-select_streams", "a:0", "-show_entries", "stream=duration,channels,sample_rate,codec_name")
	vd := ffprobe(t, out, "-select_streams", "v:0", "-show_entries", "stream=duration")
	t.Logf("durations: audio %s s, video %s s", ad["duration"], vd["duration"])
	if math.Abs(parseFloat(ad["duration"])-parseFloat(vd["duration"])) > 0.04 || ad["channels"] != "2" || ad["sample_rate"] != "48000" {
		t.Errorf("audio %v, video %v", ad, vd)
	}
}

// The mapping: stream 1's channel on output 0, stream 0's right on 1, a
// muted row 2, stream 0's left at -6 dB inverted on 3 — sample-aligned
// with the source; a source without stream 1 gives silence on output 0.
func TestAudioMapping(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	left := "0.25*sin(2*PI*440*t)+0.1*(2*random(0)-1)" // noise makes a shift by a sample show
	stereo := "aevalsrc=exprs='" + left + "|0.25*sin(2*PI*660*t)':s=48000:d=4"
	video := []string{"-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=4"}
	enc := []string{"-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-c:a", "pcm_s16le"}
	m := lavfi(t, "m.mov", append(append(video, "-f", "lavfi", "-i", stereo, "-f", "lavfi", "-i",
		"aevalsrc=exprs='0.25*sin(2*PI*880*t)':s=48000:d=4", "-map", "0", "-map", "1", "-map", "2"), enc...)...)
	n := lavfi(t, "n.mov", append(append(video, "-f", "lavfi", "-i", stereo, "-map", "0", "-map", "1"), enc...)...)

	mapping := NoMapping()
	mapping[0] = [4]int{1, 0, 0, 0}
	mapping[1] = [4]int{0, 1, 0, 0}
	mapping[2] = [4]int{0, 0, 0, FlagMute}
	mapping[3] = [4]int{0, 0, -6, FlagInvert}
	p := Profile{Container: "mov", Video: &Video{Codec: "h264", Width: 160, Height: 90, FrameRate: Rational{25, 1}},
		Audio: &Audio{Codec: "pcm_s16le", SampleRate: 48000, Mapping: mapping}}
	out := filepath.Join(t.TempDir(), "out.mov")
	j, err := Plan(ctx, []Clip{{m, 30, 70}, {n, 10, 35}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if a := ffprobe(t, out, "-select_streams", "a", "-show_entries", "stream=channels,codec_name"); a["channels"] != "4" || a["codec_name"] != "pcm_s16le" {
		t.Fatalf("audio: %v", a)
	}
	s := pcm(t, out, 4, 48000)
	if len(s) != 4*65*1920 {
		t.Fatalf("%d samples a channel, want %d", len(s)/4, 65*1920)
	}
	ch := make([][]float64, 4)
	for c := range ch {
		ch[c] = channel(s, 4, c)
	}
	srcLeft := map[string][]float64{m: channel(pcm(t, m, 2, 48000, "-map", "0:a:0"), 2, 0),
		n: channel(pcm(t, n, 2, 48000, "-map", "0:a:0"), 2, 0)}

	type span struct {
		name     string
		src      string
		from, to int // output samples
		srcFrom  int // the source sample at from
		stream1  bool
	}
	for _, sp := range []span{
		{"clip 0", m, 0, 40 * 1920, 30 * 1920, true},
		{"clip 1", n, 40 * 1920, 65 * 1920, 10 * 1920, false},
	} {
		part := func(c int) []float64 { return ch[c][sp.from:sp.to] }
		// Output 0: 880 Hz from stream 1, or silence where there is none.
		if sp.stream1 {
			if a := tone(part(0), 880, 48000); math.Abs(a-0.25) > 0.01 || tone(part(0), 440, 48000) > 0.005 {
				t.Errorf("%s: output 0 has 880 Hz at %.3f, 440 Hz at %.3f", sp.name, a, tone(part(0), 440, 48000))
			}
		} else if r := rms(part(0)); r > 1e-4 {
			t.Errorf("%s: output 0 should be silent (no stream 1), rms %.5f", sp.name, r)
		}
		// Output 1: stream 0's right, 660 Hz.
		if a := tone(part(1), 660, 48000); math.Abs(a-0.25) > 0.01 || tone(part(1), 440, 48000) > 0.005 {
			t.Errorf("%s: output 1 has 660 Hz at %.3f", sp.name, a)
		}
		// Output 2: muted.
		if r := rms(part(2)); r > 1e-4 {
			t.Errorf("%s: output 2 is muted, rms %.5f", sp.name, r)
		}
		// Output 3: the source's left, -6 dB, inverted, sample-aligned:
		// its projection on the source's left from the in point.
		left := srcLeft[sp.src][sp.srcFrom : sp.srcFrom+sp.to-sp.from]
		var dot, energy float64
		for i, v := range part(3) {
			dot += v * left[i]
			energy += left[i] * left[i]
		}
		ratio := dot / energy
		t.Logf("%s: output 3 = %.4f × the source's left (%.2f dB)", sp.name, ratio, dB(math.Abs(ratio)))
		if want := -math.Pow(10, -6.0/20); math.Abs(ratio-want) > 0.01 {
			t.Errorf("%s: output 3 is %.4f × the source's left, want %.4f (-6 dB, inverted, aligned)", sp.name, ratio, want)
		}
	}
}

// The dry run answers what the file it made is, or what ffmpeg said
// when it would not make it.
func TestDryRun(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	dir := t.TempDir()
	got, err := DryRun(ctx, h264aac(320, 180, Rational{25, 1}), dir)
	if err != nil || got != "mp4/h264/320x180/25/aac/2ch" {
		t.Errorf("h264/aac mp4: %q, %v", got, err)
	}

	prores := Profile{Container: "mov", Video: &Video{Codec: "prores", Profile: "hq", Width: 640, Height: 360,
		FrameRate: Rational{30000, 1001}}, Audio: &Audio{Codec: "pcm_s24le", SampleRate: 48000, Mapping: NoMapping()}}
	for r := range 6 {
		prores.Audio.Mapping[r] = [4]int{r / 2, r % 2, 0, 0}
	}
	got, err = DryRun(ctx, prores, dir)
	if err != nil || got != "mov/prores/640x360/30000/1001/pcm_s24le/6ch" {
		t.Errorf("prores hq mov: %q, %v", got, err)
	}

	audioOnly := Profile{Container: "mov", Audio: &Audio{Codec: "pcm_s24le", SampleRate: 48000, Mapping: NoMapping()}}
	audioOnly.Audio.Mapping[1] = [4]int{0, 1, 0, 0}
	if got, err = DryRun(ctx, audioOnly, dir); err != nil || got != "mov/-/-/-/pcm_s24le/2ch" {
		t.Errorf("audio only: %q, %v", got, err)
	}

	mxf := Profile{Container: "mxf", Video: &Video{Codec: "dnxhr", Profile: "sq", Width: 320, Height: 180,
		FrameRate: Rational{25, 1}}, Audio: &Audio{Codec: "pcm_s24le", SampleRate: 48000, Mapping: NoMapping()}}
	mxf.Audio.Mapping[0] = [4]int{0, 0, 0, 0}
	if got, err = DryRun(ctx, mxf, dir); err != nil || got != "mxf/dnxhd/320x180/25/pcm_s24le/1ch" {
		t.Errorf("dnxhr mxf: %q, %v", got, err)
	}
	// MXF at 44.1 kHz: ffmpeg's MXF muxer takes 48 kHz only.
	mxf.Audio.SampleRate = 44100
	if got, err = DryRun(ctx, mxf, dir); err == nil || !strings.Contains(err.Error(), "48khz") {
		t.Errorf("mxf at 44.1 kHz: %q, %v", got, err)
	}

	// ProRes in MP4: this ffmpeg's MP4 muxer has no tag for it.
	inMP4 := prores
	inMP4.Container = "mp4"
	inMP4.Audio = nil
	got, err = DryRun(ctx, inMP4, dir)
	var refused *RefusedError
	if err == nil || !errors.As(err, &refused) {
		t.Fatalf("prores in mp4: %q, %v", got, err)
	}
	t.Logf("prores in mp4: %v", err)
	if !strings.Contains(err.Error(), "prores") || !strings.Contains(err.Error(), "not currently supported in container") ||
		strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), " @ 0x") {
		t.Errorf("reason: %q", err)
	}
	// Nothing is left behind.
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("left in the directory: %v", left)
	}
}

// Plan's errors name the clip.
func TestPlanErrors(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	src := lavfi(t, "s.mp4", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast")
	p := h264aac(320, 180, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")
	for _, c := range []struct {
		clips []Clip
		want  string
	}{
		{[]Clip{{src, 0, 10}, {src, 40, 51}}, "clips[1]: out 51 is past the source's 50 frames"},
		{[]Clip{{src, 0, 10}, {src, 0, 50}, {src, 20, 20}}, "clips[2]: in 20 must be before out 20"},
		{[]Clip{{src, 30, 10}}, "clips[0]: in 30 must be before out 10"},
		{[]Clip{{src, -1, 10}}, "clips[0]: in -1 must be 0 or more"},
		{[]Clip{{src, 0, 10}, {filepath.Join(t.TempDir(), "nothing.mov"), 0, 10}}, "clips[1]: the source file is not there"},
		{nil, "the sequence has no clips"},
	} {
		if _, err := Plan(ctx, c.clips, p, out); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.clips, err, c.want)
		}
	}
	// Out at the very end is fine.
	if _, err := Plan(ctx, []Clip{{src, 0, 50}}, p, out); err != nil {
		t.Error(err)
	}
	bad := p
	bad.Video = &Video{Codec: "h264", Width: 321, Height: 180, FrameRate: Rational{25, 1}}
	if _, err := Plan(ctx, []Clip{{src, 0, 50}}, bad, out); err == nil || !strings.Contains(err.Error(), "video.width must be even") {
		t.Errorf("odd width: %v", err)
	}
}

// The cut points round the running sum of durations, never each clip.
func TestBoundaries(t *testing.T) {
	at := func(rate Rational, in, out int64) placed {
		return placed{clip: Clip{In: in, Out: out}, rate: rate}
	}
	ntsc := Rational{30000, 1001}
	items := []placed{at(ntsc, 0, 1), at(ntsc, 0, 1), at(ntsc, 0, 1), at(Rational{50, 1}, 0, 1), at(Rational{50, 1}, 0, 1)}
	p := h264aac(320, 180, Rational{25, 1})
	frames, samples := boundaries(items, p)
	// 0.0334, 0.0667, 0.1001, 0.1201, 0.1401 s → 0.834, 1.668, 2.502, 3.003, 3.503 frames.
	wantF := []int64{0, 1, 2, 3, 3, 4}
	for i := range wantF {
		if frames[i] != wantF[i] || samples[i] != wantF[i]*1920 {
			t.Errorf("boundary %d: frame %d sample %d, want %d", i, frames[i], samples[i], wantF[i])
		}
	}
	// Audio only: the boundaries are samples.
	p.Video = nil
	_, samples = boundaries(items, p)
	if samples[3] != 4805 || samples[5] != 6725 { // 3003/30000·48000 = 4804.8; + 0.04 s
		t.Errorf("audio-only boundaries %v", samples)
	}
	// NTSC rates: 1001 frames of 29.97 into 59.94 are 2002 frames, and
	// their sound 1001·1001/30000·48000 = 1603201.6 samples.
	p = h264aac(320, 180, Rational{60000, 1001})
	frames, samples = boundaries([]placed{at(ntsc, 0, 1001)}, p)
	if frames[1] != 2002 || samples[1] != 1603202 {
		t.Errorf("ntsc: %d frames, %d samples", frames[1], samples[1])
	}
}

func TestValidate(t *testing.T) {
	good := h264aac(1920, 1080, Rational{30000, 1001})
	if err := Validate(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(p *Profile)
		want string
	}{
		{func(p *Profile) { p.Container = "avi" }, "container must be one of mp4, mov, mxf"},
		{func(p *Profile) { p.Video.Width = 1921 }, "video.width must be even, 16..7680"},
		{func(p *Profile) { p.Video.Height = 8 }, "video.height must be even, 16..4320"},
		{func(p *Profile) { p.Video.Codec = "vp9" }, "video.codec must be one of"},
		{func(p *Profile) { p.Video.Codec, p.Video.Profile = "prores", "xq" }, "video.profile of prores must be empty or one of"},
		{func(p *Profile) { p.Video.FrameRate = Rational{25, 0} }, "video.frameRate must be"},
		{func(p *Profile) { p.Video.FrameRate = Rational{1000, 1} }, "video.frameRate must be"},
		{func(p *Profile) { p.Video.Codec, p.Video.BitrateKbps = "dnxhr", 100000 }, "video.bitrateKbps must be 0 for dnxhr"},
		{func(p *Profile) { p.Audio.Codec = "mp3" }, "audio.codec must be one of"},
		{func(p *Profile) { p.Audio.SampleRate = 96000 }, "audio.sampleRate must be 48000 or 44100"},
		{func(p *Profile) { p.Audio.Mapping[3] = [4]int{16, 0, 0, 0} }, "audio.mapping[3] stream must be -1 (unused) or 0..15"},
		{func(p *Profile) { p.Audio.Mapping[2] = [4]int{0, 64, 0, 0} }, "audio.mapping[2] channel must be 0..63"},
		{func(p *Profile) { p.Audio.Mapping[1] = [4]int{0, 0, 30, 0} }, "audio.mapping[1] gainDb must be -96..24"},
		{func(p *Profile) { p.Audio.Mapping[0] = [4]int{0, 0, 0, 4} }, "audio.mapping[0] flags must be 0..3"},
		{func(p *Profile) { p.Video, p.Audio.Mapping = nil, NoMapping() }, "the profile has neither video nor audio"},
	} {
		p := h264aac(1920, 1080, Rational{30000, 1001})
		c.edit(&p)
		if err := Validate(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	// Whether a container takes a codec is the dry run's to say.
	p := h264aac(1920, 1080, Rational{25, 1})
	p.Video.Codec, p.Audio.Codec = "prores", "pcm_s24le"
	if err := Validate(p); err != nil {
		t.Error(err)
	}
}

// A graph over what one argument of a command line takes is refused, not
// run.
func TestGraphTooLong(t *testing.T) {
	p := h264aac(1920, 1080, Rational{25, 1})
	for r := range 16 {
		p.Audio.Mapping[r] = [4]int{0, r, 0, 0}
	}
	src := &source{input: []string{"-i", "file:/media/a.mov"}, video: &videoStream{width: 1920, height: 1080, matrix: "bt709"},
		audio: []audioStream{{16}}, rate: Rational{25, 1}, seekable: true}
	items := make([]placed, MaxClips)
	for i := range items {
		items[i] = placed{index: i, clip: Clip{In: 1000, Out: 1100}, src: src, rate: src.rate}
	}
	if _, err := build(items, p, "/out.mov", nil); err == nil || !strings.Contains(err.Error(), "render it in parts") {
		t.Errorf("%d clips of 16 channels: %v", MaxClips, err)
	}
	j, err := build(items[:60], p, "/out.mov", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("16 channels: %d bytes of graph a clip", len(j.Graph)/60)
}

func TestFit(t *testing.T) {
	for _, c := range []struct{ w, h, W, H, ww, wh int }{
		{1920, 1080, 320, 180, 320, 180},
		{320, 240, 320, 180, 240, 180},
		{352, 288, 320, 180, 220, 180},
		{1080, 1920, 1920, 1080, 608, 1080},
		{853, 480, 1920, 1080, 1920, 1080},
		{4096, 1716, 1920, 1080, 1920, 804},
	} {
		if w, h := fit(c.w, c.h, c.W, c.H); w != c.ww || h != c.wh {
			t.Errorf("%dx%d in %dx%d: %dx%d, want %dx%d", c.w, c.h, c.W, c.H, w, h, c.ww, c.wh)
		}
	}
}

func TestReason(t *testing.T) {
	stderr := "[mp4 @ 0x55d1c0a3e2c0] Could not find tag for codec prores in stream #0, codec not currently supported in container\n" +
		"Could not write header for output file #0 (incorrect codec parameters ?): Invalid argument\n" +
		"Error initializing output stream 0:0 -- \nConversion failed!\n"
	want := "Could not find tag for codec prores in stream #0, codec not currently supported in container; " +
		"Could not write header for output file #0 (incorrect codec parameters ?): Invalid argument"
	if got := reason(stderr, nil); got != want {
		t.Errorf("%q", got)
	}
	if got := reason("[Parsed_pan_0 @ 0x1] [SWR @ 0x2] /srv/tmp/render-dry-run-1.mov: Permission denied\n", nil, "/srv/tmp/render-dry-run-1.mov"); got != "the output: Permission denied" {
		t.Errorf("%q", got)
	}
}
