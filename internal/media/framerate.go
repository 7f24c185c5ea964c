package media

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The proxy's frame rate comes from the stream's frame timestamps, not its
// average: a clip of 24, 60 and 12 fps sections averages 32.6 fps, which
// the old rule halved to 16, below two of its three sections. The
// timestamps give the sections and their rates; the proxy takes the
// fastest section's rate brought under the cap, so no section of at most
// 30 fps loses a frame (docs/processing.md, "Frame rate").

// How much of the stream's timestamps are read: all of them up to
// RateWholeSeconds (reading packets demuxes without decoding: 0.1 s of CPU
// for a minute of 1080p H.264 here), else RateWindows windows of
// RateWindowSeconds spread over the file.
const (
	RateWholeSeconds  = 120.0
	RateWindows       = 8
	RateWindowSeconds = 5.0
)

// A section is a run of frames at one cadence lasting at least
// sectionMinSeconds and sectionMinFrames; shorter runs (a dropped frame, a
// hiccup) do not set the rate. Frames further apart than sectionGap are a
// pause, or the join of two windows.
const (
	sectionMinSeconds = 0.5
	sectionMinFrames  = 4
	sectionGap        = 1.0
)

// RateFacts are a video stream's frame rates as its timestamps show them.
type RateFacts struct {
	// Source is "timestamps" (measured) or "stream" (the headers').
	Source string `json:"source"`
	// Nominal is the stream's r_frame_rate, Average its avg_frame_rate.
	Nominal float64 `json:"nominal"`
	Average float64 `json:"average"`
	// Dominant is the rate of the sections covering the most time;
	// Slowest and Fastest bound the sections' rates.
	Dominant float64 `json:"dominant,omitempty"`
	Slowest  float64 `json:"slowest,omitempty"`
	Fastest  float64 `json:"fastest,omitempty"`
	// Variable: sections at more than one rate, or much of the time at no
	// steady rate at all.
	Variable bool `json:"variable"`
	// Sections in time order (at most maxSections, the longest).
	Sections []RateSection `json:"sections,omitempty"`
	// SampledSeconds is the time the timestamps read cover.
	SampledSeconds float64 `json:"sampledSeconds,omitempty"`
	// Proxy is the proxy's frame rate (ffmpeg's fps filter's value).
	Proxy string `json:"proxy"`
}

// RateSection is a run of frames at one rate.
type RateSection struct {
	Start   float64 `json:"start"`
	Seconds float64 `json:"seconds"`
	FPS     float64 `json:"fps"`
}

const maxSections = 20

// TimestampsArgv is the ffprobe command that reads the presentation times
// of video stream ordinal's packets: all of them, or windows of a long
// file (duration seconds).
func TimestampsArgv(in string, ordinal int, duration float64) []string {
	argv := []string{"ffprobe", "-v", "error", "-select_streams", "v:" + strconv.Itoa(ordinal),
		"-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0"}
	if duration > RateWholeSeconds {
		var iv []string
		for i := range RateWindows {
			at := duration * float64(i) / RateWindows
			iv = append(iv, fmt.Sprintf("%.3f%%+%.0f", at, RateWindowSeconds))
		}
		argv = append(argv, "-read_intervals", strings.Join(iv, ","))
	}
	return append(argv, "--", in)
}

// parseTimestamps reads ffprobe's csv of packet times (pts, else dts: raw
// streams have no pts).
func parseTimestamps(r io.Reader) []float64 {
	var ts []float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		pts, dts, _ := strings.Cut(strings.TrimSpace(sc.Text()), ",")
		for _, f := range []string{pts, dts} {
			if v, err := strconv.ParseFloat(f, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				ts = append(ts, v)
				break
			}
		}
	}
	return ts
}

// rateSections finds the runs of steady cadence in presentation times ts
// (any order: B-frames come in decode order). Successive frame intervals
// belong to one run while each is within 3 % (or 1.1 ms, a millisecond
// timebase's rounding) of the run's mean interval. Only runs of at least
// sectionMinSeconds (half the time read, for a clip shorter than a second)
// and sectionMinFrames count. Total is the time covered by intervals
// shorter than sectionGap.
func rateSections(ts []float64) (sections []RateSection, total float64) {
	ts = slices.Clone(ts)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for i := 1; i < len(ts); i++ {
		if d := ts[i] - ts[i-1]; d < sectionGap {
			total += d
		}
	}
	minSeconds := math.Min(sectionMinSeconds, total/2)
	var cur RateSection
	n := 0
	flush := func() {
		if n >= sectionMinFrames && cur.Seconds >= minSeconds {
			cur.FPS = snapRate(float64(n) / cur.Seconds)
			cur.Start, cur.Seconds = round3(cur.Start), round3(cur.Seconds)
			sections = append(sections, cur)
		}
		cur, n = RateSection{}, 0
	}
	for i := 1; i < len(ts); i++ {
		d := ts[i] - ts[i-1]
		if d >= sectionGap {
			flush()
			continue
		}
		if n > 0 {
			mean := cur.Seconds / float64(n)
			if math.Abs(d-mean) > math.Max(0.03*mean, 0.0011) {
				flush()
			}
		}
		if n == 0 {
			cur.Start = ts[i-1]
		}
		cur.Seconds += d
		n++
	}
	flush()
	return sections, total
}

// standardRates are the rates a measured one snaps to: within 0.3 %
var standardRates = []float64{12, 15, 24000.0 / 1001, 24, 25, 30000.0 / 1001, 30, 48000.0 / 1001, 48, 50,
	60000.0 / 1001, 60, 90, 100, 120000.0 / 1001, 120, 240}

// (the nearest: 24 and 23.976 are 0.1 % apart), to 3 decimals.
func snapRate(r float64) float64 {
	best, off := r, 0.003
	for _, s := range standardRates {
		if d := math.Abs(r-s) / s; d < off {
			best, off = s, d
		}
	}
	return round3(best)
}

// rateFacts are s's rates from its presentation times ts (none: the
// headers' rates alone). The proxy's rate is the fastest section's brought
// under the cap (underCap): never below a section of at most 30 fps, whose
// every frame it then keeps. Where steady sections cover less than half
// the time (a screen recording, timestamps all over), the average rate
// over the time read decides instead.
func rateFacts(s *Stream, ts []float64) *RateFacts {
	f := &RateFacts{Source: "stream", Nominal: rateOf(s.RFrameRate), Average: rateOf(s.AvgFrameRate)}
	sections, total := rateSections(ts)
	if len(ts) < 2 || total <= 0 {
		f.Variable = s.VFR()
		f.Proxy = fpsString(underCap(s.FrameRate()))
		return f
	}
	f.Source, f.SampledSeconds = "timestamps", round3(total)
	byRate := map[float64]float64{}
	covered := 0.0
	for _, sec := range sections {
		byRate[sec.FPS] += sec.Seconds
		covered += sec.Seconds
		if f.Slowest == 0 || sec.FPS < f.Slowest {
			f.Slowest = sec.FPS
		}
		f.Fastest = max(f.Fastest, sec.FPS)
	}
	for r, secs := range byRate {
		if secs > byRate[f.Dominant] || (secs == byRate[f.Dominant] && r > f.Dominant) {
			f.Dominant = r
		}
	}
	f.Variable = len(byRate) > 1 || covered < 0.9*total
	f.Sections = longest(sections, maxSections)
	if covered < total/2 {
		f.Proxy = fpsString(underCap(float64(len(ts)-1) / total))
		return f
	}
	best := 0.0
	for r := range byRate {
		best = max(best, underCap(r))
	}
	f.Proxy = fpsString(best)
	return f
}

// underCap is rate r brought to at most ProxyMaxFPS: itself when it is
// under; an even share of it (every n-th frame: 50 → 25, 59.94 → 29.97,
// 120 → 30, 100 → 25, 72 → 24) when one falls between 23.5 and the cap;
// else the cap (40 → 30: more of its frames than 20 would keep).
func underCap(r float64) float64 {
	limit := ProxyMaxFPS + 0.5
	if r <= limit {
		return r
	}
	for n := 2; n <= 10; n++ {
		if q := r / float64(n); q <= limit {
			if q >= 23.5 {
				return q
			}
			break
		}
	}
	return ProxyMaxFPS
}

// fpsString is a rate as the fps filter's value: NTSC rates as their exact
// ratio, others whole — the nearest within 3 % (an average over an uneven
// cadence is a little off), else rounded up (a 12.5 fps section is not
// shown at 12) — 1 to ProxyMaxFPS; 25 when unknown.
func fpsString(r float64) string {
	if r <= 0 {
		return "25"
	}
	for _, ntsc := range []float64{24000.0 / 1001, 30000.0 / 1001} {
		if math.Abs(r-ntsc) < 0.01 {
			return fmt.Sprintf("%d/1001", int(math.Round(ntsc*1001)))
		}
	}
	whole := math.Round(r)
	if math.Abs(r-whole) > 0.03*r {
		whole = math.Ceil(r)
	}
	return strconv.Itoa(int(min(max(whole, 1), ProxyMaxFPS)))
}

// longest are the n longest of sections, kept in time order.
func longest(sections []RateSection, n int) []RateSection {
	if len(sections) <= n {
		return sections
	}
	byLen := slices.Clone(sections)
	slices.SortStableFunc(byLen, func(a, b RateSection) int {
		return -compareFloat(a.Seconds, b.Seconds)
	})
	byLen = byLen[:n]
	slices.SortFunc(byLen, func(a, b RateSection) int { return compareFloat(a.Start, b.Start) })
	return byLen
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func rateOf(s string) float64 {
	if num, den, ok := ratio(s); ok && den > 0 && num > 0 {
		return round3(float64(num) / float64(den))
	}
	return 0
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Rates are the stream's frame rates: as measured, else from its headers.
func (s *Stream) Rates() *RateFacts {
	if s.Facts != nil && s.Facts.Rates != nil {
		return s.Facts.Rates
	}
	return rateFacts(s, nil)
}
