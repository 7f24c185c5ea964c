package media_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// An upload's type is sniffed from its first 3 KiB (what the upload keeps
// of it): real files made here, broadcast containers included, each
// answered its registered type.
func TestSniffTypeOfRealFiles(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "vips")
	dir := t.TempDir()
	cmd := func(name string, argv ...string) string {
		t.Helper()
		if b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("making %s: %v %s", name, err, b)
		}
		return filepath.Join(dir, name)
	}
	ff := func(name string, args ...string) string {
		return cmd(name, append(append([]string{"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x240:d=1"},
			args...), filepath.Join(dir, name))...)
	}
	vips := func(name, in, opts string) string {
		return cmd(name, "vips", "copy", in, filepath.Join(dir, name)+opts)
	}
	png := ff("src.png", "-frames:v", "1")
	svg := filepath.Join(dir, "d.svg")
	os.WriteFile(svg, []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`), 0o600) //nolint:errcheck
	pdf := filepath.Join(dir, "d.pdf")
	os.WriteFile(pdf, []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), 0o600) //nolint:errcheck
	txt := filepath.Join(dir, "t.mov")
	os.WriteFile(txt, []byte(strings.Repeat("G not a transport stream\n", 200)), 0o600) //nolint:errcheck
	for _, c := range []struct{ path, want string }{
		{ff("a.mxf", "-c:v", "mpeg2video"), "application/mxf"},
		{ff("a.ts", "-c:v", "mpeg2video"), "video/mp2t"},
		{ff("a.m2ts", "-c:v", "mpeg2video", "-mpegts_m2ts_mode", "1", "-f", "mpegts"), "video/mp2t"},
		{ff("a.mov", "-c:v", "mpeg4"), "video/quicktime"},
		{ff("a.mp4", "-c:v", "mpeg4"), "video/mp4"},
		{vips("a.heic", png, "[compression=hevc]"), "image/heic"},
		{vips("a.avif", png, "[effort=0]"), "image/avif"},
		{svg, "image/svg+xml"},
		{pdf, "application/pdf"},
		{png, "image/png"},
		{txt, "text/plain"},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := media.SniffType(b[:min(len(b), 3072)]); got != c.want {
			t.Errorf("%s: %s, want %s", filepath.Base(c.path), got, c.want)
		}
	}
}
