package media

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Timecode is a SMPTE timecode: a label per frame, counted at the nominal
// rate (30 for 29.97, 60 for 59.94, 24 for 23.976) from midnight, with
// drop-frame numbering at 29.97 and 59.94 where the source says so (a ";"
// before the frames). docs/processing.md, "Timecode", says how a client
// converts a position to a timecode.
type Timecode struct {
	Hours, Minutes, Seconds, Frames int
	// DropFrame: frame labels 0 and 1 (4 at 59.94) are skipped at the
	// start of each minute but every tenth, so that the labels keep to the
	// clock at 30000/1001 frames a second.
	DropFrame bool
	// Nominal is the frames a timecode second counts (30 for 29.97).
	Nominal int
}

// ParseTimecode reads "hh:mm:ss:ff" (or "hh:mm:ss;ff", drop-frame) at a
// frame rate of rate frames a second.
func ParseTimecode(s string, rate float64) (Timecode, error) {
	s = strings.TrimSpace(s)
	tc := Timecode{Nominal: nominalRate(rate), DropFrame: strings.ContainsAny(s, ";,.")}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ';' || r == ',' || r == '.' })
	if len(parts) != 4 {
		return Timecode{}, fmt.Errorf("timecode %q is not hh:mm:ss:ff", s)
	}
	vals := make([]int, 4)
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Timecode{}, fmt.Errorf("timecode %q is not hh:mm:ss:ff", s)
		}
		vals[i] = v
	}
	tc.Hours, tc.Minutes, tc.Seconds, tc.Frames = vals[0], vals[1], vals[2], vals[3]
	if tc.Nominal <= 0 || tc.Hours > 23 || tc.Minutes > 59 || tc.Seconds > 59 || tc.Frames >= tc.Nominal {
		return Timecode{}, fmt.Errorf("timecode %q does not fit %g frames a second", s, rate)
	}
	if tc.DropFrame && tc.Nominal%30 != 0 {
		tc.DropFrame = false // drop-frame exists at 29.97 and 59.94 only
	}
	return tc, nil
}

// nominalRate is the frames a timecode second counts at rate (23.976 →
// 24, 29.97 → 30, 59.94 → 60).
func nominalRate(rate float64) int { return int(math.Round(rate)) }

// dropped is how many labels drop-frame skips a minute (2 at 29.97).
func (t Timecode) dropped() int {
	if !t.DropFrame {
		return 0
	}
	return t.Nominal / 15
}

// FrameNumber is the frame the label names, counted from 00:00:00:00.
func (t Timecode) FrameNumber() int64 {
	n := int64(t.Nominal)
	frames := ((int64(t.Hours)*60+int64(t.Minutes))*60+int64(t.Seconds))*n + int64(t.Frames)
	if d := int64(t.dropped()); d > 0 {
		minutes := int64(t.Hours)*60 + int64(t.Minutes)
		frames -= d * (minutes - minutes/10)
	}
	return frames
}

// TimecodeOfFrame is the label of frame number frames (from 00:00:00:00)
// in t's numbering; it wraps at 24 hours.
func (t Timecode) TimecodeOfFrame(frames int64) Timecode {
	n := int64(t.Nominal)
	if d := int64(t.dropped()); d > 0 {
		perMinute := n*60 - d
		perTen := perMinute*10 + d
		tens, rest := frames/perTen, frames%perTen
		frames += 9 * d * tens
		if rest > d {
			frames += d * ((rest - d) / perMinute)
		}
	}
	frames %= 24 * 3600 * n
	out := t
	out.Frames = int(frames % n)
	out.Seconds = int(frames / n % 60)
	out.Minutes = int(frames / (n * 60) % 60)
	out.Hours = int(frames / (n * 3600))
	return out
}

// Add is the label of the frame count frames after t.
func (t Timecode) Add(frames int64) Timecode { return t.TimecodeOfFrame(t.FrameNumber() + frames) }

// String writes the label, ";" before the frames when drop-frame.
func (t Timecode) String() string {
	sep := ":"
	if t.DropFrame {
		sep = ";"
	}
	return fmt.Sprintf("%02d:%02d:%02d%s%02d", t.Hours, t.Minutes, t.Seconds, sep, t.Frames)
}

// StartTimecode is the timecode of the first frame — a QuickTime tmcd
// track's, MXF's material package's, an MPEG-2 GOP header's (ffprobe's
// timecode tags) — at the video's frame rate; false when the file has
// none, or one that does not fit its rate.
func (p *Probe) StartTimecode() (Timecode, bool) {
	v := p.Video()
	if v == nil {
		return Timecode{}, false
	}
	tags := []map[string]string{p.Format.Tags, v.Tags}
	for _, s := range p.Streams {
		tags = append(tags, s.Tags)
	}
	for _, tg := range tags {
		if s := tg["timecode"]; s != "" {
			if tc, err := ParseTimecode(s, v.FrameRate()); err == nil {
				return tc, true
			}
		}
	}
	return Timecode{}, false
}

// TimecodeArgs are the muxer's arguments that give an MP4 proxy the
// source's timecode as a tmcd track, at the proxy's rate (fps, as in
// ProxyArgs): the label of the proxy's first frame is the source's, its
// frames field rescaled where the proxy's rate is lower (50 → 25).
func TimecodeArgs(p *Probe, fps string) []string {
	tc, ok := p.StartTimecode()
	if !ok {
		return nil
	}
	rate := fpsValue(fps)
	out := tc
	out.Nominal = nominalRate(rate)
	out.Frames = tc.Frames * out.Nominal / tc.Nominal
	out.DropFrame = tc.DropFrame && out.Nominal%30 == 0
	if d := out.dropped(); d > 0 && out.Seconds == 0 && out.Minutes%10 != 0 && out.Frames < d {
		out.Frames = d // labels drop-frame skips: the next one
	}
	return []string{"-timecode", out.String(), "-write_tmcd", "1"}
}
