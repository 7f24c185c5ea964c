package media_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	_ "golang.org/x/image/webp" // decode

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// stillCases are JPEGs of the kinds cameras, phones and editors write, and
// what the fast path must leave to the general one.
func stillCases(t *testing.T) (fast, general map[string]string) {
	t.Helper()
	src := func(size string) []string {
		return []string{"-f", "lavfi", "-i", "testsrc2=size=" + size, "-frames:v", "1"}
	}
	fast = map[string]string{
		"4:2:0":     lavfi(t, "a.jpg", src("1600x1200")...),
		"4:4:4":     lavfi(t, "b.jpg", append(src("1601x999"), "-pix_fmt", "yuvj444p")...),
		"4:2:2":     lavfi(t, "c.jpeg", append(src("1200x1600"), "-pix_fmt", "yuvj422p")...),
		"small":     lavfi(t, "e.jpg", src("200x150")...),
		"turned":    lavfi(t, "f.jpg", src("1600x1000")...),
		"mirrored":  lavfi(t, "g.jpg", src("1000x1600")...),
		"Upper.JPG": lavfi(t, "h.JPG", src("640x480")...),
	}
	exif(t, fast["turned"], "-Orientation=6", "-n")
	exif(t, fast["mirrored"], "-Orientation=5", "-n")
	prog := filepath.Join(t.TempDir(), "p.jpg")
	if out, err := exec.Command("vips", "copy", fast["4:2:0"], prog+"[interlace]").CombinedOutput(); err != nil {
		t.Fatalf("progressive: %v %s", err, out)
	}
	fast["progressive"] = prog
	grey := filepath.Join(t.TempDir(), "grey.jpg")
	if out, err := exec.Command("vips", "colourspace", fast["4:2:0"], grey, "b-w").CombinedOutput(); err != nil {
		t.Fatalf("grey: %v %s", err, out)
	}
	fast["grey"] = grey
	general = map[string]string{
		"png":         lavfi(t, "i.png", src("640x480")...),
		"no name":     lavfi(t, "j.jpg", src("640x480")...),
		"cmyk":        lavfi(t, "k.jpg", src("640x480")...),
		"icc profile": lavfi(t, "l.jpg", src("640x480")...),
	}
	// ffprobe names a JPEG without its extension another way: left to it.
	noExt := filepath.Join(t.TempDir(), "photo")
	if err := os.Rename(general["no name"], noExt); err != nil {
		t.Fatal(err)
	}
	general["no name"] = noExt
	if out, err := exec.Command("vips", "icc_export", fast["small"], general["cmyk"], "--output-profile", "cmyk").CombinedOutput(); err != nil {
		t.Fatalf("cmyk: %v %s", err, out)
	}
	if out, err := exec.Command("vips", "icc_export", fast["small"], general["icc profile"], "--output-profile", "srgb").CombinedOutput(); err != nil {
		t.Fatalf("icc: %v %s", err, out)
	}
	return fast, general
}

func exif(t *testing.T, path string, args ...string) {
	t.Helper()
	if out, err := exec.Command("exiftool", append(append([]string{"-q", "-overwrite_original"}, args...), path)...).CombinedOutput(); err != nil {
		t.Fatalf("exiftool: %v %s", err, out)
	}
}

// StillProbe answers, from the header, what ffprobe answers of the same
// file in every field Loupe reads; what it cannot answer so it leaves.
func TestStillProbeIsFFprobes(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vips", "exiftool")
	fast, general := stillCases(t)
	for name, path := range fast {
		t.Run(name, func(t *testing.T) {
			got, err := media.StillProbe(path)
			if err != nil {
				t.Fatalf("not read: %v", err)
			}
			want := probe(t, path)
			if g, w := probeFields(got), probeFields(want); g != w {
				t.Errorf("header probe\n%+v\nffprobe\n%+v", g, w)
			}
			if got.Kind() != media.KindImage || got.Duration() != want.Duration() {
				t.Errorf("kind %s duration %v, ffprobe %v", got.Kind(), got.Duration(), want.Duration())
			}
		})
	}
	for name, path := range general {
		if _, err := media.StillProbe(path); err == nil {
			t.Errorf("%s: read from the header, ffprobe's to read", name)
		}
	}
}

type fields struct {
	Format, LongName, Duration, Size, BitRate          string
	Type, Codec, Profile, PixFmt, Rate, Avg, CR, CS, D string
	W, H                                               int
}

func probeFields(p *media.Probe) fields {
	f, s := p.Format, p.Streams[0]
	return fields{Format: f.FormatName, LongName: f.LongName, Duration: f.Duration, Size: f.Size, BitRate: f.BitRate, Type: s.CodecType, Codec: s.CodecName, Profile: s.Profile, PixFmt: s.PixFmt,
		Rate: s.RFrameRate, Avg: s.AvgFrameRate, CR: s.ColorRange, CS: s.ColorSpace, D: s.Duration, W: s.Width, H: s.Height}
}

// The helper's renditions are vipsthumbnail's: the same sizes, upright the
// same way, the same picture (a mean difference of a level or less, from
// the two resamplers and encoders).
func TestRenditionsFastAreVips(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "vipsthumbnail", "vips", "exiftool")
	fast, _ := stillCases(t)
	ctx := context.Background()
	for name, path := range fast {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			outs := func(way string) []media.RenditionSpec {
				return []media.RenditionSpec{{Path: filepath.Join(dir, way+"-preview.jpg"), Size: 1280},
					{Path: filepath.Join(dir, way+"-thumb.webp"), Size: 320}}
			}
			f, err := media.RenditionsFast(ctx, path, outs("fast"))
			if err != nil {
				mediatest.Missing(t, err.Error())
			}
			v, err := media.RenditionsByVips(ctx, path, outs("vips"))
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range outs("fast") {
				if f[i] != v[i] {
					t.Fatalf("%s: %v, vipsthumbnail %v", filepath.Base(o.Path), f[i], v[i])
				}
				a, b := decode(t, o.Path), decode(t, outs("vips")[i].Path)
				if a.Bounds() != b.Bounds() || a.Bounds().Dx() != f[i][0] || a.Bounds().Dy() != f[i][1] {
					t.Fatalf("%s: %v, vipsthumbnail %v, answered %v", filepath.Base(o.Path), a.Bounds(), b.Bounds(), f[i])
				}
				// Measured: previews ≤ 0.22, thumbnails ≤ 1.14 (nearest
				// neighbour instead of Lanczos: previews 0.58–0.8).
				if d, most := meanDiff(a, b), []float64{0.4, 1.5}[i]; d > most {
					t.Errorf("%s: differs from vipsthumbnail's by %.1f levels on average", filepath.Base(o.Path), d)
				}
			}
		})
	}
}

func decode(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// meanDiff is the mean absolute difference of a and b's grey levels
// (0–255).
func meanDiff(a, b image.Image) float64 {
	r := a.Bounds()
	sum, n := 0.0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			sum += abs(grey(a.At(x, y)) - grey(b.At(x, y)))
			n++
		}
	}
	return sum / float64(n)
}

func grey(c interface{ RGBA() (r, g, b, a uint32) }) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// A request cancelled mid-way stops its helper; the next photo gets a new
// one, and as many photos as cores are made at once.
func TestStillHelperAfterCancel(t *testing.T) {
	mediatest.Need(t, "ffmpeg")
	photo := lavfi(t, "big.jpg", "-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-frames:v", "1")
	dir := t.TempDir()
	outs := func(n int) []media.RenditionSpec {
		return []media.RenditionSpec{{Path: filepath.Join(dir, fmt.Sprint(n, ".jpg")), Size: 1280},
			{Path: filepath.Join(dir, fmt.Sprint(n, ".webp")), Size: 320}}
	}
	if _, err := media.RenditionsFast(context.Background(), photo, outs(0)); err != nil {
		mediatest.Missing(t, err.Error())
	}
	// Cancelled as it is sent (the idle helper is taken first, the answer
	// is a tenth of a second away), with other sizes: an answer left in
	// the helper's pipe would show below.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	other := []media.RenditionSpec{{Path: filepath.Join(dir, "c.jpg"), Size: 1100}, {Path: filepath.Join(dir, "c.webp"), Size: 300}}
	if _, err := media.RenditionsFast(ctx, photo, other); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for n := 2; n < 6; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sizes, err := media.RenditionsFast(context.Background(), photo, outs(n))
			if err == nil && (sizes[0] != [2]int{1280, 960} || sizes[1] != [2]int{320, 240}) {
				err = fmt.Errorf("sizes %v", sizes)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
