package media

import (
	"fmt"
	"math"
	"strconv"
)

// What ffprobe reports of a damaged file can be impossible — a corrupt
// index made an MP4 of 400 kB last 22 years. Such values are not facts:
// ProbeFile drops them and says so (Probe.Warnings), and the rest of the
// pipeline sees an unknown value instead.

// Bounds of a plausible duration for a file of its size: no real stream
// is under minBitRate (a 400 kB file lasting 22 years is 0.0005 bit/s;
// low-rate speech codecs are ~2,000), or over maxBitRate (uncompressed 8K
// 60p RGB is ~48 Gbit/s), or longer than maxDuration.
const (
	minBitRate  = 100
	maxBitRate  = 100e9
	maxDuration = 31 * 24 * 3600
)

// plausibleDuration reports whether d seconds can be true of size bytes
// (size ≤ 0: unknown, only the absolute bound applies).
func plausibleDuration(d float64, size int64) bool {
	if d <= 0 || d > maxDuration {
		return false
	}
	if size <= 0 {
		return true
	}
	rate := float64(size) * 8 / d
	return rate >= minBitRate && rate <= maxBitRate
}

// sanitize drops the impossible values of p, noting each in p.Warnings: a
// container duration no stream backs (the longest plausible stream's is
// used), stream durations, and image streams of a picture with no pixels.
func (p *Probe) sanitize() {
	size, _ := strconv.ParseInt(p.Format.Size, 10, 64)
	longest := 0.0
	for i := range p.Streams {
		s := &p.Streams[i]
		if d := parseFloat(s.Duration); d != 0 && !plausibleDuration(d, size) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("stream %d's duration (%s) is impossible for %s and is ignored",
				s.Index, humanSeconds(d), humanBytes(size)))
			s.Duration = ""
		} else if d > longest {
			longest = d
		}
	}
	if d := parseFloat(p.Format.Duration); d != 0 && !plausibleDuration(d, size) {
		msg := fmt.Sprintf("the container's duration (%s) is impossible for %s", humanSeconds(d), humanBytes(size))
		p.Format.Duration = ""
		if longest > 0 {
			p.Format.Duration = strconv.FormatFloat(longest, 'f', 6, 64)
			msg += fmt.Sprintf("; its streams' %s is used", humanSeconds(longest))
		} else {
			msg += "; it is unknown"
		}
		p.Warnings = append(p.Warnings, msg)
	}
	kept := p.Streams[:0]
	for _, s := range p.Streams {
		if s.CodecType == "video" && imageCodecs[s.CodecName] && (s.Width <= 0 || s.Height <= 0) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("stream %d (%s) has a picture of %d×%d pixels and is ignored",
				s.Index, s.CodecName, s.Width, s.Height))
			continue
		}
		kept = append(kept, s)
	}
	p.Streams = kept
}

func humanSeconds(d float64) string {
	switch {
	case d >= 365*24*3600:
		return fmt.Sprintf("%.1f years", d/(365.25*24*3600))
	case d >= 2*24*3600:
		return fmt.Sprintf("%.1f days", d/(24*3600))
	case d >= 1:
		return fmt.Sprintf("%.2f s", d)
	}
	return fmt.Sprintf("%.3g s", d)
}

func humanBytes(n int64) string {
	switch {
	case n <= 0:
		return "a file of unknown size"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", math.Round(float64(n)/(1<<10)))
	}
	return fmt.Sprintf("%d bytes", n)
}
