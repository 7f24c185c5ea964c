// Package record records a live source with ffmpeg into HLS segments
// (fragmented MP4) on local disk, a run at a time: the source's streams
// copied as the original and, with Proxy, an H.264/AAC proxy made beside
// them by the same ffmpeg (for sources a browser cannot play), each
// segment handed to the caller as soon as it is complete, so that what is
// recorded can be stored and played while the recording goes on. A
// source that drops ends a run; the next run starts when the source is
// back, and the time between is reported as a gap. It knows neither items
// nor storage (docs/live.md).
package record

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
)

// Options describe a recording.
type Options struct {
	// Source is the live source's URL (checked by the caller).
	Source string
	// Protocols is ffmpeg's protocol whitelist for the source ("": any),
	// Headers the HTTP headers it sends (a pinned address's Host).
	Protocols, Headers string
	// Dir is where the runs' playlists and segments are written.
	Dir string
	// Until is when the recording ends; End, when set, is asked instead
	// before each run (a recording extended while it runs).
	Until time.Time
	End   func() time.Time
	// SegmentSeconds is the segments' length (default 2).
	SegmentSeconds int
	// AudioCodec is the source's audio codec as its probe named it ("":
	// aac, what live sources mostly send): AAC in ADTS (MPEG-TS) gets the
	// headers MP4 wants; other codecs are copied as they are.
	AudioCodec string
	// Proxy makes an H.264/AAC proxy (short side ProxyHeight, default
	// 720) beside the copied original.
	Proxy       bool
	ProxyHeight int
	// Retry is the wait before the source is tried again (default 1 s).
	Retry time.Duration
	// StallSeconds is how long a source may send nothing before its run
	// ends (default 3).
	StallSeconds int
	// OnSegment receives each complete segment, in order.
	OnSegment func(Segment)
	// OnGap receives each stretch the source was away.
	OnGap func(Gap)
	// Missing, when set, is a gap open at the start (From and Reason): the
	// media missing since an earlier recorder stopped. It closes where this
	// one's media begins.
	Missing *Gap
}

// What a segment is of.
const (
	Original = "original"
	ProxyOut = "proxy"
)

// Segment is one complete segment of a run.
type Segment struct {
	// Of is Original or ProxyOut.
	Of string
	// Run numbers the runs from 0; Index the segments of a run from 0.
	Run, Index int
	// Path is the segment's file, Init the run's initialization segment
	// (its first segment's Init must be stored with it).
	Path, Init string
	// Duration is the segment's length.
	Duration float64
}

// Gap is a stretch without media: the source dropped at From and was back
// at To (or the recording ended).
type Gap struct {
	From, To time.Time
	Reason   string
}

func (o *Options) defaults() {
	if o.SegmentSeconds <= 0 {
		o.SegmentSeconds = 2
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.StallSeconds <= 0 {
		o.StallSeconds = 3
	}
	if o.ProxyHeight <= 0 {
		o.ProxyHeight = 720
	}
}

// Run records until o.Until (or ctx ends), run after run.
func Run(ctx context.Context, o Options) error {
	o.defaults()
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return err
	}
	gap := o.Missing
	for run := 0; ; run++ {
		o.refresh()
		left := time.Until(o.Until)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		r, err := o.run(ctx, run, left)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.seconds > 0 && gap != nil {
			// The source came back: the gap ends where this run's media
			// began — when it connected (a live source sends in real
			// time from then; ffmpeg's first output comes only after
			// its analysis of the stream).
			gap.To = r.began
			o.gap(*gap)
			gap = nil
		}
		o.refresh()
		if time.Until(o.Until) <= 0 {
			break
		}
		if r.seconds >= left.Seconds()-0.5 {
			// The run recorded all it was asked for (an HLS source starts
			// at its live edge, a segment in the past, and so ends early
			// by the clock): no gap. The end moved later meanwhile: a new
			// run, unless less than a second is left.
			if time.Until(o.Until) < time.Second {
				break
			}
			continue
		}
		if gap == nil {
			// A live source is recorded as it is sent: its media stopped
			// where the run's length ends.
			reason := "the source stopped sending"
			if err != nil {
				reason = oneLine(err.Error())
			}
			from := time.Now()
			if r.seconds > 0 {
				from = r.began.Add(time.Duration(r.seconds * float64(time.Second)))
				if from.After(time.Now()) {
					from = time.Now()
				}
			}
			gap = &Gap{From: from, Reason: reason}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.Retry):
		}
	}
	if gap != nil {
		gap.To = o.Until
		o.gap(*gap)
	}
	return nil
}

// refresh takes the end End says now.
func (o *Options) refresh() {
	if o.End != nil {
		o.Until = o.End()
	}
}

func (o *Options) gap(g Gap) {
	if o.OnGap != nil {
		o.OnGap(g)
	}
}

// ran is what a run made: its media's length, and when it began (ffmpeg
// started: it connects at once).
type ran struct {
	seconds float64
	began   time.Time
}

// run is one ffmpeg run of at most left.
func (o *Options) run(ctx context.Context, run int, left time.Duration) (ran, error) {
	name := fmt.Sprintf("r%03d", run)
	// A source that sends nothing for StallSeconds ends the run; 2 s of
	// analysis at most (ffmpeg's default reads up to 5 s before it writes:
	// latency, and media a drop would lose).
	args := []string{"-rw_timeout", strconv.Itoa(o.StallSeconds * 1_000_000), "-analyzeduration", "2000000"}
	if o.Protocols != "" {
		args = append(args, "-protocol_whitelist", o.Protocols)
	}
	if o.Headers != "" {
		args = append(args, "-headers", o.Headers)
	}
	if isHLS(o.Source) {
		// A live playlist that stops growing ends the run too; a run starts
		// at the live edge.
		args = append(args, "-m3u8_hold_counters", strconv.Itoa(o.StallSeconds), "-live_start_index", "-1")
	}
	args = append(args, "-i", o.Source, "-map", "0:v:0?", "-map", "0:a?")
	hls := func(name string) []string {
		return []string{"-t", strconv.FormatFloat(left.Seconds(), 'f', 3, 64), "-f", "hls", "-hls_time", strconv.Itoa(o.SegmentSeconds), "-hls_segment_type", "fmp4",
			"-hls_playlist_type", "event", "-hls_fmp4_init_filename", name + "-init.mp4",
			"-hls_segment_filename", filepath.Join(o.Dir, name+"-%05d.m4s"), filepath.Join(o.Dir, name+".m3u8")}
	}
	// The original: the source's streams as they are.
	args = append(args, "-c", "copy")
	if o.AudioCodec == "" || o.AudioCodec == "aac" {
		args = append(args, "-bsf:a", "aac_adtstoasc")
	}
	args = append(args, hls(name)...)
	outs := []output{{Original, name}}
	if o.Proxy {
		// The proxy: a keyframe at each segment's start, so that every
		// segment plays on its own.
		p := name + "-proxy"
		args = append(args, "-map", "0:v:0?", "-map", "0:a:0?",
			"-vf", fmt.Sprintf("scale=-2:'min(%d,ih)',format=yuv420p", o.ProxyHeight),
			"-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high",
			"-force_key_frames", fmt.Sprintf("expr:gte(t,n_forced*%d)", o.SegmentSeconds),
			"-c:a", "aac", "-ac", "2", "-ar", "48000")
		args = append(args, hls(p)...)
		outs = append(outs, output{ProxyOut, p})
	}
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- media.Run(ctx, media.Command{Args: args}) }()
	r := ran{began: began}
	seen := make([]int, len(outs))
	emit := func() {
		for i, out := range outs {
			o.emit(run, out, &seen[i], &r)
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			emit()
			return r, err
		case <-tick.C:
			emit()
		}
	}
}

// output is one of a run's playlists.
type output struct{ of, name string }

// emit hands over an output's segments after the *seen first (those
// listed are complete: ffmpeg lists a segment once it is written); the
// original's count in r.
func (o *Options) emit(run int, out output, seen *int, r *ran) {
	segs, err := readPlaylist(filepath.Join(o.Dir, out.name+".m3u8"))
	if err != nil {
		return
	}
	for ; *seen < len(segs); *seen++ {
		s := segs[*seen]
		if out.of == Original {
			r.seconds += s.duration
		}
		if o.OnSegment != nil {
			o.OnSegment(Segment{Of: out.of, Run: run, Index: *seen, Path: filepath.Join(o.Dir, s.name),
				Init: filepath.Join(o.Dir, out.name+"-init.mp4"), Duration: s.duration})
		}
	}
}

type listed struct {
	name     string
	duration float64
}

// readPlaylist reads a media playlist's segments.
func readPlaylist(path string) ([]listed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []listed
	var d float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#EXTINF:"):
			v, _, _ := strings.Cut(strings.TrimPrefix(line, "#EXTINF:"), ",")
			d, _ = strconv.ParseFloat(v, 64)
		case line != "" && !strings.HasPrefix(line, "#"):
			out = append(out, listed{name: line, duration: d})
		}
	}
	return out, sc.Err()
}

// isHLS says whether a source is an HLS playlist.
func isHLS(src string) bool {
	u := strings.ToLower(src)
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) && strings.HasSuffix(u, ".m3u8")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
