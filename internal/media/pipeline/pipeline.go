// Package pipeline turns an original into what Loupe serves: it probes the
// file, and by what the streams say makes a web proxy, audio proxies, a
// poster, position thumbnails, a thumbnail strip, a waveform, or image
// renditions, into a work directory, checking each output by probing it.
// Storage, items and jobs are the caller's (the processing worker): this
// package only knows media steps, their order and their progress.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/loupe-mam/loupe/internal/media"
)

// Steps chooses what a run makes (POST /api/v1/process may ask for some).
type Steps struct {
	Proxy      bool `json:"proxy"`
	Thumbnails bool `json:"thumbnails"`
	Strip      bool `json:"strip"`
	Waveform   bool `json:"waveform"`
}

// AllSteps is the default: everything the media allows.
var AllSteps = Steps{Proxy: true, Thumbnails: true, Strip: true, Waveform: true}

// StepsOf is the steps named (proxy, thumbnails, strip, waveform; none:
// all), or the first name that is not a step.
func StepsOf(names []string) (Steps, error) {
	if len(names) == 0 {
		return AllSteps, nil
	}
	var s Steps
	for _, n := range names {
		switch n {
		case "proxy":
			s.Proxy = true
		case "thumbnails":
			s.Thumbnails = true
		case "strip":
			s.Strip = true
		case "waveform":
			s.Waveform = true
		default:
			return Steps{}, fmt.Errorf("%q is not a step (proxy, thumbnails, strip, waveform)", n)
		}
	}
	return s, nil
}

// Roles of outputs.
const (
	RoleProxy        = "proxy"
	RoleAudioProxy   = "audioProxy"
	RolePoster       = "poster"
	RoleThumbnail    = "thumbnail"
	RoleStripSheet   = "stripSheet"
	RoleStripVTT     = "stripVtt"
	RoleWaveformJSON = "waveformJson"
	RoleWaveformPNG  = "waveformPng"
	RolePreview      = "preview"
)

// Output is one file made.
type Output struct {
	Role        string
	Path        string // in the work directory
	Name        string // its name under the item's generated prefix
	ContentType string
	Width       int
	Height      int
	// Position is a thumbnail's place in the video (RoleThumbnail).
	Position time.Duration
	// Track is an audio proxy's track (0: the first).
	Track int
}

// Result is what a run found and made.
type Result struct {
	Kind     string // media.KindVideo, KindAudio, KindImage, KindOther
	Probe    *media.Probe
	Duration float64
	Outputs  []Output
	// Photo is an image's embedded metadata (nil for other kinds, or when
	// it could not be read: PhotoError says why; the run goes on).
	Photo      *media.Photo
	PhotoError string
}

// Progress is where a run is.
type Progress struct {
	Step    string  `json:"step"`
	Percent float64 `json:"percent"`
	// ETASeconds is the estimated time left (0: unknown).
	ETASeconds float64 `json:"etaSeconds"`
}

// weights share a video run's percent between its steps: the proxy is
// nearly all of the work; the keyframe steps are fractions of a second.
var weights = map[string]float64{"probe": 2, "proxy": 80, "audioProxies": 8, "thumbnails": 3, "strip": 2, "waveform": 5}

// Run processes input (a path or URL ffmpeg reads) into dir. known is
// what ffprobe said of input already (nil: Run probes it).
func Run(ctx context.Context, input, dir string, steps Steps, known *media.Probe, progress func(Progress)) (*Result, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	start := time.Now()
	done := 0.0
	report := func(step string, frac float64) {
		pct := math.Min(99, done+weights[step]*frac)
		eta := 0.0
		if pct > 3 {
			eta = time.Since(start).Seconds() * (100 - pct) / pct
		}
		progress(Progress{Step: step, Percent: math.Round(pct*10) / 10, ETASeconds: math.Round(eta)})
	}
	finish := func(step string) { done += weights[step] }

	report("probe", 0)
	p, err := known, error(nil)
	if p == nil {
		p, err = media.ProbeLocal(ctx, input)
	}
	if errors.Is(err, media.ErrNotMedia) {
		// Documents and unknown files are probed and marked, not failed.
		progress(Progress{Step: "done", Percent: 100})
		return &Result{Kind: media.KindOther, Probe: &media.Probe{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the file cannot be read as media: %w", err)
	}
	finish("probe")
	r := &Result{Kind: p.Kind(), Probe: p, Duration: p.Duration()}
	switch r.Kind {
	case media.KindVideo:
		err = r.video(ctx, input, dir, steps, report, finish)
	case media.KindAudio:
		err = r.audio(ctx, input, dir, steps, report, finish)
	case media.KindImage:
		if r.Photo, err = media.ReadPhoto(ctx, input); err != nil {
			r.PhotoError = err.Error()
		}
		err = r.image(ctx, input, dir, report)
	}
	if err != nil {
		return nil, err
	}
	progress(Progress{Step: "done", Percent: 100})
	return r, nil
}

// timed runs one ffmpeg command reporting its share of step as media time
// goes by.
func timed(ctx context.Context, args []string, total float64, step string, report func(string, float64)) error {
	return media.Run(ctx, media.Command{Args: args, OnProgress: func(pr media.Progress) {
		if total > 0 {
			report(step, math.Min(1, pr.Done.Seconds()/total))
		}
	}})
}

func (r *Result) video(ctx context.Context, input, dir string, steps Steps, report func(string, float64), finish func(string)) error {
	proxy := filepath.Join(dir, "proxy.mp4")
	made := steps.Proxy || steps.Thumbnails || steps.Strip
	if made {
		// The keyframe steps read the proxy: without a proxy asked for, one
		// is still made (and kept) for them.
		args, err := media.ProxyArgs(input, proxy, r.Probe)
		if err != nil {
			return err
		}
		report("proxy", 0)
		if err := timed(ctx, args, r.Duration, "proxy", report); err != nil {
			return fmt.Errorf("the proxy could not be made: %w", err)
		}
	}
	finish("proxy")
	// What follows reads the proxy's keyframes or the original's audio:
	// steps of a fraction of a second each, mostly on one core, that a
	// script runs one after the other (1.6 s for a 60 s 1080p clip here).
	// Two lanes at once, each with outputs of its own.
	var mu sync.Mutex
	rep := func(step string, f float64) { mu.Lock(); defer mu.Unlock(); report(step, f) }
	fin := func(step string) { mu.Lock(); defer mu.Unlock(); finish(step) }
	var lanes [2]Result
	for i := range lanes {
		lanes[i] = Result{Kind: r.Kind, Probe: r.Probe, Duration: r.Duration}
	}
	var checkErr error // the proxy's check: its failure is the reason, whatever else failed after
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if made {
			if checkErr = lanes[0].checkProxy(gctx, proxy); checkErr != nil {
				return checkErr
			}
		}
		if steps.Thumbnails {
			rep("thumbnails", 0)
			if err := lanes[0].thumbnails(gctx, proxy, dir); err != nil {
				return err
			}
		}
		fin("thumbnails")
		return nil
	})
	g.Go(func() error {
		if steps.Proxy {
			if err := lanes[1].audioProxies(gctx, input, dir, rep); err != nil {
				return err
			}
		}
		fin("audioProxies")
		if steps.Strip {
			rep("strip", 0)
			if err := lanes[1].strip(gctx, proxy, dir); err != nil {
				return err
			}
		}
		fin("strip")
		if steps.Waveform && r.Probe.Audio() != nil {
			rep("waveform", 0)
			return lanes[1].waveform(gctx, input, dir)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		if checkErr != nil {
			return checkErr
		}
		return err
	}
	r.Outputs = append(append(r.Outputs, lanes[0].Outputs...), lanes[1].Outputs...)
	return nil
}

// checkProxy probes the proxy made: a playable H.264 video as long as the
// original.
func (r *Result) checkProxy(ctx context.Context, proxy string) error {
	pp, err := media.ProbeFile(ctx, proxy)
	if err != nil || pp.Video() == nil || pp.Video().CodecName != "h264" {
		return fmt.Errorf("the proxy made is not a playable H.264 video: %v", err)
	}
	if d := pp.Duration(); r.Duration > 0 && math.Abs(d-r.Duration) > math.Max(1, r.Duration*0.02) {
		return fmt.Errorf("the proxy lasts %.2f s where the original lasts %.2f s", d, r.Duration)
	}
	w, h := pp.Video().DisplaySize()
	r.Outputs = append(r.Outputs, Output{Role: RoleProxy, Path: proxy, Name: "proxy.mp4", ContentType: "video/mp4",
		Width: w, Height: h})
	return nil
}

// audioProxies makes one AAC proxy per audio track beyond the first (the
// first is in the web proxy) — a player switches tracks with them.
func (r *Result) audioProxies(ctx context.Context, input, dir string, report func(string, float64)) error {
	tracks := r.Probe.AudioStreams()
	for i := 1; i < len(tracks); i++ {
		report("audioProxies", float64(i-1)/float64(len(tracks)-1))
		name := fmt.Sprintf("audio_%d.m4a", i)
		out := filepath.Join(dir, name)
		if err := media.Run(ctx, media.Command{Args: media.AudioProxyArgs(input, out, i)}); err != nil {
			return fmt.Errorf("the proxy of audio track %d could not be made: %w", i+1, err)
		}
		r.Outputs = append(r.Outputs, Output{Role: RoleAudioProxy, Path: out, Name: name, ContentType: "audio/mp4", Track: i})
	}
	return nil
}

// thumbnails makes the position thumbnails and the poster from the proxy's
// keyframes.
func (r *Result) thumbnails(ctx context.Context, proxy, dir string) error {
	tdir := filepath.Join(dir, "thumbnails")
	if err := os.MkdirAll(tdir, 0o700); err != nil {
		return err
	}
	if err := media.Run(ctx, media.Command{Args: media.ThumbnailsArgs(proxy, filepath.Join(tdir, "%05d.jpg"))}); err != nil {
		return fmt.Errorf("the thumbnails could not be made: %w", err)
	}
	files, _ := filepath.Glob(filepath.Join(tdir, "*.jpg"))
	sort.Strings(files)
	if len(files) == 0 {
		return fmt.Errorf("the proxy has no keyframe to make thumbnails of")
	}
	w, h := ImageSize(ctx, files[0])
	for i, f := range files {
		pos := time.Duration(i*media.KeyframeSeconds) * time.Second
		r.Outputs = append(r.Outputs, Output{Role: RoleThumbnail, Path: f, Name: "thumbnails/" + filepath.Base(f),
			ContentType: "image/jpeg", Position: pos, Width: w, Height: h})
	}
	poster := filepath.Join(dir, "poster.jpg")
	if err := media.Run(ctx, media.Command{Args: media.PosterArgs(proxy, poster, media.PosterPosition(r.Duration))}); err != nil {
		return fmt.Errorf("the poster could not be made: %w", err)
	}
	pw, ph := ImageSize(ctx, poster)
	r.Outputs = append(r.Outputs, Output{Role: RolePoster, Path: poster, Name: "poster.jpg", ContentType: "image/jpeg",
		Width: pw, Height: ph})
	return nil
}

// strip makes the sprite sheets and their WebVTT map; the map names the
// sheets by their names under the item's generated prefix (a player
// resolves them against the map's own URL).
func (r *Result) strip(ctx context.Context, proxy, dir string) error {
	sdir := filepath.Join(dir, "strip")
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return err
	}
	if err := media.Run(ctx, media.Command{Args: media.StripArgs(proxy, filepath.Join(sdir, "%03d.jpg"))}); err != nil {
		return fmt.Errorf("the thumbnail strip could not be made: %w", err)
	}
	sheets, _ := filepath.Glob(filepath.Join(sdir, "*.jpg"))
	sort.Strings(sheets)
	if len(sheets) == 0 {
		return fmt.Errorf("the proxy has no keyframe to make a strip of")
	}
	w, h := ImageSize(ctx, sheets[0])
	for _, s := range sheets {
		r.Outputs = append(r.Outputs, Output{Role: RoleStripSheet, Path: s, Name: "strip/" + filepath.Base(s),
			ContentType: "image/jpeg", Width: w, Height: h})
	}
	vtt := media.StripVTT(r.Duration, w/media.StripColumns, h/media.StripRows, func(n int) string {
		return fmt.Sprintf("%03d.jpg", n)
	})
	path := filepath.Join(sdir, "strip.vtt")
	if err := os.WriteFile(path, []byte(vtt), 0o600); err != nil {
		return err
	}
	r.Outputs = append(r.Outputs, Output{Role: RoleStripVTT, Path: path, Name: "strip/strip.vtt", ContentType: "text/vtt"})
	return nil
}

func (r *Result) audio(ctx context.Context, input, dir string, steps Steps, report func(string, float64), finish func(string)) error {
	finish("proxy")
	if steps.Proxy {
		out := filepath.Join(dir, "proxy.m4a")
		report("audioProxies", 0)
		if err := timed(ctx, media.AudioProxyArgs(input, out, 0), r.Duration, "audioProxies", report); err != nil {
			return fmt.Errorf("the audio proxy could not be made: %w", err)
		}
		r.Outputs = append(r.Outputs, Output{Role: RoleProxy, Path: out, Name: "proxy.m4a", ContentType: "audio/mp4"})
	}
	finish("audioProxies")
	finish("thumbnails")
	finish("strip")
	if steps.Waveform {
		report("waveform", 0)
		return r.waveform(ctx, input, dir)
	}
	return nil
}

// waveform makes the first audio track's peaks (JSON) and picture (PNG).
func (r *Result) waveform(ctx context.Context, input, dir string) error {
	w, err := media.Peaks(ctx, input, 0, r.Duration)
	if err != nil {
		return fmt.Errorf("the waveform could not be made: %w", err)
	}
	path := filepath.Join(dir, "waveform.json")
	if err := writeJSON(path, w); err != nil {
		return err
	}
	r.Outputs = append(r.Outputs, Output{Role: RoleWaveformJSON, Path: path, Name: "waveform.json", ContentType: "application/json"})
	png := filepath.Join(dir, "waveform.png")
	if err := media.Run(ctx, media.Command{Args: media.WaveformImageArgs(input, png, 0)}); err != nil {
		return fmt.Errorf("the waveform image could not be made: %w", err)
	}
	r.Outputs = append(r.Outputs, Output{Role: RoleWaveformPNG, Path: png, Name: "waveform.png", ContentType: "image/png",
		Width: 1800, Height: 280})
	return nil
}

// image makes an image's preview (JPEG) from the original, then its
// thumbnail (WebP) from the preview — a fifth of the pixels to read, and
// the preview is upright already with its metadata stripped.
func (r *Result) image(ctx context.Context, input, dir string, report func(string, float64)) error {
	report("thumbnails", 0)
	preview, thumb := filepath.Join(dir, "preview.jpg"), filepath.Join(dir, "thumbnail.webp")
	// Renditions read files only: the worker gives an image's run a local
	// path.
	sizes, err := media.Renditions(ctx, input, []media.RenditionSpec{
		{Path: preview, Size: media.ImagePreviewSize}, {Path: thumb, Size: media.ImageThumbnailSize}})
	if err != nil {
		return fmt.Errorf("the image renditions could not be made: %w", err)
	}
	r.Outputs = append(r.Outputs,
		Output{Role: RolePreview, Path: preview, Name: "preview.jpg", ContentType: "image/jpeg", Width: sizes[0][0], Height: sizes[0][1]},
		Output{Role: RolePoster, Path: thumb, Name: "thumbnail.webp", ContentType: "image/webp", Width: sizes[1][0], Height: sizes[1][1]})
	return nil
}

// ImageSize is an image's size from its header, else by probing it (0, 0
// when unreadable).
func ImageSize(ctx context.Context, path string) (int, int) {
	if w, h, err := media.ImageDims(path); err == nil {
		return w, h
	}
	p, err := media.ProbeFile(ctx, path)
	if err != nil || len(p.Streams) == 0 {
		return 0, 0
	}
	return p.Streams[0].Width, p.Streams[0].Height
}
