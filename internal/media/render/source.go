package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/tool"
)

// source is a clip's source as the graph needs it.
type source struct {
	// input is ffmpeg's input: its options and the -i argument (no -ss,
	// which each clip adds).
	input []string
	// video is the picture (nil: none); audio the audio streams, in order.
	video *videoStream
	audio []audioStream
	// origin is the timestamp In and Out count from, in seconds as the
	// file has it (the graph sees the file's own timestamps: -copyts):
	// the video stream's start; the container's without video. start is
	// the container's start, which -ss counts from.
	origin, start float64
	// rate is the rate In and Out count at (the video's; 0 for a source
	// without video, whose clips count at the profile's rate).
	rate Rational
	// seconds is the source's length after origin (0: unknown); frames
	// is its length in frames of rate, when the headers say it.
	seconds float64
	frames  int64
	// seekable: ffmpeg's input seek lands on a keyframe at or before the
	// point asked (an indexed container); else every clip of it is
	// decoded from the start.
	seekable bool
	// url is the source as ffmpeg reads it (a file: URL or http(s)),
	// remote whether it is http(s); format is the demuxer's name as
	// ffprobe says it ("mov,mp4,m4a,3gp,3g2,mj2"). The stream copy's
	// checks read them (copy.go).
	url    string
	remote bool
	format string
}

// seekableFormats are the demuxers whose seek lands on a keyframe at or
// before the point asked, from an index: MPEG-TS seeks by a binary search
// on timestamps and lands on whatever frame is there (with one keyframe a
// GOP, nothing decodes until the next), AVI's B-frame timing is off by
// frames.
var seekableFormats = map[string]bool{"mov": true, "mp4": true, "matroska": true, "webm": true, "mxf": true}

type videoStream struct {
	ordinal int // among the video streams: v:ordinal
	// width, height are the picture as shown (rotation and sample
	// aspect applied).
	width, height int
	// matrix is the source's YUV matrix, as scale's in_color_matrix.
	matrix string
	// index is the stream's index in the file (0:<index>); probed is
	// what ffprobe says of it; interlaced whether any of the first
	// frames decoded is (the stream copy's checks, copy.go).
	index      int
	probed     media.Stream
	interlaced bool
}

type audioStream struct {
	channels int
}

// framesAt is the source's length in frames of r (0: unknown).
func (s *source) framesAt(r Rational) int64 {
	if s.frames > 0 && r == s.rate {
		return s.frames
	}
	if s.seconds > 0 {
		return int64(math.Round(s.seconds * r.Float()))
	}
	return 0
}

// inputOf is ffmpeg's input for a source given to Plan: an http(s) URL as
// it is (reconnecting), anything else a local file, given to ffmpeg as an
// absolute file: URL so that no name is taken for a protocol or an option.
func inputOf(src string) (ffmpegIn string, opts []string, err error) {
	lower := strings.ToLower(src)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return src, []string{"-reconnect", "1"}, nil
	}
	if src == "" {
		return "", nil, errors.New("the source is empty")
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", nil, errors.New("the source file is not there")
	}
	if !fi.Mode().IsRegular() {
		return "", nil, errors.New("the source is not a file")
	}
	return "file:" + abs, nil, nil
}

// probeSource reads what the graph needs of src (a path or an http(s)
// URL): media.ProbeFile for its streams, and a second ffprobe for the
// start times media.Probe does not carry.
func probeSource(ctx context.Context, src string) (*source, error) {
	in, opts, err := inputOf(src)
	if err != nil {
		return nil, err
	}
	p, err := media.ProbeFile(ctx, in)
	if err != nil {
		return nil, scrub(err, src, in)
	}
	v := p.Video()
	if v == nil && p.Audio() == nil {
		if p.Kind() == media.KindImage {
			return nil, errors.New("the source is a still image, not video or audio")
		}
		return nil, errors.New("the source has neither video nor audio")
	}
	vOrdinal := -1
	if v != nil {
		vOrdinal = ordinal(p, v, "video")
	}
	starts, err := probeStarts(ctx, in, vOrdinal)
	if err != nil {
		return nil, scrub(err, src, in)
	}
	s := &source{input: append(opts, "-i", in), url: in, remote: len(opts) > 0, format: p.Format.FormatName}
	for _, name := range strings.Split(p.Format.FormatName, ",") {
		s.seekable = s.seekable || seekableFormats[name]
	}
	s.start = parseFloat(starts.Format.StartTime)
	s.origin = s.start
	total := p.Duration()
	if v != nil {
		s.video = &videoStream{ordinal: vOrdinal, matrix: matrixOf(v), index: v.Index, probed: *v, interlaced: starts.interlaced()}
		s.video.width, s.video.height = v.DisplaySize()
		if s.video.width <= 0 || s.video.height <= 0 {
			return nil, errors.New("the source's video has no picture size")
		}
		first, ok := starts.firstFrame()
		if !ok {
			return nil, errors.New("the source's video has no frame ffmpeg can decode at its start")
		}
		s.origin = first
		s.rate = rateOf(v)
		if !s.rate.valid() {
			return nil, errors.New("the source's video has no frame rate")
		}
		if d := parseFloat(v.Duration); d > 0 {
			s.seconds = d
		} else if total > 0 {
			s.seconds = math.Max(0, total-(s.origin-s.start))
		}
		// The header's frame count, unless the duration belies it (AVI
		// counts the empty frames of packed B-frames).
		timed := int64(math.Round(s.seconds * s.rate.Float()))
		if n, _ := strconv.ParseInt(v.NbFrames, 10, 64); n > 0 && (s.seconds == 0 || math.Abs(float64(n-timed)) <= 1+0.01*float64(timed)) {
			s.frames = n
		} else {
			s.frames = timed
		}
	} else {
		s.seconds = total
	}
	for _, a := range p.AudioStreams() {
		s.audio = append(s.audio, audioStream{channels: a.Channels})
	}
	return s, nil
}

// ordinal is st's position among p's streams of its type (the -map index).
func ordinal(p *media.Probe, st *media.Stream, codecType string) int {
	n := 0
	for i := range p.Streams {
		if &p.Streams[i] == st {
			return n
		}
		if p.Streams[i].CodecType == codecType {
			n++
		}
	}
	return 0
}

// rateOf is a video stream's frame rate: its base rate (r_frame_rate,
// exact: 30000/1001) where the average agrees within 1 %, else the lower
// of the two: the base rate of interlaced H.264 in MPEG-TS is its field
// rate, and a variable stream's a multiple of its rates, while AVI's
// average counts the empty frames of packed B-frames.
func rateOf(v *media.Stream) Rational {
	r, rok := parseRational(v.RFrameRate)
	a, aok := parseRational(v.AvgFrameRate)
	switch {
	case rok && aok && math.Abs(r.Float()-a.Float()) <= 0.01*r.Float():
		return r
	case rok && aok && r.Float() < a.Float():
		return r
	case aok:
		return snapRational(a)
	case rok:
		return r
	}
	return Rational{}
}

// snapRational brings an average rate within 0.1 % of a common one to it
// (an average over a whole file is rarely exact).
func snapRational(r Rational) Rational {
	for _, c := range []Rational{{24000, 1001}, {24, 1}, {25, 1}, {30000, 1001}, {30, 1}, {48, 1}, {50, 1},
		{60000, 1001}, {60, 1}, {100, 1}, {120000, 1001}, {120, 1}} {
		if math.Abs(r.Float()-c.Float()) <= 0.001*c.Float() {
			return c
		}
	}
	return r.reduced()
}

func parseRational(s string) (Rational, bool) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Rational{}, false
	}
	n, err1 := strconv.Atoi(a)
	d, err2 := strconv.Atoi(b)
	r := Rational{n, d}
	if err1 != nil || err2 != nil || !r.valid() {
		return Rational{}, false
	}
	return r.reduced(), true
}

// matrixOf is the YUV matrix the source's picture is in, as scale's
// in_color_matrix: as tagged, else by its size (HD and up BT.709, SD
// BT.601), as players guess.
func matrixOf(v *media.Stream) string {
	switch v.ColorSpace {
	case "bt709":
		return "bt709"
	case "smpte170m", "bt470bg":
		return "bt601"
	case "bt2020nc", "bt2020c":
		return "bt2020"
	case "smpte240m":
		return "smpte240m"
	case "fcc":
		return "fcc"
	}
	if v.Width >= 1280 || v.Height >= 720 {
		return "bt709"
	}
	return "bt601"
}

// starts is what the start probe says: the container's start time and
// the first video frames' times as decoded.
type starts struct {
	Format struct {
		StartTime string `json:"start_time"`
	} `json:"format"`
	Frames []struct {
		Time       string `json:"best_effort_timestamp_time"`
		Interlaced int    `json:"interlaced_frame"`
	} `json:"frames"`
}

// interlaced reports whether any frame decoded is interlaced.
func (s *starts) interlaced() bool {
	for _, f := range s.Frames {
		if f.Interlaced != 0 {
			return true
		}
	}
	return false
}

// firstFrame is the earliest time of the frames decoded (false: none).
func (s *starts) firstFrame() (float64, bool) {
	first, ok := 0.0, false
	for _, f := range s.Frames {
		t, err := strconv.ParseFloat(f.Time, 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		if !ok || t < first {
			first, ok = t, true
		}
	}
	return first, ok
}

// probeStarts reads the container's start time and, for video stream
// ordinal (-1: none), the time of its first frame as ffmpeg decodes it:
// the time of frame 0, which a stream's start time is not always (AVI's
// packed B-frames show their first frame a frame late). It decodes the
// first few packets only.
func probeStarts(ctx context.Context, in string, ordinal int) (*starts, error) {
	args := []string{"-v", "error", "-print_format", "json", "-show_entries", "format=start_time"}
	if ordinal >= 0 {
		args = []string{"-v", "error", "-print_format", "json", "-show_entries",
			"format=start_time:frame=best_effort_timestamp_time,interlaced_frame", "-select_streams", "v:" + strconv.Itoa(ordinal),
			"-read_intervals", "%+#5"}
	}
	var out bytes.Buffer
	err := tool.Run(ctx, tool.Cmd{Program: "ffprobe", Args: append(args, "--", in), Stdout: &out})
	if err != nil {
		return nil, err
	}
	var s starts
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("ffprobe: unreadable answer: %w", err)
	}
	return &s, nil
}

func parseFloat(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// scrub takes the source's name out of err's message (a presigned URL
// carries its signature), saying "the source" instead.
func scrub(err error, names ...string) error {
	msg := err.Error()
	for _, n := range names {
		if n != "" {
			msg = strings.ReplaceAll(msg, n, "the source")
		}
	}
	if errors.Is(err, media.ErrNotMedia) {
		return media.ErrNotMedia
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errors.New(msg)
}
