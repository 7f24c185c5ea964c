package media_test

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// Patches are grey bars 40 px wide, 64 high, side by side.
const patchW, patchH = 40, 64

// pqSignal is the PQ (SMPTE ST 2084) signal of a luminance in cd/m².
func pqSignal(nits float64) float64 {
	const m1, m2 = 2610.0 / 16384, 2523.0 / 4096 * 128
	const c1, c2, c3 = 3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32
	y := math.Pow(nits/10000, m1)
	return math.Pow((c1+c2*y)/(1+c3*y), m2)
}

// hdrBars writes grey patches of the given signals (0–1, BT.2100 narrow
// range 10-bit) as a 5-frame HEVC file of transfer trc, lossless so each
// patch keeps its exact code value; x265 params add mastering metadata.
func hdrBars(t *testing.T, name, trc string, signals []float64, x265 string) string {
	t.Helper()
	w := patchW * len(signals)
	frame := make([]byte, 0, w*patchH*3)
	for range patchH {
		for x := range w {
			frame = binary.LittleEndian.AppendUint16(frame, uint16(math.Round(64+876*signals[x/patchW])))
		}
	}
	for range w * patchH / 2 { // Cb, Cr: neutral
		frame = binary.LittleEndian.AppendUint16(frame, 512)
	}
	dir := t.TempDir()
	raw := filepath.Join(dir, "bars.yuv")
	var all []byte
	for range 5 {
		all = append(all, frame...)
	}
	if err := os.WriteFile(raw, all, 0o600); err != nil {
		t.Fatal(err)
	}
	params := "log-level=error:lossless=1:colorprim=bt2020:colormatrix=bt2020nc:transfer=" + trc
	if x265 != "" {
		params += ":" + x265
	}
	return lavfi(t, name, "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", strconv.Itoa(w)+"x"+strconv.Itoa(patchH),
		"-r", "25", "-i", raw, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", params,
		"-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc")
}

// patchLevels are the proxy's luma code values (8-bit, 16–235) at the
// middle 20×20 of each patch of its first frame.
func patchLevels(t *testing.T, proxy string, n int) []float64 {
	t.Helper()
	raw, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", proxy, "-frames:v", "1", "-vf", "extractplanes=y",
		"-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil || len(raw) != n*patchW*patchH {
		t.Fatalf("proxy frame: %v (%d bytes)", err, len(raw))
	}
	out := make([]float64, n)
	for i := range n {
		sum := 0
		for y := patchH/2 - 10; y < patchH/2+10; y++ {
			for x := i*patchW + 10; x < i*patchW+30; x++ {
				sum += int(raw[y*n*patchW+x])
			}
		}
		out[i] = float64(sum) / 400
	}
	return out
}

// sdr is a luma code value as a share of the SDR range (16 → 0, 235 → 1).
func sdr(code float64) float64 { return (code - 16) / 219 }

// HDR bars of known luminance tone-map to SDR levels by the source's own
// metadata: reference white (203 cd/m², BT.2408; HLG's 75 %) at 72–88 % of
// the SDR range, 100 cd/m² at 60–78 %, the peak the metadata names at
// white, and the highlights between reference white and that peak apart
// (≥ 8 code values between 500 and 1000 cd/m²), every step brighter than
// the one before. A PQ file that names no peak is mapped for 4000 cd/m²:
// its 75 % PQ bar (≈ 1000 cd/m²) is not white.
func TestHDRToneMapping(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	nits := []float64{0.1, 10, 100, 203, 500, 1000, 4000}
	var pq []float64
	for _, n := range nits {
		pq = append(pq, pqSignal(n))
	}
	const mastered = `master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400`
	type check func(t *testing.T, lv []float64)
	refWhite := func(i int) check {
		return func(t *testing.T, lv []float64) {
			if s := sdr(lv[i]); s < 0.72 || s > 0.88 {
				t.Errorf("reference white at %.0f %% of SDR (code %.1f), want 72–88 %%", s*100, lv[i])
			}
		}
	}
	for _, c := range []struct {
		name       string
		path       string
		peak       float64
		peakSource string
		checks     []check
	}{
		{"PQ mastered at 1000", hdrBars(t, "pq1000.mkv", "smpte2084", pq, mastered), 1000, media.PeakFromMaxCLL, []check{
			refWhite(3),
			func(t *testing.T, lv []float64) {
				if s := sdr(lv[2]); s < 0.60 || s > 0.78 {
					t.Errorf("100 cd/m² at %.0f %% of SDR, want 60–78 %%", s*100)
				}
				if lv[5]-lv[4] < 8 || lv[5] < 230 {
					t.Errorf("500 and 1000 cd/m² at codes %.1f and %.1f: want ≥ 8 apart, the peak ≥ 230", lv[4], lv[5])
				}
			},
		}},
		{"PQ without metadata", hdrBars(t, "pq.mkv", "smpte2084", pq, ""), media.DefaultPQPeakNits, media.PeakFromDefault, []check{
			refWhite(3),
			func(t *testing.T, lv []float64) {
				if p75 := pqSignal(1000); math.Abs(p75-0.75) > 0.01 || sdr(lv[5]) > 0.95 {
					t.Errorf("the 75 %% PQ bar (%.3f) at %.0f %% of SDR: clipped toward white", p75, sdr(lv[5])*100)
				}
				if lv[6]-lv[5] < 8 || lv[6] < 230 {
					t.Errorf("1000 and 4000 cd/m² at codes %.1f and %.1f: want ≥ 8 apart, the peak ≥ 230", lv[5], lv[6])
				}
			},
		}},
		{"HLG", hdrBars(t, "hlg.mkv", "arib-std-b67", []float64{0, 0.25, 0.5, 0.75, 0.87, 1}, ""), media.HLGPeakNits, media.PeakFromHLG, []check{
			refWhite(3),
			func(t *testing.T, lv []float64) {
				if lv[4]-lv[3] < 8 || lv[5] < 230 {
					t.Errorf("HLG 75 %%, 87 %% and 100 %% at codes %.1f, %.1f, %.1f", lv[3], lv[4], lv[5])
				}
			},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := measured(t, c.path)
			l := p.Video().Light()
			if l == nil || l.PeakNits != c.peak || l.PeakSource != c.peakSource {
				t.Fatalf("light %+v, want peak %v from %s", l, c.peak, c.peakSource)
			}
			lv := patchLevels(t, proxyOf(t, c.path, p), p.Video().Width/patchW)
			t.Logf("levels %v", lv)
			for i := 1; i < len(lv); i++ {
				if lv[i] <= lv[i-1] {
					t.Errorf("patch %d (code %.1f) not brighter than patch %d (%.1f)", i, lv[i], i-1, lv[i-1])
				}
			}
			for _, ch := range c.checks {
				ch(t, lv)
			}
		})
	}
}
