package render

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// activeArea is the picture's area inside the black bars of the first
// frames of path, as cropdetect finds it: "w:h:x:y".
func activeArea(t *testing.T, path string) string {
	t.Helper()
	out := string(ffmpeg(t, "-i", path, "-frames:v", "5", "-vf", "cropdetect=limit=0.1:round=2:reset=0,metadata=print:file=-", "-f", "null", "-"))
	var area []string
	for _, k := range []string{"w", "h", "x", "y"} {
		m := regexp.MustCompile(`lavfi\.cropdetect\.`+k+`=(\d+)`).FindAllStringSubmatch(out, -1)
		if m == nil {
			t.Fatalf("cropdetect said %s", out)
		}
		area = append(area, m[len(m)-1][1])
	}
	return strings.Join(area, ":")
}

// A rotated picture is shown upright, an anamorphic one at its display
// aspect, each fitted in the frame between black bars.
func TestGeometry(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	enc := []string{"-c:v", "libx264", "-preset", "ultrafast", "-crf", "10"}
	plain := lavfi(t, "plain.mp4", append([]string{"-f", "lavfi", "-i", "color=c=gray:s=200x100:r=25:d=1"}, enc...)...)
	rotated := filepath.Join(t.TempDir(), "rotated.mp4")
	ffmpeg(t, "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated)
	anamorphic := lavfi(t, "sar.mp4", append([]string{"-f", "lavfi", "-i", "color=c=gray:s=120x120:r=25:d=1,setsar=4/3"}, enc...)...)
	p := h264aac(320, 180, Rational{25, 1})
	p.Audio = nil
	for _, c := range []struct{ name, src, want string }{
		{"plain 2:1", plain, "320:160:0:10"},
		{"rotated to 1:2", rotated, "90:180:114:0"},
		{"4:3 from square samples of 4:3", anamorphic, "240:180:40:0"},
	} {
		out := filepath.Join(t.TempDir(), "out.mp4")
		j, err := Plan(ctx, []Clip{{c.src, 0, 25}}, p, out)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := activeArea(t, out); !near(got, c.want, 2) {
			t.Errorf("%s: picture at %s, want %s", c.name, got, c.want)
		}
		if v := ffprobe(t, out, "-select_streams", "v:0", "-show_entries", "stream=width,height,sample_aspect_ratio"); v["width"] != "320" || v["height"] != "180" || v["sample_aspect_ratio"] != "1:1" {
			t.Errorf("%s: %v", c.name, v)
		}
	}
}

// near reports whether two "a:b:c:d" lists differ by at most tol in each
// number.
func near(got, want string, tol int) bool {
	g, w := strings.Split(got, ":"), strings.Split(want, ":")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if math.Abs(parseFloat(g[i])-parseFloat(w[i])) > float64(tol) {
			return false
		}
	}
	return true
}

// A source without video gives black, one without audio silence; an
// audio-only source counts its frames at the profile's rate; a clip may
// end at its source's last frame.
func TestMissingStreams(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	// 3 s of sound with a beep at 1.2 s (frame 30 at 25 fps).
	sound := lavfi(t, "sound.wav", "-f", "lavfi", "-i", beeps(44100, 3, 1.2), "-c:a", "pcm_s16le")
	// 2 s of 50 fps picture, no sound.
	picture := lavfi(t, "picture.mkv", "-f", "lavfi", "-i", grayCount("160x90", "50", 2),
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-g", "250")
	p := h264aac(160, 90, Rational{25, 1})
	p.Audio.Codec = "pcm_s16le"
	p.Container = "mov"
	out := filepath.Join(t.TempDir(), "out.mov")
	j, err := Plan(ctx, []Clip{{sound, 30, 55}, {picture, 80, 100}, {sound, 0, 3}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	// 1 s, 0.4 s, 0.12 s: 25, 35, 38 frames.
	if j.Frames != 38 || j.Cuts[1].Frame != 25 || j.Cuts[2].Frame != 35 || j.Samples != 38*1920 {
		t.Fatalf("job: %+v", j.Cuts)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ys := lumas(t, out, "160:90:0:0")
	if len(ys) != 38 {
		t.Fatalf("%d frames", len(ys))
	}
	for k, y := range ys {
		want := 16.0 // black where the source has no picture
		if k >= 25 && k < 35 {
			want = frameLuma(80 + 2*int64(k-25)) // the 50 fps source's last frames, every other one
		}
		if math.Abs(y-want) > 1.5 {
			t.Errorf("frame %d: luma %.1f, want %.0f", k, y, want)
		}
	}
	s := channel(pcm(t, out, 2, 48000), 2, 0)
	if len(s) != 38*1920 {
		t.Fatalf("%d samples, want %d", len(s), 38*1920)
	}
	if got := onsets(s, 48000, 0.1, 0.05); len(got) != 1 || got[0] > 0.001 {
		t.Errorf("beeps at %v, want one at 0", got)
	}
	if r := rms(s[25*1920 : 35*1920]); r > 1e-4 {
		t.Errorf("the silent source's span has rms %.5f", r)
	}
}

// An output without video: the cut points are samples; an audio-only
// source counts at the edit rate.
func TestAudioOnlyProfile(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	sound := lavfi(t, "sound.mov", "-f", "lavfi", "-i", beeps(48000, 3, 0.5), "-c:a", "pcm_s24le")
	m := NoMapping()
	m[0] = [4]int{0, 0, 0, 0}
	p := Profile{Container: "mov", Audio: &Audio{Codec: "pcm_s24le", SampleRate: 44100, Mapping: m}}
	out := filepath.Join(t.TempDir(), "out.mov")
	if _, err := Plan(ctx, []Clip{{sound, 0, 10}}, p, out); err == nil || !strings.Contains(err.Error(), "editRate") {
		t.Fatalf("no edit rate: %v", err)
	}
	p.EditRate = Rational{30000, 1001}
	// 15 frames from frame 15 (0.5005 s: the beep starts 0.5 ms before).
	j, err := Plan(ctx, []Clip{{sound, 15, 30}, {sound, 15, 30}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	// 15·1001/30000 s at 44.1 kHz: 22072.05 → 22072, 44144.1 → 44144.
	if j.Frames != 0 || j.Samples != 44144 || j.Cuts[1].Sample != 22072 {
		t.Fatalf("job: %d frames, %d samples, %+v", j.Frames, j.Samples, j.Cuts)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := channel(pcm(t, out, 1, 44100), 1, 0)
	if len(s) != 44144 {
		t.Fatalf("%d samples", len(s))
	}
	if a := ffprobe(t, out, "-show_entries", "stream=codec_type"); a["codec_type"] != "audio" {
		t.Errorf("streams: %v", a)
	}
	// Each clip opens mid-beep (it began 0.5 ms before the in point).
	if math.Abs(s[5]) < 1e-4 && math.Abs(s[6]) < 1e-4 || rms(s[22072+100:22072+200]) < 0.1 {
		t.Errorf("the beeps are not where the clips start")
	}
}

// A source given as an http URL is read with ranges; an error never
// shows a URL (a presigned one carries its signature).
func TestURLSource(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	src := lavfi(t, "s.mp4", "-f", "lavfi", "-i", grayCount("160x90", "25", 3), "-f", "lavfi", "-i", beeps(48000, 3, 2),
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-g", "250", "-c:a", "aac")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != "ok" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		f, err := os.Open(src)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "s.mp4", time.Time{}, f)
	}))
	defer srv.Close()
	p := h264aac(160, 90, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")

	_, err := Plan(ctx, []Clip{{srv.URL + "/s.mp4?X-Amz-Signature=secret", 0, 10}}, p, out)
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.HasPrefix(err.Error(), "clips[0]: ") {
		t.Errorf("forbidden URL: %v", err)
	}
	j, err := Plan(ctx, []Clip{{srv.URL + "/s.mp4?X-Amz-Signature=ok", 50, 75}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if ys := lumas(t, out, "160:90:0:0"); len(ys) != 25 || math.Abs(ys[0]-frameLuma(50)) > 1.5 {
		t.Errorf("lumas %v", ys)
	}
	if got := onsets(channel(pcm(t, out, 1, 48000), 1, 0), 48000, 0.1, 0.05); len(got) != 1 || got[0] > 0.001 {
		t.Errorf("beeps at %v", got)
	}
}

// A cancelled render stops, and leaves no file.
func TestRunCancelled(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := lavfi(t, "s.mp4", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast")
	p := h264aac(320, 180, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")
	j, err := Plan(context.Background(), []Clip{{src, 0, 50}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := j.Run(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("run: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output left: %v", err)
	}
}

// Sound that starts after the picture is preceded by silence: it stays
// where the file puts it.
func TestLateAudio(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	dir := t.TempDir()
	pic := filepath.Join(dir, "v.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", grayCount("160x90", "25", 2), "-c:v", "libx264", "-preset", "ultrafast", pic)
	src := filepath.Join(dir, "src.mov")
	// A beep at the sound's first sample, 0.5 s after the first frame.
	ffmpeg(t, "-i", pic, "-itsoffset", "0.5", "-f", "lavfi", "-i", beeps(48000, 1, 0),
		"-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "pcm_s16le", src)
	p := h264aac(160, 90, Rational{25, 1})
	p.Container, p.Audio.Codec = "mov", "pcm_s16le"
	out := filepath.Join(dir, "out.mov")
	j, err := Plan(ctx, []Clip{{src, 0, 25}, {src, 0, 25}}, p, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := channel(pcm(t, out, 1, 48000), 1, 0)
	if len(s) != 2*48000 {
		t.Fatalf("%d samples", len(s))
	}
	got := onsets(s, 48000, 0.1, 0.05)
	if len(got) != 2 || math.Abs(got[0]-0.5) > 0.001 || math.Abs(got[1]-1.5) > 0.001 {
		t.Errorf("beeps at %v, want at 0.5 and 1.5 s", got)
	}
}

// A long sequence: many short clips, each input opened at once, every
// cut where it should be.
func TestManyClips(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	var sources []string
	for i, rate := range []string{"25", "50", "30000/1001"} {
		sources = append(sources, lavfi(t, "s"+string(rune('a'+i))+".mp4", "-f", "lavfi", "-i", grayCount("64x36", rate, 4),
			"-f", "lavfi", "-i", beeps(48000, 4), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-g", "250", "-c:a", "aac"))
	}
	var clips []Clip
	for i := range 90 {
		in := int64(3 + (i*7)%80)
		clips = append(clips, Clip{sources[i%3], in, in + 3 + int64(i%4)})
	}
	p := h264aac(64, 36, Rational{25, 1})
	out := filepath.Join(t.TempDir(), "out.mp4")
	j, err := Plan(ctx, clips, p, out)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := j.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d clips, %d frames, graph %d kB: %v", len(clips), j.Frames, len(j.Graph)>>10, time.Since(start).Round(time.Millisecond))
	ys := lumas(t, out, "64:36:0:0")
	if int64(len(ys)) != j.Frames {
		t.Fatalf("%d frames, want %d", len(ys), j.Frames)
	}
	for _, c := range j.Cuts {
		if c.Frames == 0 {
			continue
		}
		if want := frameLuma(clips[c.Clip].In); math.Abs(ys[c.Frame]-want) > 1.5 {
			t.Errorf("clip %d: first frame luma %.1f, want %.0f", c.Clip, ys[c.Frame], want)
		}
	}
	if n := len(pcm(t, out, 1, 48000)); math.Abs(float64(n)-float64(j.Samples)) > 1024 {
		t.Errorf("%d samples, want %d", n, j.Samples)
	}
}
