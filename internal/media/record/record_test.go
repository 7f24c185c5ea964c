package record_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/media/record"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// sender is a live source: ffmpeg sending 320×180 at 25 fps with a tone,
// in real time, as an SRT listener on port (H.264/AAC, or with codecs
// the arguments given).
func sender(t *testing.T, port int, codecs ...string) *exec.Cmd {
	t.Helper()
	if len(codecs) == 0 {
		codecs = []string{"-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac"}
	}
	args := append([]string{"-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
		"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"}, codecs...)
	cmd := exec.Command("ffmpeg", append(args, "-f", "mpegts", fmt.Sprintf("srt://127.0.0.1:%d?mode=listener", port))...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck
	return cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.LocalAddr().(*net.UDPAddr).Port
}

// recording records the source until d from now with o and answers its
// segments and gaps.
func recording(t *testing.T, src string, d time.Duration, o ...record.Options) ([]record.Segment, []record.Gap) {
	t.Helper()
	var mu sync.Mutex
	var segs []record.Segment
	var gaps []record.Gap
	opts := record.Options{}
	if len(o) > 0 {
		opts = o[0]
	}
	opts.Source, opts.Dir, opts.Until = src, t.TempDir(), time.Now().Add(d)
	opts.OnSegment = func(s record.Segment) { mu.Lock(); segs = append(segs, s); mu.Unlock() }
	opts.OnGap = func(g record.Gap) { mu.Lock(); gaps = append(gaps, g); mu.Unlock() }
	err := record.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return segs, gaps
}

// playable joins a run's init segment and segments and answers the
// duration ffprobe reads.
func playable(t *testing.T, segs []record.Segment, run int) float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.mp4")
	var data []byte
	for i, s := range segs {
		if s.Run != run {
			continue
		}
		if len(data) == 0 {
			b, err := os.ReadFile(s.Init)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b...)
		}
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatalf("segment %d: %v", i, err)
		}
		data = append(data, b...)
	}
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	var d float64
	fmt.Sscan(string(b), &d) //nolint:errcheck
	return d
}

// decoded is how long a playlist's video plays, decoded by ffmpeg to its
// end (the last frame's time).
func decoded(t *testing.T, list string) float64 {
	t.Helper()
	args := []string{"-v", "error"}
	if strings.HasSuffix(list, ".m3u8") {
		args = append(args, "-allowed_extensions", "ALL")
	}
	out, err := exec.Command("ffmpeg", append(args, "-i", list, "-map", "0:v:0", "-f", "null", "-progress", "pipe:1", "-")...).Output()
	if err != nil {
		t.Fatalf("%s: %v", list, err)
	}
	var us int64
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "out_time_us="); ok {
			fmt.Sscan(v, &us) //nolint:errcheck
		}
	}
	return float64(us) / 1e6
}

// An 8 s recording of a live SRT source: segments arrive as it records,
// each of them complete, and together they play for 8 s ± a segment.
func TestRecordsALiveSource(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	port := freePort(t)
	sender(t, port)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	segs, gaps := recording(t, fmt.Sprintf("srt://127.0.0.1:%d?mode=caller", port), 8*time.Second)
	if len(gaps) != 0 {
		t.Fatalf("gaps: %+v", gaps)
	}
	var total float64
	for _, s := range segs {
		total += s.Duration
	}
	if math.Abs(total-8) > 2 || len(segs) < 3 {
		t.Fatalf("%d segments, %.2f s: %+v", len(segs), total, segs)
	}
	if d := playable(t, segs, 0); math.Abs(d-total) > 0.1 {
		t.Fatalf("the segments play %.2f s, their playlist says %.2f s", d, total)
	}
	// A thumbnail of a segment as it arrives.
	thumb := filepath.Join(t.TempDir(), "thumb.jpg")
	if err := record.Thumbnail(context.Background(), segs[1], 160, thumb); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
		thumb).Output(); err != nil || strings.TrimSpace(string(b)) != "mjpeg,160,90" {
		t.Fatalf("thumbnail: %s %v", b, err)
	}
	t.Logf("8 s recorded in %v: %d segments, %.2f s", time.Since(start).Round(time.Millisecond), len(segs), total)
}

// The source drops for about 3 s mid-recording: the recording goes on in
// a new run when it is back, and the time away is one gap.
func TestSourceDropIsAGap(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	port := freePort(t)
	first := sender(t, port)
	go func() {
		time.Sleep(4 * time.Second)
		first.Process.Kill() //nolint:errcheck
		time.Sleep(3 * time.Second)
		sender(t, port)
	}()
	time.Sleep(500 * time.Millisecond)
	segs, gaps := recording(t, fmt.Sprintf("srt://127.0.0.1:%d?mode=caller", port), 14*time.Second)
	if len(gaps) != 1 {
		t.Fatalf("gaps: %+v", gaps)
	}
	away := gaps[0].To.Sub(gaps[0].From).Seconds()
	runs := map[int]float64{}
	for _, s := range segs {
		runs[s.Run] += s.Duration
	}
	var total float64
	for _, d := range runs {
		total += d
	}
	t.Logf("gap %.2f s (%s); runs %v", away, gaps[0].Reason, runs)
	// The whole recording as one playlist: both runs play, one after the
	// other, for what was recorded.
	stored := make([]record.Stored, len(segs))
	for i, s := range segs {
		stored[i] = record.Stored{Run: s.Run, URI: s.Path, InitURI: s.Init, Duration: s.Duration}
	}
	list := filepath.Join(t.TempDir(), "recording.m3u8")
	f, err := os.Create(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := record.Playlist(f, stored, true); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if d := decoded(t, list); math.Abs(d-total) > 0.2 {
		t.Fatalf("the playlist plays %.2f s; its segments are %.2f s", d, total)
	}
	// At the end, the segments become one original of both runs.
	dir := t.TempDir()
	original := filepath.Join(dir, "original.mp4")
	if err := record.Join(context.Background(), segs, dir, original); err != nil {
		t.Fatal(err)
	}
	if d := decoded(t, original); math.Abs(d-total) > 0.2 {
		t.Fatalf("the joined original plays %.2f s; its segments are %.2f s", d, total)
	}
	if away < 2 || away > 9 || len(runs) < 2 || math.Abs(total+away-13.5) > 3 {
		t.Fatalf("gap %.2f s, runs %v (%.2f s recorded)", away, runs, total)
	}
}

// A broadcast source a browser cannot play (MPEG-2 video, MP2 audio):
// the original keeps its codecs, and the proxy beside it is H.264/AAC,
// segment for segment as long.
func TestProxyBesideTheOriginal(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	port := freePort(t)
	sender(t, port, "-c:v", "mpeg2video", "-g", "25", "-c:a", "mp2")
	time.Sleep(500 * time.Millisecond)
	segs, gaps := recording(t, fmt.Sprintf("srt://127.0.0.1:%d?mode=caller", port), 6*time.Second,
		record.Options{AudioCodec: "mp2", Proxy: true, ProxyHeight: 144})
	if len(gaps) != 0 {
		t.Fatalf("gaps: %+v", gaps)
	}
	var of = map[string][]record.Segment{}
	var total = map[string]float64{}
	for _, s := range segs {
		of[s.Of] = append(of[s.Of], s)
		total[s.Of] += s.Duration
	}
	if math.Abs(total[record.Original]-6) > 2 || math.Abs(total[record.ProxyOut]-total[record.Original]) > 0.5 {
		t.Fatalf("original %.2f s, proxy %.2f s", total[record.Original], total[record.ProxyOut])
	}
	codecs := func(s record.Segment) string {
		t.Helper()
		b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,height", "-of", "csv=p=0",
			"concat:"+s.Init+"|"+s.Path).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(strings.ReplaceAll(string(b), ",", " ")), " ")
	}
	// (MPEG-1 Layer II in MP4 is object type 0x6B, which ffprobe names mp3:
	// the same bytes.)
	if got := codecs(of[record.Original][0]); got != "mpeg2video 180 mp3" {
		t.Fatalf("original: %s", got)
	}
	if got := codecs(of[record.ProxyOut][0]); got != "h264 144 aac" {
		t.Fatalf("proxy: %s", got)
	}
}
