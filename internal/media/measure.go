package media

import (
	"bytes"
	"context"

	"github.com/loupe-mam/loupe/internal/tool"
)

// VideoFacts are what Loupe measured of a video stream beyond its headers:
// its interlacing (interlace.go), its frame rates (framerate.go) and its
// HDR light levels (tonemap.go). The proxy is made from them, and
// technicalMetadata reports them.
type VideoFacts struct {
	Scan  *ScanFacts  `json:"scan,omitempty"`
	Rates *RateFacts  `json:"rates,omitempty"`
	Light *LightFacts `json:"light,omitempty"`
}

// measurement is one command MeasureVideo runs and what reads its answer.
type measurement struct {
	argv []string
	read func(out []byte, v *Stream, f *VideoFacts)
}

// measurements are the commands that measure p's video in input: its frame
// timestamps always (a demux, no decode); idet's sample where the size and
// rate may be interlaced; the first frame's side data for PQ whose headers
// name no peak.
func measurements(input string, p *Probe) []measurement {
	v := p.Video()
	if v == nil {
		return nil
	}
	ord := videoOrdinal(p, v)
	ms := []measurement{{argv: TimestampsArgv(input, ord, p.Duration()), read: func(out []byte, v *Stream, f *VideoFacts) {
		f.Rates = rateFacts(v, parseTimestamps(bytes.NewReader(out)))
	}}}
	if mayBeInterlaced(v) {
		ms = append(ms, measurement{argv: FFmpegArgv(IdetArgs(input, ord, idetFrom(v, p.Duration()))),
			read: func(out []byte, v *Stream, f *VideoFacts) { f.Scan = scanOf(v, parseIdet(bytes.NewReader(out))) }})
	}
	if needsFirstFrame(v) {
		ms = append(ms, measurement{argv: FirstFrameArgv(input, ord), read: func(out []byte, v *Stream, f *VideoFacts) {
			f.Light = lightOf(v, parseFirstFrame(out))
		}})
	}
	return ms
}

// MeasureArgv are the commands MeasureVideo runs for p's video, in order
// (the benchmark's bare reference runs them too).
func MeasureArgv(input string, p *Probe) [][]string {
	var argv [][]string
	for _, m := range measurements(input, p) {
		argv = append(argv, m.argv)
	}
	return argv
}

// MeasureVideo measures p's video in input and keeps the facts on its
// stream (Stream.Facts), where ProxyArgs, EarlyPosterArgs and the
// technical metadata read them. A measurement that fails leaves its fact
// to the headers (an unreadable stretch must not stop the proxy, which
// says its own error); only a cancelled ctx is an error.
func MeasureVideo(ctx context.Context, input string, p *Probe) error {
	v := p.Video()
	if v == nil {
		return nil
	}
	f := &VideoFacts{}
	for _, m := range measurements(input, p) {
		var out bytes.Buffer
		err := tool.Run(ctx, tool.Cmd{Program: m.argv[0], Args: m.argv[1:], Stdout: &out})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			m.read(out.Bytes(), v, f)
		}
	}
	if f.Scan == nil {
		f.Scan = scanOf(v, nil)
	}
	if f.Rates == nil {
		f.Rates = rateFacts(v, nil)
	}
	if f.Light == nil && v.HDR() {
		f.Light = lightOf(v, nil)
	}
	v.Facts = f
	return nil
}
