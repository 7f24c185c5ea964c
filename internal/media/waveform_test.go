package media_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// The waveform holds a channel each of the first track: a silent channel's
// peaks are flat, a tone's are not; the picture has a lane each, the silent
// one a line.
func TestWaveformPerChannel(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	src := lavfi(t, "four.mov", append(sines(300, 500, 0, 900), "-filter_complex", joined("4.0", "FL", "FR", "FC", "BC"), "-c:a", "pcm_s16le")...)
	p := probe(t, src)
	w, err := media.Peaks(context.Background(), src, p)
	if err != nil {
		t.Fatal(err)
	}
	if w.Version != 2 || w.Channels != 4 || w.Length < 195 || w.Length > 205 || len(w.Data) != 2*4*w.Length {
		t.Fatalf("waveform: version %d, %d channels, length %d, %d values", w.Version, w.Channels, w.Length, len(w.Data))
	}
	for c, loud := range []bool{true, true, false, true} {
		var peak int
		for px := range w.Length {
			i := (px*w.Channels + c) * 2
			peak = max(peak, -int(w.Data[i]), int(w.Data[i+1]))
		}
		// A sine at 1/8 of full scale peaks at 16 of 128.
		if loud && (peak < 14 || peak > 17) || !loud && peak > 0 {
			t.Errorf("channel %d: peak %d (a tone: %v)", c+1, peak, loud)
		}
	}

	out := filepath.Join(t.TempDir(), "w.png")
	if err := media.DrawWaveform(w, out, media.WaveformImageWidth, media.WaveformImageHeight); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 1800 || img.Bounds().Dy() != 280 {
		t.Fatalf("picture: %v %v", err, img)
	}
	lane := 280 / 4
	for c, loud := range []bool{true, true, false, true} {
		rows := 0
		for y := c * lane; y < (c+1)*lane; y++ {
			if _, _, _, a := img.At(900, y).RGBA(); a > 0 {
				rows++
			}
		}
		// 16/128 of a 34-pixel half lane each way: 9 rows; silence: 1.
		if loud && (rows < 7 || rows > 11) || !loud && rows != 1 {
			t.Errorf("lane %d: %d rows inked mid-picture (a tone: %v)", c+1, rows, loud)
		}
	}
}

// Peaks' memory does not grow with the duration: a long lavfi source (no
// file) through the pipe, the ffmpeg child's peak RSS and Go's heap
// measured while it runs. LOUPE_WAVEFORM_HOURS sets the hours (default 2;
// docs/processing.md has the 10-hour run).
func TestWaveformMemory(t *testing.T) {
	mediatest.Need(t, "ffmpeg")
	hours := 2.0
	if h, err := strconv.ParseFloat(os.Getenv("LOUPE_WAVEFORM_HOURS"), 64); err == nil && h > 0 {
		hours = h
	}
	seconds := hours * 3600
	var (
		mu          sync.Mutex
		childKB     int64
		heapPeak    uint64
		ms          runtime.MemStats
		done        = make(chan struct{})
		watcherDone = make(chan struct{})
	)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapInuse
	go func() {
		defer close(watcherDone)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			kb := childHWM()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			mu.Lock()
			childKB, heapPeak = max(childKB, kb), max(heapPeak, m.HeapInuse)
			mu.Unlock()
		}
	}()
	start := time.Now()
	w, err := media.PeaksOfLavfi(context.Background(),
		"sine=frequency=440:sample_rate=8000:duration="+strconv.FormatFloat(seconds, 'f', 0, 64), seconds)
	close(done)
	<-watcherDone
	if err != nil {
		t.Fatal(err)
	}
	if w.Length < media.MaxWaveformPixels-2 || w.Length > media.MaxWaveformPixels || w.Duration < seconds-1 {
		t.Fatalf("%v h: %d pixels, %.0f s", hours, w.Length, w.Duration)
	}
	growth := int64(heapPeak) - int64(heapBefore)
	t.Logf("%v h of 8 kHz mono in %v: ffmpeg peak RSS %d KiB, Go heap growth %d KiB", hours, time.Since(start).Round(time.Millisecond),
		childKB, growth>>10)
	const limit = 64 << 10 // KiB
	if childKB == 0 {
		t.Fatal("the ffmpeg child was never seen")
	}
	if childKB+growth>>10 > limit {
		t.Errorf("waveform of %v h: ffmpeg %d KiB + Go heap %d KiB, over 64 MiB", hours, childKB, growth>>10)
	}
}

// childHWM is the largest peak RSS (VmHWM, KiB) among this process's ffmpeg
// children now running.
func childHWM() int64 {
	me := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var most int64
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil || !strings.Contains(string(b), "Name:\tffmpeg\n") || !strings.Contains(string(b), "\nPPid:\t"+me+"\n") {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				most = max(most, kb)
			}
		}
	}
	return most
}
