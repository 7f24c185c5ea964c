package opencv

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// The test photos, both public domain, from Debian packages scripts/deps
// installs for the tests: NASA's portrait of Eileen Collins (python3-skimage)
// and the US Navy's of Grace Hopper (python-matplotlib-data, a dependency of
// python3-skimage through python3-matplotlib).
const (
	astronaut = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"   // 512x512
	hopper    = "/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg" // 512x600
)

// need skips t (or fails it, where LOUPE_MEDIATEST or LOUPE_WEBTEST is
// "require": CI) unless the engine and the test photos are installed, as
// mediatest.Need does for the media tools.
func need(t testing.TB, photos ...string) {
	t.Helper()
	msg := ""
	if !Available() {
		msg = "python3-opencv or opencv-data is not installed (scripts/deps run installs them)"
	}
	for _, p := range photos {
		if _, err := os.Stat(p); err != nil && msg == "" {
			msg = p + " is not installed (scripts/deps test installs it)"
		}
	}
	if msg != "" {
		mediatest.Missing(t, msg)
	}
}

func detect(t testing.TB, paths []string, minWidthRatio, minConfidence float64) [][]analysis.Face {
	t.Helper()
	faces, err := Engine{}.DetectFaces(context.Background(), paths, minWidthRatio, minConfidence)
	if err != nil {
		t.Fatal(err)
	}
	if len(faces) != len(paths) {
		t.Fatalf("%d answers for %d images", len(faces), len(paths))
	}
	return faces
}

// The astronaut's face is found, once, where it is (measured: box 178,67
// 93x93, centre 224,113; her face spans about x 180-270, y 65-160), and
// surely.
func TestAstronaut(t *testing.T) {
	need(t, astronaut)
	faces := detect(t, []string{astronaut}, 0.05, 0.5)[0]
	if len(faces) != 1 {
		t.Fatalf("%d faces: %+v", len(faces), faces)
	}
	f := faces[0]
	cx, cy := f.Box.X+f.Box.W/2, f.Box.Y+f.Box.H/2
	t.Logf("box %+v confidence %.3f descriptor of %d", f.Box, f.Confidence, len(f.Descriptor))
	if cx < 195 || cx > 250 || cy < 90 || cy > 140 || f.Box.W < 60 || f.Box.W > 140 {
		t.Errorf("box %+v is not around her face", f.Box)
	}
	if f.Confidence < 0.5 || f.Confidence > 1 {
		t.Errorf("confidence %v", f.Confidence)
	}
	if n := analysis.Similarity(f.Descriptor, f.Descriptor); len(f.Descriptor) == 0 || math.Abs(n-1) > 1e-3 {
		t.Errorf("descriptor of %d, self-similarity %v", len(f.Descriptor), n)
	}
}

// A face narrower than minWidthRatio of the image is not answered: hers is
// 0.18 of the width.
func TestMinWidthRatio(t *testing.T) {
	need(t, astronaut)
	faces := detect(t, []string{astronaut, astronaut}, 0.9, 0)
	if len(faces[0]) != 0 {
		t.Errorf("0.9: %+v", faces[0])
	}
	faces = detect(t, []string{astronaut}, 0.25, 0)
	if len(faces[0]) != 0 {
		t.Errorf("0.25: %+v", faces[0])
	}
	faces = detect(t, []string{astronaut}, 0.15, 0)
	if len(faces[0]) != 1 {
		t.Errorf("0.15: %+v", faces[0])
	}
}

// Images without a face answer none: a flat grey frame and a test pattern
// (colour bars over a checkerboard and a gradient, the shapes cascades
// most often mistake for faces).
func TestNoFaces(t *testing.T) {
	need(t)
	dir := t.TempDir()
	grey := image.NewGray(image.Rect(0, 0, 640, 360))
	for i := range grey.Pix {
		grey.Pix[i] = 128
	}
	pattern := image.NewRGBA(image.Rect(0, 0, 640, 360))
	bars := []color.RGBA{{192, 192, 192, 255}, {192, 192, 0, 255}, {0, 192, 192, 255}, {0, 192, 0, 255},
		{192, 0, 192, 255}, {192, 0, 0, 255}, {0, 0, 192, 255}}
	for y := 0; y < 360; y++ {
		for x := 0; x < 640; x++ {
			var c color.RGBA
			switch {
			case y < 180:
				c = bars[x*len(bars)/640]
			case y < 270:
				v := uint8(0)
				if (x/40+y/40)%2 == 0 {
					v = 255
				}
				c = color.RGBA{v, v, v, 255}
			default:
				v := uint8(x * 255 / 639)
				c = color.RGBA{v, v, v, 255}
			}
			pattern.Set(x, y, c)
		}
	}
	paths := []string{writePNG(t, dir, "grey.png", grey), writePNG(t, dir, "pattern.png", pattern)}
	for i, faces := range detect(t, paths, 0, 0) {
		if len(faces) != 0 {
			t.Errorf("%s: %+v", paths[i], faces)
		}
	}
}

// A batch answers a list per image, in order; a missing file answers none
// rather than failing the batch.
func TestBatch(t *testing.T) {
	need(t, astronaut)
	dir := t.TempDir()
	grey := image.NewGray(image.Rect(0, 0, 320, 240))
	for i := range grey.Pix {
		grey.Pix[i] = 128
	}
	faces := detect(t, []string{astronaut, writePNG(t, dir, "grey.png", grey), filepath.Join(dir, "missing.png")}, 0, 0.5)
	if len(faces[0]) != 1 || len(faces[1]) != 0 || len(faces[2]) != 0 {
		t.Fatalf("%+v", faces)
	}
	if faces, err := (Engine{}).DetectFaces(context.Background(), nil, 0, 0); err != nil || len(faces) != 0 {
		t.Errorf("no images: %v %v", faces, err)
	}
	if _, err := (Engine{}).DetectFaces(context.Background(), []string{astronaut}, 1.5, 0); err == nil {
		t.Error("a ratio of 1.5 was taken")
	}
}

// The descriptor tells one person's face from another's. Same person: each
// photo against a copy made here, rescaled to 0.7x and brightened by 20
// levels — the same face found anew at another size and exposure, with the
// box where the detector puts it this time. Different persons: Eileen
// Collins against Grace Hopper, the two faces Debian ships; two persons
// prove only that these two are told apart (their age, the glasses), not
// that any two are.
func TestDescriptor(t *testing.T) {
	need(t, astronaut, hopper)
	dir := t.TempDir()
	paths := []string{astronaut, altered(t, astronaut, dir), hopper, altered(t, hopper, dir)}
	var desc [][]float32
	for i, faces := range detect(t, paths, 0.05, 0.5) {
		if len(faces) != 1 {
			t.Fatalf("%s: %d faces: %+v", paths[i], len(faces), faces)
		}
		desc = append(desc, faces[0].Descriptor)
	}
	sameA, sameH := analysis.Similarity(desc[0], desc[1]), analysis.Similarity(desc[2], desc[3])
	diff := []float64{analysis.Similarity(desc[0], desc[2]), analysis.Similarity(desc[0], desc[3]), analysis.Similarity(desc[1], desc[2]), analysis.Similarity(desc[1], desc[3])}
	t.Logf("same person: astronaut %.3f, Hopper %.3f; different persons: %.3f", sameA, sameH, diff)
	for _, s := range []float64{sameA, sameH} {
		if s < SamePersonSimilarity {
			t.Errorf("same person %.3f < %v", s, SamePersonSimilarity)
		}
	}
	for _, d := range diff {
		if d >= SamePersonSimilarity {
			t.Errorf("different persons %.3f >= %v", d, SamePersonSimilarity)
		}
	}
}

// Cancelling the context stops the helper.
func TestCancel(t *testing.T) {
	need(t, astronaut)
	paths := make([]string, 200) // about 35 s of work
	for i := range paths {
		paths[i] = astronaut
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Engine{}.DetectFaces(ctx, paths, 0, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopped after %v", d)
	}
}

// A failing helper's error says what it wrote last on stderr.
func TestHelperError(t *testing.T) {
	need(t)
	saved := helpers
	defer func() { helpers = saved }()
	helpers = newHelpers("import sys\nsys.stderr.write('libpng warning: noise\\nTraceback\\nValueError: bad request\\n')\nsys.exit(3)\n")
	_, err := Engine{}.DetectFaces(context.Background(), []string{astronaut}, 0, 0)
	if err == nil || !strings.Contains(err.Error(), "ValueError: bad request") || !strings.Contains(err.Error(), "(exit 3)") {
		t.Fatalf("err %v", err)
	}
}

func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{2, 0}, 1},
		{[]float32{1, 0}, []float32{0, 3}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{nil, nil, 0},
		{[]float32{1}, []float32{1, 0}, 0},
		{[]float32{0, 0}, []float32{1, 0}, 0},
	} {
		if got := analysis.Similarity(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Similarity(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// The cost of a batch: each image (512x512), the helper's start paid by
// the first.
func BenchmarkDetectFaces(b *testing.B) {
	need(b, astronaut)
	for _, n := range []int{1, 10} {
		paths := make([]string, n)
		for i := range paths {
			paths[i] = astronaut
		}
		b.Run(fmt.Sprintf("%dimages", n), func(b *testing.B) {
			for range b.N {
				detect(b, paths, 0, 0)
			}
		})
	}
}

// altered writes the photo at path rescaled to 0.7x (bilinear) and 20
// levels brighter, as a PNG in dir.
func altered(t *testing.T, path, dir string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var src image.Image
	if filepath.Ext(path) == ".png" {
		src, err = png.Decode(f)
	} else {
		src, err = jpeg.Decode(f)
	}
	if err != nil {
		t.Fatal(err)
	}
	const scale, lift = 0.7, 20
	b := src.Bounds()
	w, h := int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	at := func(x, y int) [3]float64 {
		x, y = min(max(x, 0), b.Dx()-1), min(max(y, 0), b.Dy()-1)
		r, g, bl, _ := src.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return [3]float64{float64(r >> 8), float64(g >> 8), float64(bl >> 8)}
	}
	for y := 0; y < h; y++ {
		sy := (float64(y)+0.5)/scale - 0.5
		y0, fy := int(math.Floor(sy)), sy-math.Floor(sy)
		for x := 0; x < w; x++ {
			sx := (float64(x)+0.5)/scale - 0.5
			x0, fx := int(math.Floor(sx)), sx-math.Floor(sx)
			p00, p10, p01, p11 := at(x0, y0), at(x0+1, y0), at(x0, y0+1), at(x0+1, y0+1)
			var c [3]uint8
			for i := range c {
				v := (p00[i]*(1-fx)+p10[i]*fx)*(1-fy) + (p01[i]*(1-fx)+p11[i]*fx)*fy + lift
				c[i] = uint8(min(max(math.Round(v), 0), 255))
			}
			dst.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	return writePNG(t, dir, "altered-"+filepath.Base(path)+".png", dst)
}

func writePNG(t *testing.T, dir, name string, img image.Image) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
