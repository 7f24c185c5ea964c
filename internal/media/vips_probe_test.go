package media

import (
	"testing"
)

// Which files libvips probes before ffprobe: by their first bytes.
func TestVipsFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		head string
		want bool
	}{
		{"heic", "\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", true},
		{"heif mif1", "\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic", true},
		{"avif", "\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1", true},
		{"avif sequence: ffprobe counts its frames", "\x00\x00\x00\x1cftypavis\x00\x00\x00\x00avismsf1", false},
		{"mp4", "\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2", false},
		{"mov", "\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  ", false},
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", true},
		{"svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>", true},
		{"svg with a declaration", "\ufeff<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg>\n<svg width=\"1\"/>", true},
		{"xhtml with an inline svg", "<?xml version=\"1.0\"?><html><body><svg/></body></html>", false},
		{"plain text", "hello <svg> is a tag", false},
		{"still webp", "RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00", false},
		{"animated webp", "RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x12\x00\x00\x00", true},
		{"webp with alpha, not animated", "RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x10\x00\x00\x00", false},
		{"jpeg xl codestream", "\xff\x0a\x00", true},
		{"jpeg xl container", "\x00\x00\x00\x0cJXL \r\n\x87\n\x00\x00", true},
		{"jpeg", "\xff\xd8\xff\xe0", false},
		{"empty", "", false},
	} {
		if got := vipsFirst([]byte(c.head)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// vipsheader's fields make a Probe the pipeline classifies as an image:
// codec, size, pixel format, an animation's frames and length, a PDF's
// pages, an orientation.
func TestVipsHeaderProbe(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields map[string]string
		codec  string
		w, h   int
		pix    string
		frames string
		dur    float64
		pages  string
		rot    int
	}{
		{"heic", map[string]string{"vips-loader": "heifload", "width": "4032", "height": "3024", "bands": "3",
			"format": "uchar", "interpretation": "srgb", "heif-compression": "hevc", "n-pages": "1"}, "heic", 4032, 3024, "rgb24", "", 0, "", 0},
		{"avif with alpha", map[string]string{"vips-loader": "heifload", "width": "64", "height": "48", "bands": "4",
			"format": "uchar", "heif-compression": "av1"}, "avif", 64, 48, "rgba", "", 0, "", 0},
		{"pdf: poppler draws on white", map[string]string{"vips-loader": "pdfload", "width": "595", "height": "842",
			"bands": "4", "format": "uchar", "n-pages": "12"}, "pdf", 595, 842, "rgb24", "", 0, "12", 0},
		{"animated webp", map[string]string{"vips-loader": "webpload", "width": "64", "height": "48", "bands": "4",
			"format": "uchar", "n-pages": "3", "delay": "100 0 250 ", "page-height": "48"}, "webp", 64, 48, "rgba", "3", 0.45, "3", 0},
		{"16-bit grey tiff turned", map[string]string{"vips-loader": "tiffload", "width": "100", "height": "50", "bands": "1",
			"format": "ushort", "orientation": "6"}, "tiff", 100, 50, "gray16le", "", 0, "", 90},
		{"svg", map[string]string{"vips-loader": "svgload", "width": "200", "height": "100", "bands": "4", "format": "uchar"},
			"svg", 200, 100, "rgba", "", 0, "", 0},
	} {
		p, err := vipsHeaderProbe(c.fields, 1000)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		s := p.Streams[0]
		if p.Kind() != KindImage || s.CodecName != c.codec || s.Width != c.w || s.Height != c.h || s.PixFmt != c.pix ||
			s.NbFrames != c.frames || p.Duration() != c.dur || p.Format.Tags["pages"] != c.pages || s.Rotation() != c.rot {
			t.Errorf("%s: kind %s, %+v, duration %v, pages %q", c.name, p.Kind(), s, p.Duration(), p.Format.Tags["pages"])
		}
		if anim := p.Animation() != nil; anim != (c.frames != "") {
			t.Errorf("%s: animated %v", c.name, anim)
		}
	}
	for _, f := range []map[string]string{
		{"vips-loader": "csvload", "width": "3", "height": "3"}, // a table of numbers is no image
		{"vips-loader": "pngload", "width": "0", "height": "0"},
		{},
	} {
		if _, err := vipsHeaderProbe(f, 1); err == nil {
			t.Errorf("%v: an image", f)
		}
	}
}

// Kinds of what ffprobe answers for images: an AVIF (its brand) and the
// animated formats are images however many frames; MJPEG and PNG in a
// movie are video.
func TestImageKinds(t *testing.T) {
	v := func(codec, frames, dur string) Stream {
		return Stream{CodecType: "video", CodecName: codec, NbFrames: frames, Duration: dur, Width: 64, Height: 48}
	}
	for _, c := range []struct {
		name string
		p    Probe
		want string
		anim bool
	}{
		{"avif read by ffprobe", Probe{Format: Format{FormatName: "mov,mp4,m4a,3gp,3g2,mj2", Tags: map[string]string{"major_brand": "avif"}},
			Streams: []Stream{v("av1", "1", "0.04")}}, KindImage, false},
		{"avif sequence", Probe{Format: Format{FormatName: "mov,mp4,m4a,3gp,3g2,mj2", Tags: map[string]string{"major_brand": "avis"}},
			Streams: []Stream{v("av1", "24", "1")}}, KindImage, true},
		{"animated gif", Probe{Format: Format{FormatName: "gif"}, Streams: []Stream{v("gif", "12", "1.2")}}, KindImage, true},
		{"still gif", Probe{Format: Format{FormatName: "gif"}, Streams: []Stream{v("gif", "1", "0.1")}}, KindImage, false},
		{"apng", Probe{Format: Format{FormatName: "apng"}, Streams: []Stream{v("apng", "", "")}}, KindImage, true},
		{"svg read by ffprobe", Probe{Format: Format{FormatName: "image2"}, Streams: []Stream{v("svg", "", "0.04")}}, KindImage, false},
		{"mjpeg avi", Probe{Format: Format{FormatName: "avi"}, Streams: []Stream{v("mjpeg", "250", "10")}}, KindVideo, false},
		{"png in a mov", Probe{Format: Format{FormatName: "mov,mp4,m4a,3gp,3g2,mj2", Tags: map[string]string{"major_brand": "qt  "}},
			Streams: []Stream{v("png", "50", "2")}}, KindVideo, false},
	} {
		if k := c.p.Kind(); k != c.want {
			t.Errorf("%s: %s, want %s", c.name, k, c.want)
		}
		if a := c.p.Animation() != nil; a != c.anim {
			t.Errorf("%s: animated %v, want %v", c.name, a, c.anim)
		}
	}
}
