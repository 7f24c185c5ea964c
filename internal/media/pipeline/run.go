package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/loupe-mam/loupe/internal/media"
)

// Work is what a step works on.
type Work struct {
	// Input is the original: a path or a URL ffmpeg reads.
	Input string
	// Dir is the run's work directory, where outputs go.
	Dir      string
	Probe    *media.Probe
	Kind     string
	Duration float64
	// Photo is an image's embedded metadata (nil for other kinds, or when
	// it could not be read: PhotoError says why; the run goes on).
	Photo      *media.Photo
	PhotoError string
	// Resume keeps a long video's proxy segments for a later attempt
	// (nil: the proxy is one run, as a test's or the bench's).
	Resume *Resume
	// Segments is what the proxy's segments were (nil: one run).
	Segments *Segments
}

// Output is one file made.
type Output struct {
	// Key names it among the item's generated media (OutProxy…); "" for a
	// file another output names (a strip's sheets).
	Key string
	// Many: one of several outputs of its key (audio tracks, thumbnails).
	Many        bool
	Path        string // in the work directory
	Name        string // its name under the item's generated prefix
	ContentType string
	Width       int
	Height      int
	// Position is a thumbnail's place in the video.
	Position time.Duration
	// Metering is its step's.
	Metering Metering
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
	// NotMedia says what a file of kind other is (a document, an
	// archive): nothing is made of it.
	NotMedia *media.Diagnosis
	// Segments is what the video proxy's segments were (nil: one run).
	Segments *Segments
}

// Progress is where a run is.
type Progress struct {
	Step    string  `json:"step"`
	Percent float64 `json:"percent"`
	// ETASeconds is the estimated time left (0: unknown).
	ETASeconds float64 `json:"etaSeconds"`
}

// Run processes input (a path or URL ffmpeg reads) into dir: the table's
// rows for the media kind the probe finds, those steps asks for. known is
// what ffprobe said of input already (nil: Run probes it).
func Run(ctx context.Context, input, dir string, steps Steps, known *media.Probe, progress func(Progress)) (*Result, error) {
	return RunResuming(ctx, input, dir, steps, known, nil, progress)
}

// RunResuming is Run whose long video proxy is made in segments that
// resume keeps (segments.go): an attempt after a takeover or a retry
// encodes only what the earlier ones did not finish.
func RunResuming(ctx context.Context, input, dir string, steps Steps, known *media.Probe, resume *Resume, progress func(Progress)) (*Result, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	progress(Progress{Step: StepProbe})
	p, err := known, error(nil)
	if p == nil {
		p, err = media.ProbeLocal(ctx, input)
	}
	if err != nil || p.Kind() == media.KindOther {
		return notMedia(ctx, input, err, progress)
	}
	w := &Work{Input: input, Dir: dir, Probe: p, Kind: p.Kind(), Duration: p.Duration(), Resume: resume}
	rows := rowsOf(w.Kind, false)
	pr := newPercent(rows, progress)
	pr.finish(rows[0]) // the probe
	outs, err := runRows(ctx, w, rows[1:], steps.made(rows), pr)
	if err != nil {
		return nil, err
	}
	progress(Progress{Step: "done", Percent: 100})
	return &Result{Kind: w.Kind, Probe: p, Duration: w.Duration, Outputs: outs, Photo: w.Photo, PhotoError: w.PhotoError,
		Segments: w.Segments}, nil
}

// notMedia answers a file in which ffprobe found no media (probeErr: why,
// nil when it read it and found no stream): broken media fails the run
// with the reason its bytes show; a document or an archive is a result of
// kind other, with what it is.
func notMedia(ctx context.Context, input string, probeErr error, progress func(Progress)) (*Result, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	d, err := media.Diagnose(ctx, input, probeErr)
	if err != nil {
		return nil, fmt.Errorf("the file cannot be read: %w", err)
	}
	if d.Broken {
		return nil, errors.New(d.Reason)
	}
	progress(Progress{Step: "done", Percent: 100})
	return &Result{Kind: media.KindOther, Probe: &media.Probe{}, NotMedia: &d}, nil
}

// Early runs the first phase's steps for the original input that p
// describes (a video's early poster) into dir; step is told each step's
// name as it starts.
func Early(ctx context.Context, input, dir string, p *media.Probe, step func(name string)) ([]Output, error) {
	w := &Work{Input: input, Dir: dir, Probe: p, Kind: p.Kind(), Duration: p.Duration()}
	var outs []Output
	for _, st := range rowsOf(w.Kind, true) {
		step(st.Name)
		o, err := st.Run(ctx, w, func(float64) {})
		if err != nil {
			return outs, err
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

// runRows runs the rows made: lane 0's in order, then the other lanes side
// by side. Outputs are answered in table order.
func runRows(ctx context.Context, w *Work, rows []*Step, made map[*Step]bool, pr *percent) ([]Output, error) {
	outs := make([][]Output, len(rows))
	errs := make([]error, len(rows))
	lanes := map[int][]int{}
	var order []int
	for i, st := range rows {
		if _, ok := lanes[st.Lane]; !ok {
			order = append(order, st.Lane)
		}
		lanes[st.Lane] = append(lanes[st.Lane], i)
	}
	runLane := func(ctx context.Context, idx []int) error {
		for _, i := range idx {
			st := rows[i]
			if made[st] {
				pr.report(st, 0)
				o, err := st.Run(ctx, w, func(f float64) { pr.report(st, f) })
				if err != nil {
					if ctx.Err() == nil {
						// Its own failure, not the stop another lane's
						// failure caused (which is the reason then).
						errs[i] = err
					}
					return err
				}
				for j := range o {
					o[j].Metering = st.Metering
				}
				outs[i] = o
			}
			pr.finish(st)
		}
		return nil
	}
	if err := runLane(ctx, lanes[0]); err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, l := range order {
		if l != 0 {
			g.Go(func() error { return runLane(gctx, lanes[l]) })
		}
	}
	if err := g.Wait(); err != nil {
		for i, st := range rows {
			if st.Verifies && errs[i] != nil {
				return nil, errs[i]
			}
		}
		return nil, err
	}
	var all []Output
	for _, o := range outs {
		all = append(all, o...)
	}
	return all, nil
}

// percent shares a run's percent between its steps by their weights
// (each step's share of a run's time, measured: steps.go) and estimates
// the time left from the run's own recent rate.
type percent struct {
	mu       sync.Mutex
	progress func(Progress)
	now      func() time.Time // time.Now; a test's clock
	rows     []*Step
	total    float64
	done     float64 // the weight of the steps finished
	finished map[*Step]bool
	running  map[*Step]float64 // the fraction done of the steps running
	began    time.Time         // the first report
	samples  []sample          // the path's weight left, over the last rateWindow
	last     float64           // the percent last reported: it never goes back
}

// sample is the weight left on the run's longest path at a time.
type sample struct {
	at   time.Time
	left float64
}

// The time left is the weight left on the run's longest path (lane 0's
// steps, then the longest of the lanes after it) at the rate that path
// went down over the last rateWindow (ffmpeg's speed changes as a run
// goes: a node gets busier or quieter), measured from warmUp into the run
// (ffmpeg's first second is slower: it starts its threads and fills its
// lookahead) and said once measured for etaAfter.
const (
	rateWindow = 5 * time.Second
	warmUp     = time.Second
	etaAfter   = time.Second
)

func newPercent(rows []*Step, progress func(Progress)) *percent {
	p := &percent{rows: rows, progress: progress, now: time.Now, running: map[*Step]float64{}, finished: map[*Step]bool{}}
	for _, st := range rows {
		p.total += st.Weight
	}
	return p
}

// report says step st is frac done.
func (p *percent) report(st *Step, frac float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.running[st] = math.Max(p.running[st], math.Min(1, frac))
	units := p.done
	for s, f := range p.running {
		units += s.Weight * f
	}
	pct := 0.0
	if p.total > 0 {
		pct = math.Min(99, units/p.total*100)
	}
	p.last = math.Max(p.last, pct)
	if p.began.IsZero() {
		p.began = now
	}
	left := p.pathLeft()
	if now.Sub(p.began) >= warmUp {
		p.samples = append(p.samples, sample{now, left})
		for len(p.samples) > 2 && now.Sub(p.samples[1].at) >= rateWindow {
			p.samples = p.samples[1:]
		}
	}
	eta := 0.0
	if len(p.samples) > 0 {
		if from := p.samples[0]; now.Sub(from.at) >= etaAfter && from.left > left {
			eta = now.Sub(from.at).Seconds() / (from.left - left) * left
		}
	}
	p.progress(Progress{Step: st.Name, Percent: math.Round(p.last*10) / 10, ETASeconds: math.Round(eta)})
}

// finish counts st done (made or not).
func (p *percent) finish(st *Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, st)
	p.finished[st] = true
	p.done += st.Weight
}

// pathLeft is the weight left on the run's longest path: lane 0's, then
// the longest of the lanes that run side by side after it.
func (p *percent) pathLeft() float64 {
	left := map[int]float64{}
	for _, st := range p.rows {
		if !p.finished[st] {
			left[st.Lane] += st.Weight * (1 - p.running[st])
		}
	}
	longest := 0.0
	for lane, w := range left {
		if lane != 0 {
			longest = math.Max(longest, w)
		}
	}
	return left[0] + longest
}

// timed runs one ffmpeg command, reporting the media time written as its
// share of total seconds.
func timed(ctx context.Context, args []string, total float64, report func(float64)) error {
	return media.Run(ctx, media.Command{Args: args, OnProgress: func(pr media.Progress) {
		if total > 0 {
			report(math.Min(1, pr.Done.Seconds()/total))
		}
	}})
}

// HasEarly reports whether media of kind has first-phase steps (Early).
func HasEarly(kind string) bool { return len(rowsOf(kind, true)) > 0 }
