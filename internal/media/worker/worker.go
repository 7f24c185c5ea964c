// Package worker is the worker of process_item jobs (internal/jobs): it
// claims the item, runs internal/media/pipeline on its original, stores the
// outputs under a prefix of the run's own and switches them onto the item
// in one transaction (store.FinishProcessing), so that a crash or a re-run
// never leaves a half-written or mixed set visible. docs/processing.md.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// Service names the engine in transcodingService.
const Service = "loupe-ffmpeg"

// Timeout bounds a run of an original whose duration is unknown (see
// TranscodeTimeout for the others).
const Timeout = jobs.MaxJobTimeout

// localCopyLimit: an original up to this size is copied into the work
// directory when the store is not local disk (images: libvips reads files
// only; small files: one fast read); larger ones are read by ffmpeg
// through a presigned URL, seeking with HTTP ranges.
const localCopyLimit = 512 << 20

// progressEvery is how often a run writes its progress at most.
const progressEvery = time.Second

// slotWait is how long a job waits on this node for a free slot before it
// goes back to the queue (snoozed, for another node that may be idle).
// Not less: a snoozed job is made available again only by River's
// scheduler, every 5 s, where waiting here starts it the moment the slot
// frees (docs/performance.md, "Numbers behind the code").
const slotWait = 20 * time.Second

// Worker works process_item jobs.
type Worker struct {
	river.WorkerDefaults[jobs.ProcessArgs]
	Store *store.Store
	// Files is the server's file store, unwrapped (a *blob.Disk or a
	// *blob.S3): outputs are written to it.
	Files blob.Store
	// Node names this node in transcodingBy.
	Node   string
	Logger *slog.Logger
	// Sources opens originals: in Files (uploads), a storage location or an
	// ingest source's bucket.
	Sources *sources.Sources
	// TempDir holds work directories (os.TempDir() when empty).
	TempDir string

	once sync.Once
	sem  chan struct{}
	// Concurrency bounds the runs at once on this node (default: half the
	// cores, at least 1: each ffmpeg uses several).
	Concurrency int
	// TimeoutFloor is the least time a run is given (default
	// transcodeFloor); see Timeout.
	TimeoutFloor time.Duration
}

// Work implements river.Worker.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.ProcessArgs]) error {
	w.once.Do(func() {
		n := w.Concurrency
		if n < 1 {
			n = max(1, runtime.GOMAXPROCS(0)/2)
		}
		w.sem = make(chan struct{}, n)
	})
	if !job.Args.Probed {
		return w.probe(ctx, job)
	}
	return w.transcode(ctx, job, nil)
}

// transcode is the second phase (a still image's is run by the first:
// known is its probe, nil for a job of the second phase).
func (w *Worker) transcode(ctx context.Context, job *river.Job[jobs.ProcessArgs], known *media.Probe) error {
	// A transcode takes a slot of this node's; with every slot busy for
	// slotWait, the job goes back to the queue for another node that may
	// be idle. A still image (known) or a document (a known duration of
	// 0) is a fraction of a second of work: it takes none, and River's
	// workers per queue bound those. (A JPEG's probe says 0.04 s: the
	// duration alone made photos wait for each other.)
	if known == nil && job.Args.DurationSeconds != 0 {
		select {
		case w.sem <- struct{}{}:
			defer func() { <-w.sem }()
		case <-time.After(slotWait):
			return river.JobSnooze(time.Second)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a := job.Args
	r := &run{w: w, tenant: a.TenantID, item: a.ItemID, runKey: fmt.Sprintf("%d.%d", job.ID, job.Attempt),
		attempt: job.Attempt, started: time.Now().UTC(), timeout: w.Timeout(job),
		analyze: a.Analyze, analyzeForce: a.AnalyzeForce, queue: job.Queue, known: known}
	// The steps were checked when asked for; a job of an older release
	// naming one no longer known runs them all.
	steps, err := pipeline.StepsOf(a.Steps)
	if err != nil {
		steps = pipeline.AllSteps
	}
	r.steps = steps
	err = r.do(ctx)
	var perm *permanentError
	switch {
	case err == nil, errors.Is(err, store.ErrStaleRun), loupe.ErrorKind(err) == loupe.ENOTFOUND:
		// Done, taken over by a newer run, or the item is gone: nothing
		// more to do.
		return nil
	case errors.As(err, &perm):
		w.log().Warn("processing failed", "tenant", a.TenantID, "item", a.ItemID, "reason", perm.reason)
		if ferr := w.Store.FailProcessing(context.WithoutCancel(ctx), a.TenantID, a.ItemID, r.runKey, perm.reason); ferr != nil && !errors.Is(ferr, store.ErrStaleRun) {
			return ferr
		}
		return river.JobCancel(err)
	default:
		// Transient (storage, database, a timeout): River retries with
		// backoff; the item shows the attempt's error meanwhile.
		r.progress(context.WithoutCancel(ctx), map[string]any{"step": "retrying", "error": err.Error()}, true) //nolint:errcheck
		return err
	}
}

func (w *Worker) log() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

// permanentError is a failure that a retry cannot change (the media).
type permanentError struct{ reason string }

func (e *permanentError) Error() string { return e.reason }

func permanent(format string, args ...any) error {
	return &permanentError{reason: fmt.Sprintf(format, args...)}
}

// run is one attempt at one item.
type run struct {
	w            *Worker
	tenant, item string
	runKey       string
	attempt      int
	timeout      time.Duration
	steps        pipeline.Steps
	// What to ask for after (jobs.ProcessArgs.Analyze), on the job's
	// queue.
	analyze       []string
	analyzeForce  bool
	queue         string
	started       time.Time
	lastProgress  time.Time
	cancelOnStale context.CancelFunc
	known         *media.Probe // the first phase's probe of a still image
}

func (r *run) do(ctx context.Context) error {
	src, storageID, err := r.w.Store.ClaimProcessing(ctx, r.tenant, r.item, r.runKey, r.w.Node, Service, map[string]any{
		"step": "starting", "percent": 0, "attempt": r.attempt, "startedOn": r.started})
	if err != nil {
		return err
	}
	files, key, err := r.source(ctx, src, storageID)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(r.w.TempDir, "loupe-process-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	input, err := r.input(ctx, files, key, dir)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.cancelOnStale = cancel
	res, err := pipeline.Run(runCtx, input, dir, r.steps, r.known, func(p pipeline.Progress) {
		r.progress(ctx, map[string]any{"step": p.Step, "percent": p.Percent, "etaSeconds": p.ETASeconds}, false) //nolint:errcheck
	})
	if err != nil {
		if ctx.Err() != nil || runCtx.Err() != nil {
			if ctx.Err() == nil {
				return store.ErrStaleRun // cancelled by a newer run or the item's deletion
			}
			return ctx.Err()
		}
		// The reason is shown on the item: the server's paths and links
		// are not.
		return permanent("%s", strings.ReplaceAll(err.Error(), input, "the original"))
	}
	return r.finish(ctx, res)
}

// progress writes p at most every progressEvery (always when force); a
// stale run is cancelled.
func (r *run) progress(ctx context.Context, p map[string]any, force bool) error {
	if !force && time.Since(r.lastProgress) < progressEvery {
		return nil
	}
	r.lastProgress = time.Now()
	p["attempt"], p["startedOn"] = r.attempt, r.started
	err := r.w.Store.WriteProgress(ctx, r.tenant, r.item, r.runKey, p)
	if errors.Is(err, store.ErrStaleRun) && r.cancelOnStale != nil {
		r.cancelOnStale()
	}
	return err
}

// source is the store and key of the item's original, wherever it lies
// (sources.Sources.Original); a place gone or an original Loupe cannot read
// fails the item saying so.
func (r *run) source(ctx context.Context, location, storageID string) (blob.Store, string, error) {
	s, key, _, err := r.w.Sources.Original(ctx, r.tenant, location, storageID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, "", permanent("the place that held the item's original (%s) no longer exists", storageID)
	}
	var le *loupe.Error
	if errors.As(err, &le) && le.Kind == loupe.EINVALID {
		return nil, "", permanent("%s", le.Message)
	}
	return s, key, err
}

// input is what ffmpeg reads: the file itself on local disk, a local copy
// of a small original, or a presigned URL.
func (r *run) input(ctx context.Context, files blob.Store, key, dir string) (string, error) {
	if _, disk := files.(*blob.Disk); !disk {
		obj, err := files.Stat(ctx, key)
		if errors.Is(err, blob.ErrNotFound) {
			return "", permanent("the item's original is missing from storage")
		}
		if err != nil {
			return "", err
		}
		if obj.Size > localCopyLimit {
			if u, ok, err := sources.Input(ctx, files, key, min(r.timeout+10*time.Minute, blob.MaxPresignTTL)); ok || err != nil {
				return u, err
			}
		}
	}
	p, err := sources.Local(ctx, files, key, dir, "original")
	if errors.Is(err, blob.ErrNotFound) {
		return "", permanent("the item's original is missing from storage")
	}
	return p, err
}

// finish stores the outputs under the run's prefix and switches them onto
// the item; the outputs they replace are deleted after.
func (r *run) finish(ctx context.Context, res *pipeline.Result) error {
	prefix := store.GeneratedPrefix(r.tenant, r.item) + strings.ReplaceAll(r.runKey, ".", "-") + "/"
	g := store.GeneratedMedia{Prefix: prefix, Kind: res.Kind, MadeOn: time.Now().UTC()}
	out := &store.ProcessingResult{Fields: map[string]any{"mediaKind": res.Kind}}
	r.progress(ctx, map[string]any{"step": "storing", "percent": 99}, true) //nolint:errcheck
	out.Work = store.MediaOperation{Kind: store.OperationTranscoding, Provider: Service}
	for _, o := range res.Outputs {
		key := prefix + o.Name
		obj, err := r.put(ctx, key, o.Path, o.ContentType)
		if err != nil {
			r.drop(prefix)
			return err
		}
		out.StoredBytes += obj.Size
		out.StoredFiles++
		switch o.Metering {
		case pipeline.MeteredMediaTime:
			out.Work.Outputs++
			out.Work.MediaSeconds += res.Duration
		case pipeline.MeteredOutput:
			out.Work.Outputs++
		}
		switch o.Key {
		case "":
		case pipeline.OutThumbnails:
			// The item's position thumbnails are rows of their own.
			out.Thumbnails = append(out.Thumbnails, store.GeneratedThumbnail{PositionMs: o.Position.Milliseconds(), Key: key})
			out.ThumbW, out.ThumbH = o.Width, o.Height
		default:
			g.Add(o.Key, key, o.Many)
		}
		// The spec's fields that describe an output.
		switch o.Key {
		case pipeline.OutProxy:
			out.Fields["proxySize"] = obj.Size
		case pipeline.OutPoster:
			out.Fields["thumbnailInfo"] = map[string]any{"width": o.Width, "height": o.Height, "chosenBy": "processing",
				"positionSeconds": posterPosition(res)}
		}
	}
	out.Generated = g
	tech, err := json.Marshal(res.Technical())
	if err != nil {
		return err
	}
	out.Technical = tech
	if fc := pipeline.FrameCount(res.Probe); fc > 0 {
		out.FrameCount = &fc
	}
	out.MediaCreatedOn = res.CreatedOn()
	if g := res.Where(); g != nil {
		out.GeoLocation = loupe.JSONOf(g)
	}
	out.Analyze, out.AnalyzeForce, out.Queue, out.DurationSeconds = r.analyze, r.analyzeForce, r.queue, res.Duration
	out.NewMedia = r.steps[pipeline.StepProxy]
	out.Progress = map[string]any{"step": "done", "percent": 100, "attempt": r.attempt, "startedOn": r.started,
		"finishedOn": time.Now().UTC()}
	old, err := r.w.Store.FinishProcessing(ctx, r.tenant, r.item, r.runKey, out)
	if err != nil {
		r.drop(prefix)
		return err
	}
	if old != "" {
		r.drop(old)
	}
	return nil
}

func posterPosition(res *pipeline.Result) float64 {
	if res.Kind != media.KindVideo {
		return 0
	}
	return media.PosterPosition(res.Duration)
}

// put stores one output file.
func (r *run) put(ctx context.Context, key, path, contentType string) (blob.Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return blob.Object{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return blob.Object{}, err
	}
	return r.w.Files.Put(ctx, key, f, blob.WithContentType(contentType), blob.WithSize(st.Size()))
}

// drop deletes what is under prefix (a run's outputs), best effort: a
// leftover is invisible (no item points at it).
func (r *run) drop(prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	after := ""
	for {
		objs, more, err := r.w.Files.List(ctx, prefix, after, 1000)
		if err != nil {
			r.w.log().Warn("outputs left behind", "prefix", prefix, "err", err)
			return
		}
		for _, o := range objs {
			if err := r.w.Files.Delete(ctx, o.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
				r.w.log().Warn("output left behind", "key", o.Key, "err", err)
			}
		}
		if !more || len(objs) == 0 {
			return
		}
		after = objs[len(objs)-1].Key
	}
}
