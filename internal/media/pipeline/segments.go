package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
)

// A long video's proxy is made in segments (media.ProxySegments), each
// kept by the run's Keeper as it is finished, so that a later attempt of
// the same run — another node's after a takeover, a retry — encodes only
// from the segment after the last one kept, then joins them all.

// Keeper keeps a proxy's finished segments where a later attempt of the
// same run finds them: not this node's disk, which dies with it.
type Keeper interface {
	// Kept answers the segments of plan (media.ProxySegments.Fingerprint)
	// that earlier attempts kept and that this one can use, copied into
	// dir: segments 0, 1, … without a gap, checked to be what was kept;
	// complete when the last of the proxy is among them.
	Kept(ctx context.Context, plan, dir string) (paths []string, complete bool, err error)
	// Keep stores segment i of plan (the file at path) and records it
	// finished; last: it is the proxy's last. An attempt another has
	// since replaced is refused: it should stop.
	Keep(ctx context.Context, plan string, i int, path string, last bool) error
}

// Resume is how a run keeps a long proxy's segments.
type Resume struct {
	Keeper Keeper
	// SegmentSeconds is a segment's length (0: media.SegmentSeconds).
	SegmentSeconds int
}

// Segments is what the proxy's segments were in a run.
type Segments struct {
	// Count is how many the proxy has; Reused how many of them an earlier
	// attempt had made (the rest this run made).
	Count, Reused int
}

// KeepError is a Keeper's failure, answered as it is by Run: the storage
// or the database (try again) or a newer attempt (stop), never the
// media's.
type KeepError struct{ Err error }

func (e *KeepError) Error() string { return "keeping the proxy's segments: " + e.Err.Error() }
func (e *KeepError) Unwrap() error { return e.Err }

// segmentPoll is how often a run looks for finished segments.
const segmentPoll = 200 * time.Millisecond

// makeProxyInSegments makes the proxy of plan from what earlier attempts
// kept and what is left, then joins them.
func makeProxyInSegments(ctx context.Context, w *Work, plan media.ProxySegments, report func(float64)) ([]Output, error) {
	sdir := filepath.Join(w.Dir, "segments")
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return nil, err
	}
	fp := plan.Fingerprint(w.Probe)
	kept, complete, err := w.Resume.Keeper.Kept(ctx, fp, sdir)
	if err != nil {
		return nil, &KeepError{err}
	}
	segs := kept
	if !complete {
		made, err := encodeSegments(ctx, w, plan, fp, len(kept), sdir, report)
		if err != nil {
			return nil, err
		}
		segs = append(segs, made...)
	}
	w.Segments = &Segments{Count: len(segs), Reused: len(kept)}
	concat := filepath.Join(sdir, "join.ffconcat")
	if err := os.WriteFile(concat, []byte(ffconcat(segs)), 0o600); err != nil {
		return nil, err
	}
	args, err := media.ProxyJoinArgs(w.Input, concat, w.proxyPath(), w.Probe)
	if err != nil {
		return nil, err
	}
	if err := media.Run(ctx, media.Command{Args: args}); err != nil {
		return nil, fmt.Errorf("the proxy's segments could not be joined: %w", err)
	}
	report(1)
	return []Output{{Key: OutProxy, Path: w.proxyPath(), Name: "proxy.mp4", ContentType: "video/mp4"}}, nil
}

// encodeSegments encodes the proxy's picture from segment from on, in one
// ffmpeg run, keeping each segment once it is finished: segment i is
// complete when the list names it and segment i+1 has begun (so it is not
// the last), the last when ffmpeg has ended well.
func encodeSegments(ctx context.Context, w *Work, plan media.ProxySegments, fp string, from int, sdir string, report func(float64)) ([]string, error) {
	list := filepath.Join(sdir, fmt.Sprintf("made-from-%d.csv", from))
	args, err := media.ProxySegmentArgs(w.Input, sdir, list, w.Probe, plan, from)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	offset := plan.Start(from)
	ended := make(chan error, 1)
	go func() {
		ended <- timed(runCtx, args, math.Max(0, w.Duration-offset), func(f float64) {
			if w.Duration > 0 {
				report(math.Min(0.99, (offset+f*(w.Duration-offset))/w.Duration))
			}
		})
	}()
	var made []string
	keep := func(last bool) (bool, error) {
		names := listed(list)
		i := from + len(made)
		if len(made) >= len(names) {
			return false, nil
		}
		name := filepath.Base(names[len(made)])
		if name != media.SegmentName(i) {
			return false, fmt.Errorf("segment %d: ffmpeg listed %q", i, name)
		}
		isLast := last && len(made) == len(names)-1
		if !isLast {
			if _, err := os.Stat(filepath.Join(sdir, media.SegmentName(i+1))); err != nil {
				return false, nil // not known to be finished yet
			}
		}
		path := filepath.Join(sdir, name)
		if err := w.Resume.Keeper.Keep(ctx, fp, i, path, isLast); err != nil {
			return false, &KeepError{err}
		}
		made = append(made, path)
		return true, nil
	}
	tick := time.NewTicker(segmentPoll)
	defer tick.Stop()
	for {
		select {
		case err := <-ended:
			if err != nil {
				return nil, fmt.Errorf("the proxy could not be made: %w", err)
			}
			for {
				more, err := keep(true)
				if err != nil {
					return nil, err
				}
				if !more {
					break
				}
			}
			if len(made) == 0 && from == 0 {
				return nil, errors.New("the proxy could not be made: ffmpeg made no segment")
			}
			return made, nil
		case <-tick.C:
			for {
				more, err := keep(false)
				if err != nil {
					cancel()
					<-ended
					return nil, err
				}
				if !more {
					break
				}
			}
		}
	}
}

// listed is the segments the CSV list names, complete lines only.
func listed(list string) []string {
	b, err := os.ReadFile(list)
	if err != nil {
		return nil
	}
	var names []string
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is unfinished or empty
		if name, _, ok := strings.Cut(l, ","); ok {
			names = append(names, name)
		}
	}
	return names
}

// ffconcat is the concat demuxer's list of paths.
func ffconcat(paths []string) string {
	var b strings.Builder
	b.WriteString("ffconcat version 1.0\n")
	for _, p := range paths {
		b.WriteString("file '" + strings.ReplaceAll(p, "'", `'\''`) + "'\n")
	}
	return b.String()
}
