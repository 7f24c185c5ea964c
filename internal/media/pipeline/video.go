package pipeline

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
)

// A video's steps: the web proxy, then what reads its keyframes.

// proxyPath is where a run's video proxy is made.
func (w *Work) proxyPath() string { return filepath.Join(w.Dir, "proxy.mp4") }

// makeProxy measures the video first (field order, frame-rate sections,
// HDR light levels: a second or so, docs/processing.md), as the proxy's
// filters depend on them; the facts stay on the probe for the technical
// metadata. A video longer than a segment is made in segments a later
// attempt resumes from when the run keeps them (segments.go); a shorter
// one, or one of a run that keeps none, in one ffmpeg run.
func makeProxy(ctx context.Context, w *Work, report func(float64)) ([]Output, error) {
	if err := media.MeasureVideo(ctx, w.Input, w.Probe); err != nil {
		return nil, err
	}
	if w.Resume != nil && w.Resume.Keeper != nil {
		if plan, ok := media.PlanProxySegments(w.Probe, w.Duration, w.Resume.SegmentSeconds); ok {
			return makeProxyInSegments(ctx, w, plan, report)
		}
	}
	args, err := media.ProxyArgs(w.Input, w.proxyPath(), w.Probe)
	if err != nil {
		return nil, err
	}
	if err := timed(ctx, args, w.Duration, report); err != nil {
		return nil, fmt.Errorf("the proxy could not be made: %w", err)
	}
	return []Output{{Key: OutProxy, Path: w.proxyPath(), Name: "proxy.mp4", ContentType: "video/mp4"}}, nil
}

// checkProxy probes the proxy made: a playable H.264 video as long as the
// original.
func checkProxy(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	pp, err := media.ProbeFile(ctx, w.proxyPath())
	if err != nil || pp.Video() == nil || pp.Video().CodecName != "h264" {
		return nil, fmt.Errorf("the proxy made is not a playable H.264 video: %v", err)
	}
	if d := pp.Duration(); w.Duration > 0 && math.Abs(d-w.Duration) > math.Max(1, w.Duration*0.02) {
		return nil, fmt.Errorf("the proxy lasts %.2f s where the original lasts %.2f s", d, w.Duration)
	}
	return nil, nil
}

// audioProxies makes the proxies of the audio tracks or channels the web
// proxy's stereo does not carry as they are (media.AudioLayoutOf), in one
// ffmpeg run: a player switches tracks with them.
func audioProxies(ctx context.Context, w *Work, report func(float64)) ([]Output, error) {
	l := media.AudioLayoutOf(w.Probe)
	tracks := trackProxyPaths(w, l)
	args := media.AudioProxiesArgs(w.Input, "", tracks, l)
	if args == nil {
		return nil, nil
	}
	if err := timed(ctx, args, w.Duration, report); err != nil {
		return nil, fmt.Errorf("the audio track proxies could not be made: %w", err)
	}
	return trackProxyOutputs(tracks), nil
}

// thumbnails makes the position thumbnails and the poster from the proxy's
// keyframes.
func thumbnails(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	tdir := filepath.Join(w.Dir, "thumbnails")
	if err := os.MkdirAll(tdir, 0o700); err != nil {
		return nil, err
	}
	if err := media.Run(ctx, media.Command{Args: media.ThumbnailsArgs(w.proxyPath(), filepath.Join(tdir, "%05d.jpg"))}); err != nil {
		return nil, fmt.Errorf("the thumbnails could not be made: %w", err)
	}
	files, _ := filepath.Glob(filepath.Join(tdir, "*.jpg"))
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("the proxy has no keyframe to make thumbnails of")
	}
	tw, th := ImageSize(ctx, files[0])
	var outs []Output
	for i, f := range files {
		pos := time.Duration(i*media.KeyframeSeconds) * time.Second
		outs = append(outs, Output{Key: OutThumbnails, Many: true, Path: f, Name: "thumbnails/" + filepath.Base(f),
			ContentType: "image/jpeg", Position: pos, Width: tw, Height: th})
	}
	poster := filepath.Join(w.Dir, "poster.jpg")
	if err := media.Run(ctx, media.Command{Args: media.PosterArgs(w.proxyPath(), poster, media.PosterPosition(w.Duration))}); err != nil {
		return nil, fmt.Errorf("the poster could not be made: %w", err)
	}
	pw, ph := ImageSize(ctx, poster)
	return append(outs, Output{Key: OutPoster, Path: poster, Name: "poster.jpg", ContentType: "image/jpeg", Width: pw, Height: ph}), nil
}

// strip makes the sprite sheets and their WebVTT map; the map names the
// sheets by their names under the item's generated prefix (a player
// resolves them against the map's own URL).
func strip(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	sdir := filepath.Join(w.Dir, "strip")
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return nil, err
	}
	if err := media.Run(ctx, media.Command{Args: media.StripArgs(w.proxyPath(), filepath.Join(sdir, "%03d.jpg"))}); err != nil {
		return nil, fmt.Errorf("the thumbnail strip could not be made: %w", err)
	}
	sheets, _ := filepath.Glob(filepath.Join(sdir, "*.jpg"))
	sort.Strings(sheets)
	if len(sheets) == 0 {
		return nil, fmt.Errorf("the proxy has no keyframe to make a strip of")
	}
	sw, sh := ImageSize(ctx, sheets[0])
	var outs []Output
	for _, s := range sheets {
		outs = append(outs, Output{Path: s, Name: "strip/" + filepath.Base(s), ContentType: "image/jpeg", Width: sw, Height: sh})
	}
	vtt := media.StripVTT(w.Duration, sw/media.StripColumns, sh/media.StripRows, func(n int) string {
		return fmt.Sprintf("%03d.jpg", n)
	})
	path := filepath.Join(sdir, "strip.vtt")
	if err := os.WriteFile(path, []byte(vtt), 0o600); err != nil {
		return nil, err
	}
	return append(outs, Output{Key: OutStrip, Path: path, Name: "strip/strip.vtt", ContentType: "text/vtt"}), nil
}

// earlyPoster is a poster made from the original before its proxy exists
// (the first phase): its first keyframe, shown within a second or so of an
// upload until the run's own poster replaces it.
func earlyPoster(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	out := filepath.Join(w.Dir, "poster.jpg")
	if err := media.Run(ctx, media.Command{Args: media.EarlyPosterArgs(w.Input, out, w.Probe)}); err != nil {
		return nil, err
	}
	if _, err := os.Stat(out); err != nil {
		return nil, err
	}
	pw, ph := ImageSize(ctx, out)
	return []Output{{Key: OutPoster, Path: out, Name: "poster.jpg", ContentType: "image/jpeg", Width: pw, Height: ph}}, nil
}
