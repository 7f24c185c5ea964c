package media

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
)

// Interlaced video: the stream's field-order flag says what the encoder was
// told, which is not always what the pictures are (a 25i master encoded as
// "progressive", a 25PsF film flagged "tt"). ffmpeg's idet filter looks at
// the pictures: a bounded sample of frames decides where it can, the flag
// where it cannot (a static picture shows no combing either way).

// Field orders as Loupe reports them (technicalMetadata.video.fieldOrder).
const (
	FieldTFF         = "tff"
	FieldBFF         = "bff"
	FieldProgressive = "progressive"
	FieldUnknown     = "unknown"
)

// How the field order was determined.
const (
	ScanByFlag   = "flag"   // the stream's field_order
	ScanByIdet   = "idet"   // ffmpeg's idet on a sample of frames
	ScanByFormat = "format" // the size or rate exists only progressive (720p, above 1080 lines, above 30 frames/s)
)

// IdetFrames is the sample idet looks at: 60 frames (2.4 s of 25i), from
// the keyframe at or before IdetFrom seconds in (past a black or static
// opening; not the exact time, which would decode the GOP before it too).
// The decode of the sample is its cost (idet itself is a tenth of it):
// ~0.6 s of CPU for 1080p H.264 here, ~2 % of its proxy's
// (docs/processing.md).
const (
	IdetFrames = 60
	IdetFrom   = 3.0
)

// ScanFacts are a video stream's interlacing, as measured or flagged.
type ScanFacts struct {
	FieldOrder string `json:"fieldOrder"` // tff, bff, progressive, unknown
	Source     string `json:"source"`     // flag, idet, format
	// Flag is the stream's own field_order ("" when it has none).
	Flag string `json:"flag,omitempty"`
	// Idet are idet's multi-frame verdicts on the sample (nil: not run).
	Idet *IdetCounts `json:"idet,omitempty"`
}

// Interlaced reports whether the proxy deinterlaces.
func (f *ScanFacts) Interlaced() bool {
	return f != nil && (f.FieldOrder == FieldTFF || f.FieldOrder == FieldBFF)
}

// IdetCounts are idet's multi-frame verdicts: frames found combed top
// field first, bottom field first, progressive, or undetermined (static).
type IdetCounts struct {
	TFF          int `json:"tff"`
	BFF          int `json:"bff"`
	Progressive  int `json:"progressive"`
	Undetermined int `json:"undetermined"`
}

// flagFieldOrder is the stream's field_order flag as a field order: tb and
// bt are coded one way and shown the other, and the display order is what
// a deinterlacer needs.
func flagFieldOrder(flag string) string {
	switch flag {
	case "tt", "bt":
		return FieldTFF
	case "bb", "tb":
		return FieldBFF
	case "progressive":
		return FieldProgressive
	}
	return FieldUnknown
}

// mayBeInterlaced reports whether s has a size and rate interlaced video
// exists in (SD and 1080-line, at most 30 frames a second): only those get
// idet's sample. 720-line video is progressive in every standard; a turned
// picture (a display matrix) is a phone's, and phones record progressive.
func mayBeInterlaced(s *Stream) bool {
	h := min(s.Width, s.Height)
	if h == 0 || h > 1088 || (h >= 700 && h <= 760) || s.Rotation() != 0 {
		return false
	}
	f := s.FrameRate()
	return f <= 0 || f <= ProxyMaxFPS+0.5
}

// scanOf decides the field order of s from its flag and idet's counts (nil:
// idet not run): idet wins where it saw enough moving frames, the flag
// otherwise.
func scanOf(s *Stream, idet *IdetCounts) *ScanFacts {
	f := &ScanFacts{Flag: s.FieldOrder, Idet: idet, FieldOrder: flagFieldOrder(s.FieldOrder), Source: ScanByFlag}
	if order := idet.verdict(); order != "" {
		f.FieldOrder, f.Source = order, ScanByIdet
		return f
	}
	if f.FieldOrder == FieldUnknown && !mayBeInterlaced(s) {
		f.FieldOrder, f.Source = FieldProgressive, ScanByFormat
	}
	return f
}

// verdict is the field order idet's counts show ("" when they do not
// say). Judged frames must be at least 20 and a third of the sample, else
// the picture was too static to say. Interlaced when at least a quarter of
// them were combed, at least 80 % of those in one order: a real field
// order is one order, while fine detail in fast motion can fool idet into
// both (lavfi's testsrc2 at SD sizes: 38 TFF, 25 BFF, 12 progressive of
// 75 progressive frames over 3 s — though 41 TFF of 50 over its first 2 s:
// no rule on a sample tells every such picture from interlace, and a
// progressive picture deinterlaced loses a little vertical detail in
// motion where a missed interlace keeps its combing). Progressive when
// under a quarter were combed. Combing split between the orders is no
// verdict: the flag decides.
func (c *IdetCounts) verdict() string {
	if c == nil {
		return ""
	}
	combed := c.TFF + c.BFF
	judged := combed + c.Progressive
	switch {
	case judged < 20 || judged*3 < judged+c.Undetermined:
		return ""
	case combed*4 < judged:
		return FieldProgressive
	case c.TFF*5 >= combed*4:
		return FieldTFF
	case c.BFF*5 >= combed*4:
		return FieldBFF
	}
	return ""
}

// IdetArgs are ffmpeg's arguments for idet on IdetFrames frames of video
// stream ordinal from the keyframe at or before `from` seconds, its
// per-frame verdicts printed to stdout (parseIdet reads the last).
func IdetArgs(in string, ordinal int, from float64) []string {
	return []string{"-noaccurate_seek", "-ss", strconv.FormatFloat(from, 'f', 3, 64), "-i", in, "-map", "0:v:" + strconv.Itoa(ordinal),
		"-an", "-sn", "-dn", "-frames:v", strconv.Itoa(IdetFrames),
		"-vf", "idet,metadata=mode=print:file=-", "-f", "null", "-"}
}

// idetFrom is where the sample starts: IdetFrom seconds in when the video
// is long enough to leave the whole sample after it, else the start.
func idetFrom(s *Stream, duration float64) float64 {
	need := float64(IdetFrames) / math.Max(s.FrameRate(), 1)
	if duration >= IdetFrom+need {
		return IdetFrom
	}
	return 0
}

// parseIdet reads idet's cumulative multi-frame counts from its metadata
// printout (the last frame's hold the whole sample's); nil when it said
// nothing (no frame decoded).
func parseIdet(r io.Reader) *IdetCounts {
	var c IdetCounts
	seen := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || !strings.HasPrefix(k, "lavfi.idet.multiple.") {
			continue
		}
		n := int(math.Round(parseFloat(v)))
		switch strings.TrimPrefix(k, "lavfi.idet.multiple.") {
		case "tff":
			c.TFF, seen = n, true
		case "bff":
			c.BFF = n
		case "progressive":
			c.Progressive = n
		case "undetermined":
			c.Undetermined = n
		}
	}
	if !seen {
		return nil
	}
	return &c
}

// Scan is the stream's interlacing: as measured, else from its flag alone.
func (s *Stream) Scan() *ScanFacts {
	if s.Facts != nil && s.Facts.Scan != nil {
		return s.Facts.Scan
	}
	return scanOf(s, nil)
}

// deinterlace is the proxy's deinterlacer for s (none when progressive):
// bwdif, motion adaptive, one frame per frame (send_frame) in the field
// order found, every frame (a flag that lies is why idet ran). Field rate
// (send_field) would make 50p of 25i only for the proxy's 30 fps cap to
// drop every other frame again: twice bwdif's work for the same proxy.
// It comes first: any vertical scaling before it mixes the two fields.
func deinterlace(s *Stream) []string {
	f := s.Scan()
	if !f.Interlaced() {
		return nil
	}
	parity := "tff"
	if f.FieldOrder == FieldBFF {
		parity = "bff"
	}
	return []string{"bwdif=mode=send_frame:parity=" + parity + ":deint=all"}
}
