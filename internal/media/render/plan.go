package render

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/loupe-mam/loupe/internal/media"
)

// Clip is a cut of a source: frames [In, Out) at the source's own frame
// rate. A source without video counts its frames at the profile's rate
// (Video.FrameRate, else EditRate).
type Clip struct {
	// Source is a local path or an http(s) URL that ffmpeg can read with
	// ranges (a presigned URL).
	Source string
	// In is the first frame (inclusive), Out the end (exclusive):
	// 0 <= In < Out.
	In, Out int64
}

// Limits of a sequence.
const (
	// MaxClips bounds a sequence: ffmpeg opens every clip's input at
	// once, each holding a decoder and a decoded frame or so.
	MaxClips = 200
	// maxGraph bounds the filter graph, one argument of the command line
	// (Linux takes at most 128 KiB in one argument).
	maxGraph = 120 << 10
	// probeAtOnce is how many sources are probed at a time.
	probeAtOnce = 4
)

// seekMargin is how long before a clip's first frame its input is seeked
// to (input -ss): the demuxer lands on a keyframe before that point,
// ffmpeg decodes from there and drops what is before it, and the graph
// then cuts at the frame's own timestamp. The margin keeps the cut clear
// of demuxers that land a little late and of audio interleaved late.
const seekMargin = 1.0

// Cut is where a clip landed in the output.
type Cut struct {
	// Clip is the clip's index in the sequence given to Plan.
	Clip int
	// Frame is its first output frame, Frames how many it has (0 for an
	// output without video).
	Frame, Frames int64
	// Sample is its first output audio sample, Samples how many it has
	// (0 for an output without audio).
	Sample, Samples int64
	// Start is when it starts in the output.
	Start time.Duration
}

// Job is one planned render: an ffmpeg command.
type Job struct {
	// Args are ffmpeg's arguments after the ones media.Run adds; run bare
	// (ffmpeg Args...) they make the same file.
	Args []string
	// Duration is the output's exact length; Frames its video frames
	// (0 without video); Samples its audio samples a channel at
	// SampleRate (0 without audio); Channels its audio channels.
	Duration   time.Duration
	Frames     int64
	Samples    int64
	SampleRate int
	Channels   int
	// FrameRate is the output's frame rate (zero without video).
	FrameRate Rational
	// Cuts are the clips in order, each where it landed; a clip too
	// short to make a frame (or, without video, a sample) of the output
	// is left out.
	Cuts []Cut
	// Graph is the filter graph (also in Args).
	Graph string
	// StreamCopy: the video is copied from the sources, packet for
	// packet, not re-encoded (every clip's source matches the profile's
	// video and every cut is on a keyframe: docs/render-engine.md,
	// "Stream copy"); the sound goes through Graph all the same.
	StreamCopy bool
	// Reencoded says why the video is re-encoded rather than copied
	// ("clips[1]: in 30 is not on a keyframe"); "" when it is copied or
	// the output has no video.
	Reencoded string
	// Output is the file the job writes.
	Output string
	// sources are the clips' sources as given and as ffmpeg reads them:
	// taken out of error messages (a presigned URL's signature).
	sources []string
}

// Plan probes the clips' sources, checks each clip against its source's
// length, and plans the render of the sequence into out (a local path)
// with profile p.
func Plan(ctx context.Context, clips []Clip, p Profile, out string) (*Job, error) {
	return plan(ctx, clips, p, out, true)
}

// plan is Plan; copying false never copies the video (the tests' and
// benchmarks' reference).
func plan(ctx context.Context, clips []Clip, p Profile, out string, copying bool) (*Job, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	switch {
	case len(clips) == 0:
		return nil, errors.New("the sequence has no clips")
	case len(clips) > MaxClips:
		return nil, fmt.Errorf("the sequence has %d clips, over the %d a render takes: render it in parts", len(clips), MaxClips)
	case out == "":
		return nil, errors.New("no output path")
	}
	for i, c := range clips {
		switch {
		case c.Source == "":
			return nil, fmt.Errorf("clips[%d]: source is empty", i)
		case c.In < 0:
			return nil, fmt.Errorf("clips[%d]: in %d must be 0 or more", i, c.In)
		case c.In >= c.Out:
			return nil, fmt.Errorf("clips[%d]: in %d must be before out %d", i, c.In, c.Out)
		}
	}
	sources, err := probeAll(ctx, clips)
	if err != nil {
		return nil, err
	}
	items := make([]placed, len(clips))
	for i, c := range clips {
		s := sources[c.Source]
		rate := s.rate
		if s.video == nil {
			rate = profileRate(p)
			if !rate.valid() {
				return nil, fmt.Errorf("clips[%d]: the source has no video and the profile none either: editRate must say what its in and out count", i)
			}
		}
		if n := s.framesAt(rate); n > 0 && c.Out > n {
			return nil, fmt.Errorf("clips[%d]: out %d is past the source's %d frames", i, c.Out, n)
		}
		items[i] = placed{index: i, clip: c, src: s, rate: rate}
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	var cp *copyPlan
	why := "not tried"
	if copying {
		if cp, why, err = planCopy(ctx, items, p); err != nil {
			return nil, err
		}
	}
	j, err := build(items, p, abs, cp)
	if err != nil {
		return nil, err
	}
	if p.Video != nil && cp == nil {
		j.Reencoded = scrub(errors.New(why), sourceNames(clips)...).Error()
	}
	j.sources = sourceNames(clips)
	return j, nil
}

// sourceNames are the clips' sources as given and as ffmpeg reads them,
// to be taken out of messages.
func sourceNames(clips []Clip) []string {
	var names []string
	for _, c := range clips {
		in, _, _ := inputOf(c.Source)
		names = append(names, c.Source, in)
	}
	return names
}

// profileRate is the rate clips without video count at.
func profileRate(p Profile) Rational {
	if p.Video != nil {
		return p.Video.FrameRate.reduced()
	}
	return p.EditRate.reduced()
}

// probeAll probes each distinct source once, a few at a time.
func probeAll(ctx context.Context, clips []Clip) (map[string]*source, error) {
	first := map[string]int{} // a source's first clip, for errors
	var names []string
	for i, c := range clips {
		if _, ok := first[c.Source]; !ok {
			first[c.Source] = i
			names = append(names, c.Source)
		}
	}
	found := make([]*source, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(probeAtOnce)
	for n, name := range names {
		g.Go(func() error {
			s, err := probeSource(gctx, name)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("clips[%d]: %w", first[name], err)
			}
			found[n] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m := make(map[string]*source, len(names))
	for n, name := range names {
		m[name] = found[n]
	}
	return m, nil
}

// Run runs the job, reporting the share done (0..1, never going back) to
// onProgress (nil: none). A failed run removes what it wrote.
func (j *Job) Run(ctx context.Context, onProgress func(done float64)) error {
	last := 0.0
	err := media.Run(ctx, media.Command{Args: j.Args, OnProgress: func(pr media.Progress) {
		if onProgress == nil {
			return
		}
		done := 0.0
		if j.Duration > 0 {
			done = float64(pr.Done) / float64(j.Duration)
		}
		if pr.End {
			done = 1
		}
		done = math.Min(math.Max(done, last), 1)
		last = done
		onProgress(done)
	}})
	if err != nil {
		os.Remove(j.Output) //nolint:errcheck // a partial file, if any
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return scrub(err, j.sources...)
	}
	return nil
}

// placed is a clip with its source.
type placed struct {
	index int
	clip  Clip
	src   *source
	rate  Rational // the rate its In and Out count at
}

// boundaries are the output's cut points: frames[i] and samples[i] are
// where clip i starts, frames[n] and samples[n] the ends. A clip's
// duration is exact ((Out-In)/rate); the boundaries round the running sum
// of durations to a frame (and a frame's boundary to a sample), so that
// rounding never adds up.
func boundaries(items []placed, p Profile) (frames, samples []int64) {
	frames = make([]int64, len(items)+1)
	samples = make([]int64, len(items)+1)
	sum := new(big.Rat)
	var fo Rational
	if p.Video != nil {
		fo = p.Video.FrameRate.reduced()
	}
	sr := int64(0)
	if p.hasAudio() {
		sr = int64(p.Audio.SampleRate)
	}
	for i, it := range items {
		d := big.NewRat((it.clip.Out-it.clip.In)*int64(it.rate.Den), int64(it.rate.Num))
		sum.Add(sum, d)
		if p.Video != nil {
			frames[i+1] = roundRat(new(big.Rat).Mul(sum, fo.rat()))
			// A frame boundary in samples: B × den × sr / num.
			samples[i+1] = roundRat(big.NewRat(frames[i+1]*int64(fo.Den)*sr, int64(fo.Num)))
		} else {
			samples[i+1] = roundRat(new(big.Rat).Mul(sum, new(big.Rat).SetInt64(sr)))
		}
	}
	return frames, samples
}

// roundRat is x rounded to the nearest whole number, halves up (x >= 0).
func roundRat(x *big.Rat) int64 {
	num := new(big.Int).Mul(x.Num(), big.NewInt(2))
	num.Add(num, x.Denom())
	den := new(big.Int).Mul(x.Denom(), big.NewInt(2))
	return new(big.Int).Div(num, den).Int64()
}
