package render

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// In each container, a clip cut deep inside one long GOP (B-frames, NTSC
// rate) holds exactly its frames, and its sound starts with it — also
// where the video starts half a second after the audio.
func TestCutsInEachContainer(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	const in, out = 97, 120 // 3.236 s: seeked to 2.236 s where the container allows
	ntsc := Rational{30000, 1001}
	at := float64(in) * 1001 / 30000
	for _, c := range []struct {
		name, ext string
		vcodec    []string
		acodec    string
		late      float64 // the video's start after the audio's
	}{
		{"mp4", "mp4", []string{"libx264", "-bf", "3"}, "aac", 0},
		{"mov", "mov", []string{"libx264", "-bf", "3"}, "pcm_s16le", 0},
		{"mkv, video late", "mkv", []string{"libx264", "-bf", "3"}, "aac", 0.5},
		{"mxf", "mxf", []string{"mpeg2video", "-bf", "2", "-b:v", "4M"}, "pcm_s16le", 0},
		{"ts", "ts", []string{"libx264", "-bf", "3"}, "aac", 0},
		{"avi", "avi", []string{"mpeg4", "-bf", "2", "-q:v", "2"}, "pcm_s16le", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pic := filepath.Join(dir, "v.mkv")
			ffmpeg(t, append(append([]string{"-f", "lavfi", "-i", grayCount("160x90", "30000/1001", 6),
				"-pix_fmt", "yuv420p", "-g", "250", "-c:v"}, c.vcodec...), pic)...)
			src := filepath.Join(dir, "src."+c.ext)
			ffmpeg(t, "-itsoffset", seconds(c.late), "-i", pic, "-f", "lavfi", "-i", beeps(48000, 7, at+c.late),
				"-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", c.acodec, "-ar", "48000", src)
			p := h264aac(160, 90, ntsc)
			dst := filepath.Join(dir, "out.mp4")
			j, err := Plan(ctx, []Clip{{src, in, out}}, p, dst)
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Run(ctx, nil); err != nil {
				t.Fatal(err)
			}
			ys := lumas(t, dst, "160:90:0:0")
			if len(ys) != out-in {
				t.Fatalf("%d frames, want %d", len(ys), out-in)
			}
			for k, y := range ys {
				if want := frameLuma(int64(in + k)); math.Abs(y-want) > 1.5 {
					t.Errorf("frame %d: luma %.1f, want %.0f (source frame %d)", k, y, want, in+k)
				}
			}
			// The beep (0.1 s from the in point) starts with the clip and
			// ends 0.1 s in: the sound is neither early nor late.
			sound := channel(pcm(t, dst, 1, 48000), 1, 0)
			got := onsets(sound, 48000, 0.1, 0.05)
			if len(got) != 1 || got[0] > 0.002 {
				t.Errorf("beep at %v s, want at 0", got)
			}
			end := 0.0
			for i, v := range sound {
				if math.Abs(v) >= 0.1 {
					end = float64(i+1) / 48000
				}
			}
			want := 0.1
			if c.ext == "avi" {
				// AVI's packed B-frames decode a frame late: ffmpeg shows
				// frame 0 at 1/29.97 s, and the sound is kept in sync with
				// the picture as ffmpeg shows it.
				want -= 1001.0 / 30000
			}
			if math.Abs(end-want) > 0.002 {
				t.Errorf("beep ends at %.4f s, want %.4f", end, want)
			}
		})
	}
}
