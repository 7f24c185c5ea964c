package media

// The fast path for stills. Each tool started for a photo costs as much
// as the photo's own work (docs/performance.md, "Numbers behind the
// code"): at four starts a photo, 10 photos a second cannot be had on two
// cores. For a plain JPEG — what
// cameras and phones make — this file does the same without a start: the
// probe is read from the file's header in Go (StillProbe, answering what
// ffprobe answers of it) and the renditions are made by a Python helper
// kept running (stills.py, Pillow from Debian's python3-pil). Anything
// else, and any JPEG the helper cannot make, goes the general way
// (ProbeFile, vipsthumbnail). stills_test.go holds the two ways equal.

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/tool"
)

// errNotPlainJPEG: StillProbe leaves the file to ffprobe.
var errNotPlainJPEG = errors.New("media: not a plain JPEG")

// maxStillPixels bounds the fast path (a larger image goes to libvips,
// which streams it).
const maxStillPixels = 100_000_000

// jpegHeader is what a JPEG's markers before its first scan say.
type jpegHeader struct {
	sof        byte // the frame's marker: 0xC0 baseline, 0xC2 progressive
	precision  int
	width      int
	height     int
	sampling   []byte // each component's sampling factors (h<<4 | v)
	ids        []byte
	adobeRGB   bool // an Adobe APP14 segment saying its three components are not YCbCr
	iccProfile bool
}

// readJPEGHeader reads the markers up to the first frame header.
func readJPEGHeader(r *bufio.Reader) (*jpegHeader, error) {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil || soi != [2]byte{0xFF, 0xD8} {
		return nil, errNotPlainJPEG
	}
	h := &jpegHeader{}
	for {
		b, err := r.ReadByte()
		if err != nil {
			return nil, errNotPlainJPEG
		}
		if b != 0xFF {
			return nil, errNotPlainJPEG
		}
		m, err := r.ReadByte()
		for err == nil && m == 0xFF { // fill bytes
			m, err = r.ReadByte()
		}
		if err != nil {
			return nil, errNotPlainJPEG
		}
		if m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7) {
			continue // no length
		}
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, errNotPlainJPEG
		}
		n := int(l[0])<<8 | int(l[1]) - 2
		if n < 0 {
			return nil, errNotPlainJPEG
		}
		switch {
		case m == 0xC0 || m == 0xC2:
			seg := make([]byte, n)
			if _, err := io.ReadFull(r, seg); err != nil || n < 6 {
				return nil, errNotPlainJPEG
			}
			h.sof, h.precision = m, int(seg[0])
			h.height, h.width = int(seg[1])<<8|int(seg[2]), int(seg[3])<<8|int(seg[4])
			nc := int(seg[5])
			if n < 6+3*nc {
				return nil, errNotPlainJPEG
			}
			for i := range nc {
				h.ids = append(h.ids, seg[6+3*i])
				h.sampling = append(h.sampling, seg[7+3*i])
			}
			return h, nil
		case m >= 0xC1 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC, m == 0xDA:
			// Extended, lossless, hierarchical or arithmetic frames
			// (rare: left to ffprobe); a scan before any frame.
			return nil, errNotPlainJPEG
		case m == 0xE2 || m == 0xEE:
			seg := make([]byte, n)
			if _, err := io.ReadFull(r, seg); err != nil {
				return nil, errNotPlainJPEG
			}
			if m == 0xE2 && strings.HasPrefix(string(seg), "ICC_PROFILE\x00") {
				h.iccProfile = true
			}
			if m == 0xEE && strings.HasPrefix(string(seg), "Adobe") {
				h.adobeRGB = len(seg) >= 12 && seg[11] == 0
			}
		default:
			if _, err := r.Discard(n); err != nil {
				return nil, errNotPlainJPEG
			}
		}
	}
}

// pixFmt is the pixel format ffmpeg's decoder gives the frame ("" for
// what the fast path leaves alone).
func (h *jpegHeader) pixFmt() string {
	if h.precision != 8 {
		return ""
	}
	switch len(h.ids) {
	case 1:
		return "gray"
	case 3:
		if h.adobeRGB || string(h.ids) == "RGB" {
			return ""
		}
		// Sampling by the ratio of luma to chroma factors, as ffmpeg's
		// decoder sees it (ffmpeg itself writes 4:4:4 as 1x2 each).
		if h.sampling[1] != h.sampling[2] {
			return ""
		}
		yh, yv, ch, cv := h.sampling[0]>>4, h.sampling[0]&15, h.sampling[1]>>4, h.sampling[1]&15
		if ch == 0 || cv == 0 || yh%ch != 0 || yv%cv != 0 {
			return ""
		}
		switch [2]byte{yh / ch, yv / cv} {
		case [2]byte{1, 1}:
			return "yuvj444p"
		case [2]byte{2, 2}:
			return "yuvj420p"
		case [2]byte{2, 1}:
			return "yuvj422p"
		case [2]byte{1, 2}:
			return "yuvj440p"
		}
	}
	return ""
}

// StillProbe answers what ffprobe answers of a plain JPEG at path (8-bit
// YCbCr or greyscale, baseline or progressive, no colour profile, named
// .jpg or .jpeg: ffprobe reads it as an image2 sequence), read from its
// header in Go; errNotPlainJPEG for anything else.
func StillProbe(path string) (*Probe, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".jpg" && ext != ".jpeg" {
		return nil, errNotPlainJPEG
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h, err := readJPEGHeader(bufio.NewReader(f))
	if err != nil {
		return nil, err
	}
	pf := h.pixFmt()
	// A colour profile is left to libvips, which converts to sRGB.
	if pf == "" || h.iccProfile || h.width == 0 || h.height == 0 || h.width*h.height > maxStillPixels {
		return nil, errNotPlainJPEG
	}
	profile := map[byte]string{0xC0: "Baseline", 0xC2: "Progressive"}[h.sof]
	// image2 gives a still the duration of one frame at 25/s.
	const frame = 0.04
	s := Stream{Index: 0, CodecType: "video", CodecName: "mjpeg", Profile: profile, Width: h.width, Height: h.height,
		PixFmt: pf, RFrameRate: "25/1", AvgFrameRate: "25/1", ColorRange: "pc", ColorSpace: "bt470bg", Duration: "0.040000"}
	if pf == "gray" {
		s.ColorRange = "" // ffmpeg's greyscale has no full-range form
	}
	return &Probe{
		Format: Format{FormatName: "image2", LongName: "image2 sequence", Duration: "0.040000",
			Size: strconv.FormatInt(st.Size(), 10), BitRate: strconv.FormatInt(int64(float64(st.Size())*8/frame), 10)},
		Streams: []Stream{s},
	}, nil
}

// ProbeLocal probes a file: a plain JPEG from its header; an image ffmpeg
// cannot read or misreads (vipsFirst: HEIF, AVIF, PDF, SVG, animated WebP,
// JPEG XL) with libvips; anything else with ffprobe, then with libvips
// where ffprobe finds no media (a TIFF ffmpeg cannot decode, a format of
// ImageMagick's). A URL (the probe phase on S3) is ffprobe's alone:
// libvips reads files, and the run probes its local copy again.
func ProbeLocal(ctx context.Context, path string) (*Probe, error) {
	if p, err := StillProbe(path); err == nil {
		return p, nil
	}
	if !isLocal(path) {
		return ProbeFile(ctx, path)
	}
	if head, err := readHead(path, 1024); err == nil && vipsFirst(head) {
		if p, err := VipsProbe(ctx, path); err == nil || ctx.Err() != nil {
			return p, err
		}
	}
	p, err := ProbeFile(ctx, path)
	if errors.Is(err, ErrNotMedia) || err == nil && len(p.Streams) == 0 {
		if vp, verr := VipsProbe(ctx, path); verr == nil {
			return vp, nil
		}
	}
	return p, err
}

//go:embed stills.py
var stillsPy string

// RenditionSpec is one rendition to make.
type RenditionSpec struct {
	Path string // its format from the extension: .jpg, .webp
	Size int    // at most this many pixels on the longer side
	// Enlarge: exactly Size on the longer side (a vector image drawn at
	// the rendition's size), not at most.
	Enlarge bool
}

// Renditions makes outs from the image at in, each from the one before
// (the first from in), as Rendition makes one, and answers their sizes.
// A plain JPEG goes the fast way when the helper is there; any other
// image, or a failure of the fast way, the general one.
func Renditions(ctx context.Context, in string, outs []RenditionSpec) ([][2]int, error) {
	if _, err := StillProbe(in); err == nil {
		sizes, err := renditionsFast(ctx, in, outs)
		if err == nil || ctx.Err() != nil {
			return sizes, err
		}
	}
	return renditionsByVips(ctx, in, outs)
}

// renditionsByVips is the general way: vipsthumbnail for each, sizes read
// from the outputs' headers.
func renditionsByVips(ctx context.Context, in string, outs []RenditionSpec) ([][2]int, error) {
	sizes := make([][2]int, 0, len(outs))
	src := in
	for _, o := range outs {
		if err := tool.Run(ctx, tool.Cmd{Program: "vipsthumbnail", Args: renditionArgs(src, o)}); err != nil {
			return nil, err
		}
		w, h, err := ImageDims(o.Path)
		if err != nil {
			return nil, fmt.Errorf("vipsthumbnail made an unreadable image: %w", err)
		}
		sizes = append(sizes, [2]int{w, h})
		src = o.Path
	}
	return sizes, nil
}

// stillHelpers keeps up to one helper a core (each does one photo at a
// time).
var stillHelpers = tool.NewPool(runtime.GOMAXPROCS(0), func() (tool.Cmd, error) {
	py, err := tool.Python("PIL")
	if err != nil {
		return tool.Cmd{}, errNoHelper
	}
	return tool.Cmd{Program: py, Args: []string{"-c", stillsPy}, Name: "the still-image helper"}, nil
})

// errNoHelper: the helper cannot run here (no python3 with Pillow).
var errNoHelper = errors.New("media: the still-image helper cannot run (python3-pil is not installed)")

type stillRequest struct {
	In   string     `json:"in"`
	Outs []stillOut `json:"outs"`
}

type stillOut struct {
	Path    string `json:"path"`
	Size    int    `json:"size"`
	Format  string `json:"format"`
	Quality int    `json:"quality"`
}

// renditionsFast asks a still helper for outs.
func renditionsFast(ctx context.Context, in string, outs []RenditionSpec) ([][2]int, error) {
	req := stillRequest{In: in}
	for _, o := range outs {
		f := map[string]string{".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}[strings.ToLower(filepath.Ext(o.Path))]
		if f == "" {
			return nil, fmt.Errorf("media: the helper makes no %s", filepath.Ext(o.Path))
		}
		req.Outs = append(req.Outs, stillOut{Path: o.Path, Size: o.Size, Format: f, Quality: renditionQuality})
	}
	var a struct {
		Sizes [][2]int `json:"sizes"`
		Error string   `json:"error"`
	}
	if err := stillHelpers.Do(ctx, req, &a); err != nil {
		return nil, err
	}
	if a.Error != "" {
		return nil, fmt.Errorf("the still-image helper: %s", a.Error)
	}
	if len(a.Sizes) != len(outs) {
		return nil, errors.New("the still-image helper answered another number of images")
	}
	return a.Sizes, nil
}
