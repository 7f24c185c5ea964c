// Package worker is the worker of process_item jobs (internal/jobs): it
// claims the item, runs internal/media/pipeline on its original, stores the
// outputs under a prefix of the run's own and switches them onto the item
// in one transaction (store.FinishProcessing), so that a crash or a re-run
// never leaves a half-written or mixed set visible. docs/processing.md.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
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
	// SegmentSeconds is the length of a long video proxy's segments, what
	// a run taken over loses at most (0: media.SegmentSeconds).
	SegmentSeconds int
	// keptHook, a test's, is told each segment a run keeps.
	keptHook func(runKey string, segment int)
	// Metrics counts the runs by outcome and the media seconds processed
	// (nil: none).
	Metrics *metrics.Metrics
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
		jobID: job.ID, attempt: job.Attempt, started: time.Now().UTC(), timeout: w.Timeout(job),
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
	case err == nil:
		w.Metrics.ProcessingRun(metrics.ProcessingSucceeded, r.mediaSeconds)
		r.dropSegments(ctx)
		return nil
	case errors.Is(err, store.ErrStaleRun), loupe.ErrorKind(err) == loupe.ENOTFOUND:
		// Taken over by a newer run, or the item is gone: nothing more
		// to do (the newer run uses the segments kept).
		w.Metrics.ProcessingRun(metrics.ProcessingSuperseded, 0)
		if !errors.Is(err, store.ErrStaleRun) {
			r.dropSegments(ctx)
		}
		return nil
	case errors.As(err, &perm):
		w.Metrics.ProcessingRun(metrics.ProcessingFailed, 0)
		w.log().Warn("processing failed", "tenant", a.TenantID, "item", a.ItemID, "reason", perm.reason)
		if ferr := w.Store.FailProcessing(context.WithoutCancel(ctx), a.TenantID, a.ItemID, r.runKey, perm.reason,
			store.MediaOperation{Kind: store.OperationTranscoding, Provider: Service}); ferr != nil && !errors.Is(ferr, store.ErrStaleRun) {
			return ferr
		} else if ferr == nil {
			r.dropSegments(ctx) // no attempt follows
		}
		return river.JobCancel(err)
	default:
		// Transient (storage, database, a timeout): River retries with
		// backoff; the item shows the attempt's error meanwhile.
		w.Metrics.ProcessingRun(metrics.ProcessingRetried, 0)
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
