package media_test

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// lavfi makes a test file with ffmpeg's lavfi sources.
func lavfi(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}, args...), out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making %s: %v %s", name, err, b)
	}
	return out
}

func probe(t *testing.T, path string) *media.Probe {
	t.Helper()
	p, err := media.ProbeFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, args []string, onProgress func(media.Progress)) {
	t.Helper()
	if err := media.Run(context.Background(), media.Command{Args: args, OnProgress: onProgress}); err != nil {
		t.Fatal(err)
	}
}

// A video with audio: classified by its streams, proxied (H.264/AAC, CFR,
// ≤ 720 short side, keyframes every 2 s), with progress; thumbnails, poster
// and strip from the proxy's keyframes; peaks and a waveform image. Every
// output is checked by probing it.
func TestVideoPipelineCommands(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := lavfi(t, "src.mov", "-f", "lavfi", "-i", "testsrc2=size=1280x960:rate=50:duration=7",
		"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=7", "-c:v", "mpeg4", "-q:v", "5",
		"-c:a", "pcm_s16le", "-shortest")
	p := probe(t, src)
	if p.Kind() != media.KindVideo || p.Video().FrameRate() != 50 || p.Audio() == nil || p.Duration() < 6.9 {
		t.Fatalf("source probe: kind %s, %+v", p.Kind(), p.Video())
	}

	dir := t.TempDir()
	proxy := filepath.Join(dir, "proxy.mp4")
	args, err := media.ProxyArgs(src, proxy, p)
	if err != nil {
		t.Fatal(err)
	}
	var reports []media.Progress
	run(t, args, func(pr media.Progress) { reports = append(reports, pr) })
	if len(reports) == 0 || !reports[len(reports)-1].End || reports[len(reports)-1].Done < 6*time.Second {
		t.Fatalf("progress reports: %+v", reports)
	}
	pp := probe(t, proxy)
	v := pp.Video()
	if v == nil || v.CodecName != "h264" || v.Width != 960 || v.Height != 720 || v.PixFmt != "yuv420p" ||
		v.FrameRate() != 25 || v.VFR() || pp.Audio() == nil || pp.Audio().CodecName != "aac" || pp.Audio().Channels != 2 {
		t.Fatalf("proxy: %+v / %+v", v, pp.Audio())
	}
	if d := pp.Duration(); d < 6.9 || d > 7.2 {
		t.Fatalf("proxy duration %v", d)
	}

	run(t, media.ThumbnailsArgs(proxy, filepath.Join(dir, "t%05d.jpg")), nil)
	thumbs, _ := filepath.Glob(filepath.Join(dir, "t*.jpg"))
	if len(thumbs) != 4 { // keyframes at 0, 2, 4, 6 s
		t.Fatalf("%d thumbnails, want 4 (one per keyframe)", len(thumbs))
	}
	if tp := probe(t, thumbs[0]); tp.Kind() != media.KindImage || tp.Streams[0].Width != media.ThumbnailWidth {
		t.Fatalf("thumbnail: %+v", tp.Streams)
	}
	poster := filepath.Join(dir, "poster.jpg")
	run(t, media.PosterArgs(proxy, poster, media.PosterPosition(pp.Duration())), nil)
	if pst := probe(t, poster); pst.Streams[0].Width != 960 {
		t.Fatalf("poster: %+v", pst.Streams)
	}
	run(t, media.StripArgs(proxy, filepath.Join(dir, "strip_%03d.jpg")), nil)
	sheets, _ := filepath.Glob(filepath.Join(dir, "strip_*.jpg"))
	if len(sheets) != 1 {
		t.Fatalf("%d strip sheets, want 1", len(sheets))
	}
	if sp := probe(t, sheets[0]); sp.Streams[0].Width != media.TileWidth*media.StripColumns {
		t.Fatalf("strip sheet: %+v", sp.Streams)
	}
	vtt := media.StripVTT(pp.Duration(), 160, 120, func(n int) string { return "strip_001.jpg" })
	if !strings.HasPrefix(vtt, "WEBVTT\n") || strings.Count(vtt, "#xywh=") != 4 ||
		!strings.Contains(vtt, "00:00:02.000 --> 00:00:04.000\nstrip_001.jpg#xywh=160,0,160,120") {
		t.Fatalf("strip VTT:\n%s", vtt)
	}

	w, err := media.Peaks(context.Background(), proxy, pp)
	if err != nil {
		t.Fatal(err)
	}
	if w.Length < 690 || w.Length > 720 || w.Channels != 2 || len(w.Data) != 4*w.Length || w.SamplesPerPixel != 80 {
		t.Fatalf("peaks: length %d, %d values, spp %d", w.Length, len(w.Data), w.SamplesPerPixel)
	}
	var loud bool
	for _, d := range w.Data {
		loud = loud || d > 6 || d < -6 // lavfi's sine peaks at 1/8 of full scale
	}
	if !loud {
		t.Fatal("the sine's peaks are flat")
	}
	png := filepath.Join(dir, "wave.png")
	if err := media.DrawWaveform(w, png, 1800, 280); err != nil {
		t.Fatal(err)
	}
	if wp := probe(t, png); wp.Streams[0].Width != 1800 {
		t.Fatalf("waveform image: %+v", wp.Streams)
	}
}

// A phone-style clip (portrait by its display matrix) and a VFR one: the
// proxy is upright and constant-rate.
func TestRotatedAndVFRProxies(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	landscape := lavfi(t, "land.mp4", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=2",
		"-c:v", "libx264", "-preset", "ultrafast")
	// A display matrix, as phones write: set on a stream copy.
	rotated := lavfi(t, "phone.mp4", "-i", landscape, "-c", "copy", "-metadata:s:v:0", "rotate=90")
	p := probe(t, rotated)
	if r := p.Video().Rotation(); r != 90 && r != 270 {
		t.Fatalf("rotation %d, want a quarter turn", r)
	}
	if w, h := p.Video().DisplaySize(); w != 720 || h != 1280 {
		t.Fatalf("display size %dx%d", w, h)
	}
	vfr := lavfi(t, "vfr.mkv", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3",
		"-vf", `select='lt(t\,1)+not(mod(n\,3))'`, "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast")
	if !probe(t, vfr).Video().VFR() {
		t.Skip("this ffmpeg wrote the VFR source with a constant rate")
	}
	for _, c := range []struct {
		src  string
		w, h int
	}{{rotated, 720, 1280}, {vfr, 320, 240}} {
		out := filepath.Join(t.TempDir(), "proxy.mp4")
		args, err := media.ProxyArgs(c.src, out, probe(t, c.src))
		if err != nil {
			t.Fatal(err)
		}
		run(t, args, nil)
		v := probe(t, out).Video()
		if w, h := v.DisplaySize(); w != c.w || h != c.h || v.Rotation() != 0 || v.VFR() {
			t.Errorf("proxy of %s: %dx%d rotation %d vfr %v", filepath.Base(c.src), w, h, v.Rotation(), v.VFR())
		}
	}
}

// Classified by the streams found, not the exit code: audio, images,
// random bytes (ffprobe exits 0, no streams), a truncated file.
func TestKinds(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	audio := lavfi(t, "a.m4a", "-f", "lavfi", "-i", "sine=duration=2", "-c:a", "aac")
	png := lavfi(t, "i.png", "-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1")
	jpg := lavfi(t, "i.jpg", "-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1")
	cover := lavfi(t, "cover.mp3", "-i", audio, "-i", png, "-map", "0", "-map", "1", "-c:a", "libmp3lame",
		"-c:v", "png", "-disposition:v", "attached_pic")
	junk := filepath.Join(t.TempDir(), "junk.bin")
	b := make([]byte, 64<<10)
	rand.Read(b)                 //nolint:errcheck
	os.WriteFile(junk, b, 0o600) //nolint:errcheck
	for _, c := range []struct{ path, kind string }{
		{audio, media.KindAudio}, {png, media.KindImage}, {jpg, media.KindImage}, {cover, media.KindAudio},
	} {
		if k := probe(t, c.path).Kind(); k != c.kind {
			t.Errorf("%s: kind %s, want %s", filepath.Base(c.path), k, c.kind)
		}
	}
	if p, err := media.ProbeFile(context.Background(), junk); err == nil && p.Kind() != media.KindOther {
		t.Errorf("random bytes: kind %s", p.Kind())
	}
	// A clip cut in half: probed (or refused) but never a crash, and its
	// proxy fails with ffmpeg's reason.
	whole := lavfi(t, "whole.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:duration=3", "-c:v", "libx264",
		"-preset", "ultrafast")
	data, _ := os.ReadFile(whole)
	cut := filepath.Join(t.TempDir(), "cut.mp4")
	os.WriteFile(cut, data[:len(data)/2], 0o600) //nolint:errcheck
	if p, err := media.ProbeFile(context.Background(), cut); err == nil && p.Video() != nil {
		args, _ := media.ProxyArgs(cut, filepath.Join(t.TempDir(), "p.mp4"), p)
		if err := media.Run(context.Background(), media.Command{Args: args}); err == nil {
			t.Log("ffmpeg made a proxy of the cut file (moov at the front)")
		} else if !strings.Contains(err.Error(), "ffmpeg:") {
			t.Errorf("cut file: %v", err)
		}
	}
}

// Image renditions: at most the size asked, in the format of the name.
func TestImageRenditions(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail")
	jpg := lavfi(t, "big.jpg", "-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-frames:v", "1")
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		size int
		w, h int
	}{{"thumb.webp", media.ImageThumbnailSize, 320, 240}, {"preview.jpg", media.ImagePreviewSize, 1280, 960}} {
		out := filepath.Join(dir, c.name)
		if err := media.Rendition(context.Background(), jpg, out, c.size); err != nil {
			t.Fatal(err)
		}
		s := probe(t, out).Streams[0]
		if s.Width != c.w || s.Height != c.h {
			t.Errorf("%s: %dx%d", c.name, s.Width, s.Height)
		}
	}
}

// A cancelled run stops ffmpeg at once.
func TestRunCancel(t *testing.T) {
	mediatest.Need(t, "ffmpeg")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := media.Run(ctx, media.Command{Args: []string{"-re", "-f", "lavfi", "-i", "testsrc2=duration=60", "-f", "null", "-"}})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled run: %v after %v", err, time.Since(start))
	}
}
