package worker

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// run is one attempt at one item.
type run struct {
	w            *Worker
	tenant, item string
	runKey       string
	jobID        int64
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
	// mediaSeconds is the duration of the media the run processed.
	mediaSeconds float64
}

func (r *run) do(ctx context.Context) error {
	claim, err := r.w.Store.ClaimProcessing(ctx, r.tenant, r.item, r.runKey, r.w.Node, Service, map[string]any{
		"step": "starting", "percent": 0, "attempt": r.attempt, "startedOn": r.started})
	if err != nil {
		return err
	}
	files, key, err := r.source(ctx, claim.Source, claim.StorageID)
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
	// A long video's proxy is made in segments kept in the file store
	// (segments.go): this job's next attempt, on any node, resumes there.
	resume := &pipeline.Resume{Keeper: segmentKeeper{r}, SegmentSeconds: r.w.SegmentSeconds}
	res, err := pipeline.RunResuming(runCtx, input, dir, r.steps, r.known, resume, func(p pipeline.Progress) {
		r.progress(ctx, map[string]any{"step": p.Step, "percent": p.Percent, "etaSeconds": p.ETASeconds}, false) //nolint:errcheck
	})
	if err != nil {
		if ctx.Err() != nil || runCtx.Err() != nil {
			if ctx.Err() == nil {
				return store.ErrStaleRun // cancelled by a newer run or the item's deletion
			}
			return ctx.Err()
		}
		var keep *pipeline.KeepError
		if errors.As(err, &keep) {
			return keep.Err // the storage or the database (try again), or a newer run
		}
		// The reason is shown on the item: the server's paths and links
		// are not.
		return permanent("%s", strings.ReplaceAll(err.Error(), input, "the original"))
	}
	r.mediaSeconds = res.Duration
	if s := res.Segments; s != nil && s.Reused > 0 {
		r.w.log().Info("proxy resumed", "tenant", r.tenant, "item", r.item, "run", r.runKey,
			"segmentsReused", s.Reused, "segments", s.Count)
	}
	if res.NotMedia != nil && media.ClaimsMedia(claim.FileName) {
		// A document is kept as it is; one named as media is a mistake
		// (a wrong file, a renamed one) a person should hear of.
		return permanent("not a media file: looks like %s, though its name (%s) says media", res.NotMedia.Description, claim.FileName)
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
