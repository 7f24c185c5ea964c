package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Images ffmpeg cannot read, or reads wrongly, are probed by libvips
// (vipsheader), which reads what its loaders do (Debian's libvips42: HEIF
// and AVIF through libheif, SVG through librsvg, PDF through poppler, JPEG
// XL, JPEG 2000, OpenEXR, FITS, ImageMagick's formats): ffmpeg 5/7 answers
// "Invalid data" for HEIC and PDF, reads an AVIF as a one-frame AV1 video,
// an SVG as a 40 ms video and an animated WebP as a 0×0 picture. Its answer
// is a Probe like ffprobe's, of one image stream the pipeline classifies as
// KindImage.

// vipsFirst reports whether the file that head begins is a kind libvips
// reads better than ffmpeg (asked first, saving an ffprobe that would fail
// or mislead): HEIF stills and AVIF, PDF, SVG, animated WebP, JPEG XL.
func vipsFirst(head []byte) bool {
	switch {
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		// An animated AVIF (avis) goes to ffprobe: libheif reads its
		// first picture only.
		switch string(head[8:12]) {
		case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif":
			return true
		}
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return true
	case len(head) >= 21 && string(head[0:4]) == "RIFF" && string(head[8:16]) == "WEBPVP8X":
		return head[20]&0x02 != 0 // the animation flag
	case bytes.HasPrefix(head, []byte{0xFF, 0x0A}), bytes.HasPrefix(head, []byte("\x00\x00\x00\x0cJXL \r\n\x87\n")):
		return true
	}
	return isSVG(head)
}

// isSVG: an XML document whose root is <svg> (after any declaration,
// comments and doctype), in the first bytes.
func isSVG(head []byte) bool {
	s := strings.TrimLeft(string(head), "\ufeff \t\r\n")
	if !strings.HasPrefix(s, "<") {
		return false
	}
	i := strings.Index(s, "<svg")
	return i >= 0 && !strings.Contains(s[:i], "<html")
}

// readHead is the first n bytes of a local file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if k == 0 && err != nil {
		return nil, err
	}
	return b[:k], nil
}

// isLocal reports whether input names a local file (not a URL ffmpeg
// reads: libvips reads files only).
func isLocal(input string) bool { return !strings.Contains(input, "://") }

// errNotVips: libvips cannot read the file either.
var errNotVips = errors.New("media: no libvips loader reads the file")

// VipsProbe probes an image with libvips' vipsheader.
func VipsProbe(ctx context.Context, path string) (*Probe, error) {
	var out bytes.Buffer
	err := tool.Run(ctx, tool.Cmd{Program: "vipsheader", Args: []string{"-a", path}, Stdout: &out})
	var te *tool.Error
	if errors.As(err, &te) && te.Code > 0 && ctx.Err() == nil {
		return nil, errNotVips
	}
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return vipsHeaderProbe(vipsFields(out.Bytes()), st.Size())
}

// vipsFields are vipsheader -a's "name: value" lines.
func vipsFields(out []byte) map[string]string {
	f := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024) // long delay lists, XMP
	first := true
	for sc.Scan() {
		if first { // "path: 64x48 uchar, 4 bands, srgb, heifload"
			first = false
			continue
		}
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			f[k] = strings.TrimSpace(v)
		}
	}
	return f
}

// vipsCodecs name a libvips loader's format as ffprobe names codecs.
var vipsCodecs = map[string]string{
	"svgload": "svg", "pdfload": "pdf", "webpload": "webp", "gifload": "gif", "pngload": "png", "jpegload": "mjpeg",
	"tiffload": "tiff", "jp2kload": "jpeg2000", "jxlload": "jpegxl", "openexrload": "exr", "fitsload": "fits",
	"radload": "hdr", "ppmload": "ppm", "magickload": "magick", "openslideload": "openslide", "matload": "mat",
	"analyzeload": "analyze", "csvload": "", "matrixload": "", "rawload": "", "vipsload": "vips",
}

// VectorCodecs are the formats drawn at any size: rendered to the
// rendition's size rather than never enlarged.
var VectorCodecs = map[string]bool{"svg": true, "pdf": true}

// vipsHeaderProbe turns vipsheader's fields into a Probe: one image stream
// (its frames and duration when animated, its pages as a tag).
func vipsHeaderProbe(f map[string]string, size int64) (*Probe, error) {
	loader := f["vips-loader"]
	codec, known := vipsCodecs[loader]
	if !known {
		codec = strings.TrimSuffix(loader, "load")
	}
	w, _ := strconv.Atoi(f["width"])
	h, _ := strconv.Atoi(f["height"])
	if codec == "" || w <= 0 || h <= 0 {
		return nil, errNotVips // a table of numbers, or nothing decodable
	}
	if loader == "heifload" {
		codec = "heic"
		if f["heif-compression"] == "av1" {
			codec = "avif"
		}
	}
	pages, _ := strconv.Atoi(f["n-pages"])
	if ph, _ := strconv.Atoi(f["page-height"]); ph > 0 && ph < h {
		h = ph // the pages of an animation are stacked in one image
	}
	s := Stream{Index: 0, CodecType: "video", CodecName: codec, Width: w, Height: h,
		PixFmt: vipsPixFmt(f, loader), Tags: map[string]string{}, Disposition: map[string]int{}}
	if r := map[string]string{"3": "180", "6": "90", "8": "270"}[f["orientation"]]; r != "" {
		s.Tags["rotate"] = r
	}
	format := Format{FormatName: codec, LongName: codec + " (read by libvips " + loader + ")",
		Size: strconv.FormatInt(size, 10), Tags: map[string]string{}}
	if pages > 1 {
		format.Tags["pages"] = strconv.Itoa(pages)
	}
	if delays := strings.Fields(f["delay"]); pages > 1 && len(delays) > 0 {
		// An animation: its frames, and its length from their delays (in
		// ms; 0 and very short ones play at 100 ms, as browsers do).
		ms := 0
		for _, d := range delays[:min(len(delays), pages)] {
			n, _ := strconv.Atoi(d)
			if n <= 10 {
				n = 100
			}
			ms += n
		}
		s.NbFrames = strconv.Itoa(pages)
		s.Duration = strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
		format.Duration = s.Duration
	} else {
		s.Disposition["still_image"] = 1
	}
	return &Probe{Format: format, Streams: []Stream{s}}, nil
}

// vipsPixFmt is the ffmpeg pixel format nearest to what libvips decodes.
// poppler draws a PDF's page on white: it has no transparency to keep.
func vipsPixFmt(f map[string]string, loader string) string {
	bands, _ := strconv.Atoi(f["bands"])
	deep := f["format"] != "uchar" && f["format"] != "char"
	cmyk := f["interpretation"] == "cmyk"
	alpha := (bands == 2 || bands == 4 && !cmyk || bands == 5) && loader != "pdfload"
	switch {
	case bands <= 2 && alpha:
		return map[bool]string{false: "ya8", true: "ya16le"}[deep]
	case bands <= 2:
		return map[bool]string{false: "gray", true: "gray16le"}[deep]
	case cmyk:
		return "cmyk"
	case alpha:
		return map[bool]string{false: "rgba", true: "rgba64le"}[deep]
	}
	return map[bool]string{false: "rgb24", true: "rgb48le"}[deep]
}
