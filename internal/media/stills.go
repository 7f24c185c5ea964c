package media

// The fast path for stills. A photo's own work is a tenth of a second, but
// each tool started for it costs as much again here (ffprobe 0.15 s,
// vipsthumbnail 0.1 s, before any pixel): at four starts a photo, 10
// photos a second cannot be had on two cores. For a plain JPEG — what
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
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

// ProbeLocal probes a local file: a plain JPEG from its header, anything
// else with ffprobe.
func ProbeLocal(ctx context.Context, path string) (*Probe, error) {
	if p, err := StillProbe(path); err == nil {
		return p, nil
	}
	return ProbeFile(ctx, path)
}

//go:embed stills.py
var stillsPy string

// RenditionSpec is one rendition to make.
type RenditionSpec struct {
	Path string // its format from the extension: .jpg, .webp
	Size int    // at most this many pixels on the longer side
}

// Renditions makes outs from the image at in, each from the one before
// (the first from in), as Rendition makes one, and answers their sizes.
// A plain JPEG goes the fast way when the helper is there; any other
// image, or a failure of the fast way, the general one.
func Renditions(ctx context.Context, in string, outs []RenditionSpec) ([][2]int, error) {
	if _, err := StillProbe(in); err == nil {
		sizes, err := stillHelpers.render(ctx, in, outs)
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
		if err := Rendition(ctx, src, o.Path, o.Size); err != nil {
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
// time), started on first use; a helper whose request was cancelled or
// that broke is stopped and another started for the next.
var stillHelpers = &helperPool{idle: make(chan *kept, runtime.GOMAXPROCS(0)), slots: make(chan struct{}, runtime.GOMAXPROCS(0))}

type helperPool struct {
	slots chan struct{} // one per helper running or being started
	idle  chan *kept

	mu          sync.Mutex
	unavailable time.Time // when the helper last could not start
}

// errNoHelper: the helper cannot run here (no python3 with Pillow and
// WebP); asked again after a minute (the package may be installed since).
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

// render asks a helper for outs.
func (p *helperPool) render(ctx context.Context, in string, outs []RenditionSpec) ([][2]int, error) {
	req := stillRequest{In: in}
	for _, o := range outs {
		f := map[string]string{".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}[strings.ToLower(filepath.Ext(o.Path))]
		if f == "" {
			return nil, fmt.Errorf("media: the helper makes no %s", filepath.Ext(o.Path))
		}
		req.Outs = append(req.Outs, stillOut{Path: o.Path, Size: o.Size, Format: f, Quality: renditionQuality})
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	h, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	type answer struct {
		Sizes [][2]int `json:"sizes"`
		Error string   `json:"error"`
	}
	got := make(chan error, 1)
	var a answer
	go func() {
		_, err := h.in.Write(append(line, '\n'))
		if err == nil {
			var l string
			if l, err = h.out.ReadString('\n'); err == nil {
				err = json.Unmarshal([]byte(l), &a)
			}
		}
		got <- err
	}()
	select {
	case err = <-got:
	case <-ctx.Done():
		h.stop() // the request cannot be taken back
		<-got
		p.drop()
		return nil, ctx.Err()
	}
	if err != nil {
		h.stop()
		p.drop()
		return nil, fmt.Errorf("the still-image helper: %w", err)
	}
	p.idle <- h
	if a.Error != "" {
		return nil, fmt.Errorf("the still-image helper: %s", a.Error)
	}
	if len(a.Sizes) != len(outs) {
		return nil, errors.New("the still-image helper answered another number of images")
	}
	return a.Sizes, nil
}

// take answers an idle helper, or starts one while fewer than the slots
// run, or waits.
func (p *helperPool) take(ctx context.Context) (*kept, error) {
	select {
	case h := <-p.idle:
		return h, nil
	default:
	}
	select {
	case h := <-p.idle:
		return h, nil
	case p.slots <- struct{}{}:
		h, err := p.start()
		if err != nil {
			p.drop()
			return nil, err
		}
		return h, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// drop gives up a helper's slot.
func (p *helperPool) drop() { <-p.slots }

func (p *helperPool) start() (*kept, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.unavailable) < time.Minute {
		return nil, errNoHelper
	}
	// Debian's python3, the one python3-pil is built for (a python3
	// earlier on PATH, pyenv's or a virtualenv's, usually lacks it).
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			p.unavailable = time.Now()
			return nil, errNoHelper
		}
	}
	h, err := startKept(py, "-c", stillsPy)
	if err != nil {
		p.unavailable = time.Now()
		return nil, errNoHelper
	}
	// What it says on stderr (Pillow warns of odd EXIF, once a photo) is
	// read and dropped: a full pipe would stop it mid-photo.
	go io.Copy(io.Discard, h.errOut) //nolint:errcheck // ends when the helper does
	ready := make(chan error, 1)
	go func() {
		l, err := h.out.ReadString('\n')
		if err == nil && strings.TrimSpace(l) != `{"ready": true}` {
			err = errors.New(l)
		}
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-time.After(30 * time.Second):
		err = errors.New("no word in 30 s")
	}
	if err != nil {
		h.stop()
		p.unavailable = time.Now()
		return nil, errNoHelper
	}
	return h, nil
}
