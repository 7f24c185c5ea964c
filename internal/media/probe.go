// Package media builds the commands of the media tools Loupe processes
// with — ffprobe and ffmpeg (Debian's ffmpeg package), vipsthumbnail
// (libvips-tools), ExifTool and a Pillow helper — and reads what they say;
// internal/tool runs them. It knows commands and their outputs, not items,
// jobs or storage: the processing pipeline (a later package) decides what
// to make and where it goes.
package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Probe is what ffprobe says of a file.
type Probe struct {
	Format  Format   `json:"format"`
	Streams []Stream `json:"streams"`
	// Warnings name the values ffprobe reported that were impossible and
	// were dropped (sanity.go).
	Warnings []string `json:"-"`
}

// Format is the container.
type Format struct {
	FormatName string            `json:"format_name"`
	LongName   string            `json:"format_long_name"`
	Duration   string            `json:"duration"`
	Size       string            `json:"size"`
	BitRate    string            `json:"bit_rate"`
	Tags       map[string]string `json:"tags"`
}

// Stream is one stream of the file.
type Stream struct {
	Index         int               `json:"index"`
	CodecType     string            `json:"codec_type"`
	CodecName     string            `json:"codec_name"`
	Profile       string            `json:"profile"`
	Width         int               `json:"width"`
	Height        int               `json:"height"`
	SampleAspect  string            `json:"sample_aspect_ratio"`
	PixFmt        string            `json:"pix_fmt"`
	RFrameRate    string            `json:"r_frame_rate"`
	AvgFrameRate  string            `json:"avg_frame_rate"`
	ColorSpace    string            `json:"color_space"`
	ColorTransfer string            `json:"color_transfer"`
	ColorPrims    string            `json:"color_primaries"`
	ColorRange    string            `json:"color_range"`
	Channels      int               `json:"channels"`
	ChannelLayout string            `json:"channel_layout"`
	SampleRate    string            `json:"sample_rate"`
	Duration      string            `json:"duration"`
	NbFrames      string            `json:"nb_frames"`
	BitRate       string            `json:"bit_rate"`
	Tags          map[string]string `json:"tags"`
	Disposition   map[string]int    `json:"disposition"`
	SideData      []map[string]any  `json:"side_data_list"`
}

// ErrNoStreams is the answer for a file in which ffprobe finds nothing to
// decode: ffprobe exits 0 on random bytes, so the streams decide.
var ErrNoStreams = errors.New("media: no audio, video or image stream")

// ErrNotMedia is ffprobe's answer for a file no demuxer recognises (a
// document, random bytes).
var ErrNotMedia = errors.New("media: not a media file ffmpeg recognises")

// ProbeArgv is the ffprobe command that ProbeFile runs.
func ProbeArgv(input string) []string {
	return []string{"ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", "--", input}
}

// ProbeFile runs ffprobe on input (a path or a URL ffmpeg can read).
func ProbeFile(ctx context.Context, input string) (*Probe, error) {
	argv := ProbeArgv(input)
	var out bytes.Buffer
	err := tool.Run(ctx, tool.Cmd{Program: argv[0], Args: argv[1:], Stdout: &out})
	var te *tool.Error
	if errors.As(err, &te) && strings.Contains(te.Stderr, "Invalid data found when processing input") {
		return nil, ErrNotMedia
	}
	if err != nil {
		return nil, err
	}
	var p Probe
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		return nil, fmt.Errorf("ffprobe: unreadable answer: %w", err)
	}
	p.sanitize()
	return &p, nil
}

// Kinds of media, as the streams make them.
const (
	KindVideo = "video"
	KindAudio = "audio"
	KindImage = "image"
	KindOther = "other"
)

// imageCodecs are video codecs that hold still images (and the names
// VipsProbe gives what libvips reads).
var imageCodecs = map[string]bool{
	"mjpeg": true, "png": true, "webp": true, "gif": true, "bmp": true, "tiff": true, "jpeg2000": true,
	"heif": true, "hevc_image": true, "av1_image": true, "targa": true, "ppm": true, "pgm": true, "psd": true,
	"apng": true, "svg": true, "pdf": true, "heic": true, "avif": true, "jpegxl": true, "exr": true, "fits": true,
	"hdr": true, "magick": true, "pbm": true, "pam": true, "pcx": true, "sgi": true, "sunrast": true, "xbm": true,
	"xpm": true, "xwd": true, "dds": true, "qoi": true, "openslide": true, "jpegls": true,
}

// animatedImageCodecs are image formats whose motion is an animation
// (an animated image: KindImage, its first frame the picture and a short
// proxy of its frames; docs/processing.md), never a video.
var animatedImageCodecs = map[string]bool{"gif": true, "apng": true, "webp": true}

// heifBrands are the ISO base media brands of HEIF and AVIF images:
// ffmpeg reads an AVIF as a one-frame AV1 "video" (a sequence, avis, as
// several) — still images (or an animation) all the same.
var heifBrands = map[string]bool{
	"heic": true, "heix": true, "heim": true, "heis": true, "hevc": true, "hevx": true, "mif1": true, "msf1": true,
	"avif": true, "avis": true,
}

// Kind classifies the file by its streams: a moving video stream makes
// video; else an audio stream makes audio (cover art aside); else a still
// or animated image makes an image; else other.
func (p *Probe) Kind() string {
	if p.Video() != nil {
		return KindVideo
	}
	if p.Audio() != nil {
		return KindAudio
	}
	for i := range p.Streams {
		if p.Streams[i].CodecType == "video" {
			return KindImage
		}
	}
	return KindOther
}

// Video is the first moving video stream (not cover art, not a still, not
// an animated image).
func (p *Probe) Video() *Stream {
	if heifBrands[p.Format.Tags["major_brand"]] {
		return nil
	}
	for i := range p.Streams {
		s := &p.Streams[i]
		if s.CodecType != "video" || s.Disposition["attached_pic"] == 1 || s.Disposition["still_image"] == 1 {
			continue
		}
		if animatedImageCodecs[s.CodecName] || imageCodecs[s.CodecName] && !p.moving(s) {
			continue
		}
		return s
	}
	return nil
}

// moving reports whether an image-codec stream is a motion sequence (MJPEG
// video): more than one frame or a duration.
func (p *Probe) moving(s *Stream) bool {
	if n, _ := strconv.Atoi(s.NbFrames); n > 1 {
		return true
	}
	d := parseFloat(s.Duration)
	return d > 0.5 && !strings.Contains(p.Format.FormatName, "image2") && !strings.HasSuffix(p.Format.FormatName, "_pipe")
}

// Audio is the first audio stream.
func (p *Probe) Audio() *Stream {
	for i := range p.Streams {
		if p.Streams[i].CodecType == "audio" {
			return &p.Streams[i]
		}
	}
	return nil
}

// AudioStreams are the audio streams, in order.
func (p *Probe) AudioStreams() []*Stream {
	var out []*Stream
	for i := range p.Streams {
		if p.Streams[i].CodecType == "audio" {
			out = append(out, &p.Streams[i])
		}
	}
	return out
}

// Duration is the container's duration in seconds (0 when unknown).
func (p *Probe) Duration() float64 {
	if d := parseFloat(p.Format.Duration); d > 0 {
		return d
	}
	for _, s := range p.Streams {
		if d := parseFloat(s.Duration); d > 0 {
			return d
		}
	}
	return 0
}

// Rotation is the display rotation of s in degrees clockwise (0, 90, 180,
// 270), from its display matrix or rotate tag.
func (s *Stream) Rotation() int {
	deg := 0.0
	for _, sd := range s.SideData {
		if r, ok := sd["rotation"].(float64); ok {
			deg = -r // the display matrix turns counter-clockwise
		}
	}
	if r, ok := s.Tags["rotate"]; ok {
		deg = parseFloat(r)
	}
	return ((int(math.Round(deg/90))*90)%360 + 360) % 360
}

// DisplaySize is the size the picture is shown at: rotation and sample
// aspect applied.
func (s *Stream) DisplaySize() (w, h int) {
	w, h = s.Width, s.Height
	if num, den, ok := ratio(s.SampleAspect); ok && num > 0 && den > 0 && num != den {
		w = int(math.Round(float64(w) * float64(num) / float64(den)))
	}
	if r := s.Rotation(); r == 90 || r == 270 {
		w, h = h, w
	}
	return w, h
}

// FrameRate is the stream's average frame rate (0 when unknown).
func (s *Stream) FrameRate() float64 {
	if num, den, ok := ratio(s.AvgFrameRate); ok && den > 0 && num > 0 {
		return float64(num) / float64(den)
	}
	if num, den, ok := ratio(s.RFrameRate); ok && den > 0 {
		return float64(num) / float64(den)
	}
	return 0
}

// VFR reports a variable frame rate: the average differs from the base
// rate by more than 1 %.
func (s *Stream) VFR() bool {
	rn, rd, ok1 := ratio(s.RFrameRate)
	an, ad, ok2 := ratio(s.AvgFrameRate)
	if !ok1 || !ok2 || rd == 0 || ad == 0 || an == 0 {
		return false
	}
	r, a := float64(rn)/float64(rd), float64(an)/float64(ad)
	return math.Abs(r-a)/r > 0.01
}

// HDR reports a PQ or HLG transfer (HDR10, HLG).
func (s *Stream) HDR() bool {
	return s.ColorTransfer == "smpte2084" || s.ColorTransfer == "arib-std-b67"
}

func ratio(s string) (num, den int64, ok bool) {
	a, b, found := strings.Cut(s, "/")
	if !found {
		a, b, found = strings.Cut(s, ":")
	}
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.ParseInt(a, 10, 64)
	d, err2 := strconv.ParseInt(b, 10, 64)
	return n, d, err1 == nil && err2 == nil
}

func parseFloat(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
