package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tests' own tooling runs ffmpeg directly to make sources and to
// measure outputs; the package under test runs it through internal/tool.

// ffmpeg runs ffmpeg with args and fails t if it fails.
func ffmpeg(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("ffmpeg", append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffmpeg %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// lavfi makes name in a temporary directory with ffmpeg args.
func lavfi(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	ffmpeg(t, append(args, out)...)
	return out
}

// ffprobe answers ffprobe's default-format value of entries (one line
// each, key=value) for the stream selected.
func ffprobe(t *testing.T, path string, args ...string) map[string]string {
	t.Helper()
	cmd := exec.Command("ffprobe", append(append([]string{"-v", "error", "-of", "default=noprint_wrappers=1"}, args...), path)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffprobe %v: %v", args, err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			m[k] = v
		}
	}
	return m
}

// lumas are the average luma of every frame of path's video, measured in
// the crop window (w:h:x:y) so that bars stay out.
func lumas(t *testing.T, path, crop string) []float64 {
	t.Helper()
	out := ffmpeg(t, "-i", path, "-map", "0:v:0", "-vf",
		"crop="+crop+",signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-")
	var ys []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if _, v, ok := strings.Cut(sc.Text(), "lavfi.signalstats.YAVG="); ok {
			y, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatal(err)
			}
			ys = append(ys, y)
		}
	}
	return ys
}

// pcm decodes path's audio (the filter graph af, "" for none, picks and
// shapes it) as 16-bit samples of channels channels at rate,
// interleaved.
func pcm(t *testing.T, path string, channels, rate int, extra ...string) []int16 {
	t.Helper()
	args := append([]string{"-i", path}, extra...)
	args = append(args, "-vn", "-ac", strconv.Itoa(channels), "-ar", strconv.Itoa(rate), "-f", "s16le", "-c:a", "pcm_s16le", "-")
	raw := ffmpeg(t, args...)
	s := make([]int16, len(raw)/2)
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// channel is channel c of interleaved samples of n channels, as floats.
func channel(s []int16, n, c int) []float64 {
	out := make([]float64, 0, len(s)/n)
	for i := c; i < len(s); i += n {
		out = append(out, float64(s[i])/32768)
	}
	return out
}

// rms is the root mean square of x.
func rms(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range x {
		sum += v * v
	}
	return math.Sqrt(sum / float64(len(x)))
}

// tone is the amplitude of the f Hz component of x sampled at rate
// (Goertzel).
func tone(x []float64, f float64, rate int) float64 {
	w := 2 * math.Pi * f / float64(rate)
	coeff := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s0 := v + coeff*s1 - s2
		s2, s1 = s1, s0
	}
	power := s1*s1 + s2*s2 - coeff*s1*s2
	return 2 * math.Sqrt(math.Max(power, 0)) / float64(len(x))
}

// onsets are the times (seconds) where x's level rises from quiet to
// above threshold: the first sample of each burst over threshold that
// follows at least gap seconds below it.
func onsets(x []float64, rate int, threshold, gap float64) []float64 {
	var at []float64
	quiet := int(gap * float64(rate))
	below := quiet
	for i, v := range x {
		if math.Abs(v) >= threshold {
			if below >= quiet {
				at = append(at, float64(i)/float64(rate))
			}
			below = 0
		} else {
			below++
		}
	}
	return at
}

func dB(x float64) float64 { return 20 * math.Log10(math.Max(x, 1e-12)) }
