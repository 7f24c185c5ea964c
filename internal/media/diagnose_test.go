package media_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// BrokenFiles are the broken uploads a media team meets, made from a real
// clip: each with the reason Diagnose must give (a substring of it).
func brokenFiles(t *testing.T) map[string]struct {
	data   []byte
	broken bool
	reason string
} {
	t.Helper()
	// moov last (ffmpeg's default): a cut upload loses the index.
	clip, err := os.ReadFile(lavfi(t, "c.mp4", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
		"-c:v", "libx264", "-preset", "ultrafast"))
	if err != nil {
		t.Fatal(err)
	}
	moov := bytes.Index(clip, []byte("moov")) - 4
	moovSize := int(binary.BigEndian.Uint32(clip[moov:]))
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	f, _ := zw.Create("notes.txt")
	f.Write([]byte("scene 1, take 2")) //nolint:errcheck
	zw.Close()
	return map[string]struct {
		data   []byte
		broken bool
		reason string
	}{
		"empty":                {nil, true, "empty file"},
		"cut in media data":    {clip[:moov/2], true, "truncated: the file ends at 50 % of its media data (mdat)"},
		"cut in its index":     {clip[:moov+moovSize*3/10], true, "truncated: the file ends at 30 % of its index (moov)"},
		"cut before its index": {clip[:moov], true, "truncated: the file has no index (moov)"},
		"MXF header only":      {append([]byte("\x06\x0e\x2b\x34\x02\x05\x01\x01\x0d\x01\x02\x01\x01\x02"), make([]byte, 100)...), true, "damaged: a MXF file"},
		"text":                 {[]byte(strings.Repeat("INT. KITCHEN - NIGHT\n", 30)), false, ""},
		"zip":                  {zipped.Bytes(), false, ""},
	}
}

func TestDiagnose(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	want := map[string]string{"text": "plain text", "zip": "a ZIP archive"}
	for name, c := range brokenFiles(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			// What ffprobe says of it comes first: none of these is media
			// (an MP4 cut in its index shows a stream of data only).
			p, perr := media.ProbeFile(context.Background(), path)
			if perr == nil && p.Kind() != media.KindOther {
				t.Fatalf("ffprobe read %s as %s", name, p.Kind())
			}
			d, err := media.Diagnose(context.Background(), path, perr)
			if err != nil {
				t.Fatal(err)
			}
			if d.Broken != c.broken || !strings.Contains(d.Reason, c.reason) {
				t.Fatalf("diagnosis %+v, want broken %v with %q", d, c.broken, c.reason)
			}
			if !c.broken && d.Description != want[name] {
				t.Fatalf("described as %q, want %q", d.Description, want[name])
			}
		})
	}
}

func TestClaimsMedia(t *testing.T) {
	for name, want := range map[string]bool{"a.mov": true, "A.MXF": true, "b.mp4": true, "c.wav": true, "d.JPG": true,
		"e.braw": true, "f.txt": false, "g.zip": false, "h.pdf": false, "noext": false, "": false} {
		if got := media.ClaimsMedia(name); got != want {
			t.Errorf("ClaimsMedia(%q) = %v", name, got)
		}
	}
}

// A corrupt index that says a 2 s clip lasts 22 years: the duration is not
// taken as fact — the streams' is used, and the probe says why.
func TestImpossibleDurationIsDropped(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	clip, err := os.ReadFile(lavfi(t, "c.mp4", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
		"-c:v", "libx264", "-preset", "ultrafast"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "years.mp4")
	if err := os.WriteFile(path, mediatest.CorruptDuration(t, clip), 0o600); err != nil {
		t.Fatal(err)
	}
	p := probe(t, path)
	if d := p.Duration(); d < 1.9 || d > 2.1 {
		t.Fatalf("duration %v, want the streams' 2 s", d)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "years) is impossible") {
		t.Fatalf("warnings %q", p.Warnings)
	}
}
