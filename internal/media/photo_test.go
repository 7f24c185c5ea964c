package media_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// A photo's EXIF, IPTC and XMP, as a camera and an agency write them,
// come back in Loupe's shape: GPS signed by its references, the time at
// its offset, keywords from both IPTC and XMP without repeats.
func TestReadPhoto(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "exiftool")
	jpg := lavfi(t, "photo.jpg", "-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1")
	if out, err := exec.Command("exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Model=EOS R5",
		"-LensModel=RF24-105mm F4 L IS USM", "-FNumber=4", "-ExposureTime=0.005", "-ISO=200", "-FocalLength=50",
		"-DateTimeOriginal=2026:05:01 10:20:30", "-OffsetTimeOriginal=+02:00",
		"-GPSLatitude=33.8688", "-GPSLatitudeRef=S", "-GPSLongitude=151.2093", "-GPSLongitudeRef=E",
		"-GPSAltitude=12.5", "-GPSAltitudeRef=0", "-IPTC:Keywords=harbour", "-IPTC:Keywords=bridge",
		"-XMP:Subject=Bridge", "-XMP:Subject=night", "-XMP:Creator=Ana Ruiz", "-Copyright=(c) Ana Ruiz",
		"-IPTC:City=Sydney", jpg).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	p, err := media.ReadPhoto(context.Background(), jpg)
	if err != nil {
		t.Fatal(err)
	}
	if p.CameraMake != "Canon" || p.CameraModel != "EOS R5" || p.Lens != "RF24-105mm F4 L IS USM" || p.FNumber != 4 ||
		p.ExposureTime != 0.005 || p.ISO != 200 || p.FocalLength != 50 || p.Creator != "Ana Ruiz" || p.City != "Sydney" {
		t.Errorf("camera and credits: %+v", p)
	}
	if want := time.Date(2026, 5, 1, 8, 20, 30, 0, time.UTC); p.TakenOn == nil || !p.TakenOn.Equal(want) {
		t.Errorf("taken on %v, want %v", p.TakenOn, want)
	}
	if g := p.Where; g == nil || g.Latitude != -33.8688 || g.Longitude != 151.2093 || g.Altitude == nil || *g.Altitude != 12.5 {
		t.Errorf("GPS: %+v", g)
	}
	if len(p.Keywords) != 3 || p.Keywords[0] != "harbour" || p.Keywords[2] != "night" {
		t.Errorf("keywords: %q", p.Keywords)
	}

	// A file without metadata: nothing, not an error.
	plain := lavfi(t, "plain.png", "-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1")
	if p, err := media.ReadPhoto(context.Background(), plain); err != nil || p.Where != nil || p.CameraModel != "" || p.TakenOn != nil {
		t.Errorf("plain PNG: %+v %v", p, err)
	}
}

// ExifTool kept running answers each request its own, also many at once;
// a missing file is an error saying so; a cancelled request leaves the
// next one working (a fresh exiftool).
func TestReadPhotoStaysOpen(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "exiftool")
	jpg := lavfi(t, "photo.jpg", "-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1")
	if out, err := exec.Command("exiftool", "-q", "-overwrite_original", "-Make=Nikon", jpg).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	plain := lavfi(t, "plain.png", "-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path, want := jpg, "Nikon"
			if i%2 == 1 {
				path, want = plain, ""
			}
			if p, err := media.ReadPhoto(context.Background(), path); err != nil || p.CameraMake != want {
				t.Errorf("%s: %+v %v", path, p, err)
			}
		}()
	}
	wg.Wait()
	if _, err := media.ReadPhoto(context.Background(), jpg+".missing"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := media.ReadPhoto(ctx, jpg); err == nil {
		t.Error("a cancelled request succeeded")
	}
	if p, err := media.ReadPhoto(context.Background(), jpg); err != nil || p.CameraMake != "Nikon" {
		t.Errorf("after a cancelled request: %+v %v", p, err)
	}
}

// A phone's video gives its position as ISO 6709 in the container.
func TestVideoPosition(t *testing.T) {
	for _, c := range []struct {
		tag       string
		lat, long float64
		alt       *float64
	}{
		{"+48.8584+002.2945+035.000/", 48.8584, 2.2945, ptr(35.0)},
		{"-33.8688+151.2093/", -33.8688, 151.2093, nil},
		{"+00.0000+000.0000/", 0, 0, nil}, // no fix
		{"+91.0000+000.0000/", 0, 0, nil}, // off the globe
		{"somewhere", 0, 0, nil},
	} {
		p := &media.Probe{}
		p.Format.Tags = map[string]string{"location": c.tag}
		g := p.Where()
		switch {
		case c.lat == 0 && c.long == 0:
			if g != nil {
				t.Errorf("%q: %+v, want none", c.tag, g)
			}
		case g == nil || g.Latitude != c.lat || g.Longitude != c.long || (c.alt == nil) != (g.Altitude == nil) ||
			(c.alt != nil && *c.alt != *g.Altitude):
			t.Errorf("%q: %+v", c.tag, g)
		}
	}
}

func ptr[T any](v T) *T { return &v }
