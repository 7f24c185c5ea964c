package pipeline_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	_ "image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "golang.org/x/image/webp"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// vipsCopy converts in with libvips (its format and options from out's
// name).
func vipsCopy(t *testing.T, in, out string) string {
	t.Helper()
	if b, err := exec.Command("vips", "copy", in, out).CombinedOutput(); err != nil {
		t.Fatalf("vips copy %s: %v %s", out, err, b)
	}
	return strings.SplitN(out, "[", 2)[0]
}

// decode reads a rendition (JPEG, PNG, WebP).
func decode(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if format == "webp" {
		return limitedRange{img}
	}
	return img
}

// limitedRange reads a lossy WebP's YCbCr as what it is: BT.601 in
// limited range (x/image/webp answers it as image.YCbCr, which Go turns
// into RGB as full-range JPEG: white reads 235).
type limitedRange struct{ image.Image }

func (l limitedRange) At(x, y int) color.Color {
	var yy, cb, cr, a uint8 = 0, 0, 0, 255
	switch c := l.Image.At(x, y).(type) {
	case color.NYCbCrA:
		yy, cb, cr, a = c.Y, c.Cb, c.Cr, c.A
	case color.YCbCr:
		yy, cb, cr = c.Y, c.Cb, c.Cr
	default:
		return c // lossless: RGB already
	}
	f := func(v float64) uint8 { return uint8(max(0, min(255, v+0.5))) }
	Y, U, V := (float64(yy)-16)*255/219, (float64(cb)-128)*255/224, (float64(cr)-128)*255/224
	return color.NRGBA{f(Y + 1.402*V), f(Y - 0.344136*U - 0.714136*V), f(Y + 1.772*U), a}
}

// rgba is a pixel in 8-bit non-premultiplied RGBA.
func rgba(img image.Image, x, y int) color.NRGBA {
	return color.NRGBAModel.Convert(img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y)).(color.NRGBA)
}

// near: each channel within tol.
func near(c color.NRGBA, r, g, b, a uint8, tol int) bool {
	d := func(x, y uint8) bool { return abs(int(x)-int(y)) <= tol }
	return d(c.R, r) && d(c.G, g) && d(c.B, b) && d(c.A, a)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// output is the run's output of key.
func output(t *testing.T, r *pipeline.Result, key string) pipeline.Output {
	t.Helper()
	for _, o := range r.Outputs {
		if o.Key == key {
			return o
		}
	}
	t.Fatalf("no %s among %v", key, roles(r))
	return pipeline.Output{}
}

func runImage(t *testing.T, in string) *pipeline.Result {
	t.Helper()
	r, err := pipeline.Run(context.Background(), in, t.TempDir(), pipeline.AllSteps, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(in), err)
	}
	if r.Kind != media.KindImage {
		t.Fatalf("%s: kind %s, want image (%+v)", filepath.Base(in), r.Kind, r.Probe)
	}
	return r
}

// alphaSource is 160×120, transparent but for an opaque red centre
// (40..119 × 30..89).
func alphaSource(t *testing.T) string {
	return lavfi(t, "alpha.png", "-f", "lavfi", "-i",
		"color=c=red:s=160x120,format=rgba,geq=r=255:g=0:b=0:a='255*between(X,40,119)*between(Y,30,89)'",
		"-frames:v", "1")
}

// Alpha survives in a still's thumbnail and preview (WebP, both): the
// transparent corner stays transparent, the centre red — not black on
// black.
func TestImageAlphaKept(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail", "vips")
	png := alphaSource(t)
	webp := vipsCopy(t, png, filepath.Join(t.TempDir(), "alpha.webp[lossless]"))
	for _, in := range []string{png, webp} {
		t.Run(filepath.Ext(in), func(t *testing.T) {
			r := runImage(t, in)
			prev, thumb := output(t, r, pipeline.OutPreview), output(t, r, pipeline.OutPoster)
			if prev.ContentType != "image/webp" || prev.Width != 160 || prev.Height != 120 {
				t.Fatalf("preview %s %dx%d, want a 160x120 WebP", prev.ContentType, prev.Width, prev.Height)
			}
			for _, o := range []pipeline.Output{prev, thumb} {
				img := decode(t, o.Path)
				if c := rgba(img, 2, 2); c.A != 0 {
					t.Errorf("%s: corner %v, want transparent", o.Name, c)
				}
				if c := rgba(img, 80, 60); !near(c, 255, 0, 0, 255, 12) {
					t.Errorf("%s: centre %v, want opaque red", o.Name, c)
				}
			}
		})
	}
}

// A JPEG made of an image with alpha (what Rendition makes when asked for
// one) lies on the checkerboard's light grey, not black.
func TestJPEGOfAlphaOnGrey(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "vipsthumbnail")
	out := filepath.Join(t.TempDir(), "flat.jpg")
	if err := media.Rendition(context.Background(), alphaSource(t), out, 1280); err != nil {
		t.Fatal(err)
	}
	img := decode(t, out)
	g := uint8(media.CheckerLight)
	if c := rgba(img, 2, 2); !near(c, g, g, g, 255, 4) {
		t.Errorf("corner %v, want grey %d", c, g)
	}
	if c := rgba(img, 80, 60); !near(c, 255, 0, 0, 255, 12) {
		t.Errorf("centre %v, want red", c)
	}
}

// HEIC and AVIF stills are images read by libvips (ffmpeg reads neither
// right): preview and thumbnail at their sizes, the left half red and the
// right blue where they were.
func TestHEIFStills(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail", "vips", "vipsheader")
	src := lavfi(t, "rb.png", "-f", "lavfi", "-i",
		"color=c=red:s=1600x1200,drawbox=x=800:y=0:w=800:h=1200:color=blue:t=fill", "-frames:v", "1")
	for _, c := range []struct{ name, codec string }{
		{"rb.heic[compression=hevc,Q=70]", "heic"}, {"rb.avif[Q=60,effort=0]", "avif"},
	} {
		t.Run(c.codec, func(t *testing.T) {
			in := vipsCopy(t, src, filepath.Join(t.TempDir(), c.name))
			r := runImage(t, in)
			if s := r.Probe.Streams[0]; s.CodecName != c.codec || s.Width != 1600 || s.Height != 1200 {
				t.Errorf("probe: %s %dx%d", s.CodecName, s.Width, s.Height)
			}
			prev, thumb := output(t, r, pipeline.OutPreview), output(t, r, pipeline.OutPoster)
			if prev.ContentType != "image/jpeg" || prev.Width != 1280 || prev.Height != 960 || thumb.Width != 320 || thumb.Height != 240 {
				t.Fatalf("preview %s %dx%d, thumbnail %dx%d", prev.ContentType, prev.Width, prev.Height, thumb.Width, thumb.Height)
			}
			img := decode(t, prev.Path)
			if l, rt := rgba(img, 320, 480), rgba(img, 960, 480); !near(l, 255, 0, 0, 255, 24) || !near(rt, 0, 0, 255, 255, 24) {
				t.Errorf("left %v (want red), right %v (want blue)", l, rt)
			}
		})
	}
	// ffprobe's own answer for an AVIF (the probe phase reads a URL on S3,
	// libvips cannot): an image, not a one-frame AV1 video.
	avif := vipsCopy(t, src, filepath.Join(t.TempDir(), "x.avif[Q=60,effort=0]"))
	p, err := media.ProbeFile(context.Background(), avif)
	if err != nil || p.Kind() != media.KindImage || p.Video() != nil {
		t.Errorf("ffprobe's AVIF: %v kind %s", err, p.Kind())
	}
}

// An SVG is drawn at the preview's size (its declared 200×100 enlarged to
// 1280×640: vectors have no pixels to lose), the blue rectangle where it
// was drawn.
func TestSVGRasterised(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail", "vipsheader")
	in := filepath.Join(t.TempDir(), "drawing.svg")
	svg := `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
<rect width="200" height="100" fill="#ffffff"/><rect x="20" y="20" width="60" height="40" fill="#0000ff"/></svg>`
	if err := os.WriteFile(in, []byte(svg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runImage(t, in)
	prev := output(t, r, pipeline.OutPreview)
	if prev.Width != 1280 || prev.Height != 640 {
		t.Fatalf("preview %dx%d, want 1280x640", prev.Width, prev.Height)
	}
	img := decode(t, prev.Path)
	// The rectangle spans x 128..512, y 128..384 at 6.4×.
	if c := rgba(img, 320, 256); !near(c, 0, 0, 255, 255, 16) {
		t.Errorf("inside the rectangle %v, want blue", c)
	}
	if c := rgba(img, 900, 500); !near(c, 255, 255, 255, 255, 8) {
		t.Errorf("outside %v, want white", c)
	}
}

// textPDF is a one-page PDF (400×200 pt) with "LOUPE" in 48 pt Helvetica
// at (20, 120) from the bottom left: text only, no image.
func textPDF() []byte {
	stream := "BT /F1 48 Tf 20 120 Td (LOUPE) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length " + strconv.Itoa(len(stream)) + " >>\nstream\n" + stream + "\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		b.WriteString(strconv.Itoa(i+1) + " 0 obj\n" + o + "\nendobj\n")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + strconv.Itoa(len(objs)+1) + "\n0000000000 65535 f \n")
	for _, o := range offs {
		b.WriteString(strings.Repeat("0", 10-len(strconv.Itoa(o))) + strconv.Itoa(o) + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size " + strconv.Itoa(len(objs)+1) + " /Root 1 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
	return b.Bytes()
}

// A text PDF (no image in it: ffprobe finds nothing) gets its first page
// as the preview: dark text pixels where the text is, white elsewhere.
func TestTextPDFPreview(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail", "vipsheader")
	in := filepath.Join(t.TempDir(), "letter.pdf")
	if err := os.WriteFile(in, textPDF(), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runImage(t, in)
	prev := output(t, r, pipeline.OutPreview)
	if prev.ContentType != "image/jpeg" || prev.Width != 1280 || prev.Height != 640 {
		t.Fatalf("preview %s %dx%d, want a 1280x640 JPEG", prev.ContentType, prev.Width, prev.Height)
	}
	img := decode(t, prev.Path)
	// At 3.2×: the text's baseline at y 256 from the top, its capitals
	// ~110 px high, from x 64 on; nothing below y 300 or right of 700.
	dark := func(x0, y0, x1, y1 int) (n int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if c := rgba(img, x, y); int(c.R)+int(c.G)+int(c.B) < 3*80 {
					n++
				}
			}
		}
		return n
	}
	if n := dark(60, 140, 600, 260); n < 5000 {
		t.Errorf("%d dark pixels where the text is", n)
	}
	if n := dark(0, 300, 1280, 640) + dark(720, 0, 1280, 300); n > 0 {
		t.Errorf("%d dark pixels away from the text", n)
	}
	if c := rgba(img, 1000, 500); !near(c, 255, 255, 255, 255, 4) {
		t.Errorf("the page %v, want white", c)
	}
}

// countFrames decodes a video's frames (ffprobe -count_frames).
func countFrames(t *testing.T, path string) int {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,codec_name", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(string(b)), ",")
	if f[0] != "h264" {
		t.Fatalf("%s: codec %s", path, f[0])
	}
	n, _ := strconv.Atoi(f[len(f)-1])
	return n
}

// An animated GIF or WebP is an image: the first frame (red; the others
// each another green: frames alike would be merged by the WebP encoder)
// makes the thumbnail, and a proxy plays every frame of the
// animation, no more, no fewer, for as long.
func TestAnimatedImages(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe", "vipsthumbnail", "vips", "vipsheader")
	gif := lavfi(t, "anim.gif", "-f", "lavfi", "-i",
		"color=c=green:s=160x120:r=10:d=1.2,format=rgb24,geq=r='if(eq(N\\,0)\\,255\\,0)':g='if(eq(N\\,0)\\,0\\,90+N*15)':b=0")
	webp := vipsCopy(t, gif+"[n=-1]", filepath.Join(t.TempDir(), "anim.webp"))
	for _, in := range []string{gif, webp} {
		t.Run(filepath.Ext(in), func(t *testing.T) {
			r := runImage(t, in)
			if r.Probe.Animation() == nil {
				t.Fatalf("not seen as animated: %+v", r.Probe)
			}
			proxy := output(t, r, pipeline.OutProxy)
			if n := countFrames(t, proxy.Path); n != 12 {
				t.Errorf("proxy: %d frames, want the animation's 12", n)
			}
			if p, err := media.ProbeFile(context.Background(), proxy.Path); err != nil || p.Duration() < 1.1 || p.Duration() > 1.3 {
				t.Errorf("proxy lasts %v (%v), want 1.2 s", p.Duration(), err)
			}
			thumb := decode(t, output(t, r, pipeline.OutPoster).Path)
			if c := rgba(thumb, 80, 60); !near(c, 255, 0, 0, 255, 24) {
				t.Errorf("thumbnail %v, want the first frame's red", c)
			}
		})
	}
}
