package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
)

// A processing job runs in two phases, so that the transcode's timeout is
// its own: River runs the job of a killed node again after that timeout
// (internal/jobs), and a timeout sized for the longest possible original
// would leave every interrupted upload waiting an hour.
//
//  1. probe (ProcessArgs.Probed false): ffprobe reads the original's
//     headers (seconds at most, also through a presigned URL), then the job
//     completes and inserts its second phase in one transaction
//     (river.JobCompleteTx), carrying the duration;
//  2. transcode (Probed true): the run, bounded by TranscodeTimeout.
//
// A still image is made in the first phase, within probeTimeout; a video's
// early poster is shown from it (early_poster.go).

// probe is the first phase: it claims the item, reads the original's
// duration, shows an early poster and hands over to the second. Whatever
// stops it from reading the duration (the original missing, unreadable,
// not media) leaves it unknown or zero: the second phase meets the same and
// says why on the item.
func (w *Worker) probe(ctx context.Context, job *river.Job[jobs.ProcessArgs]) error {
	a := job.Args
	r := &run{w: w, tenant: a.TenantID, item: a.ItemID, runKey: fmt.Sprintf("%d.%d", job.ID, job.Attempt),
		attempt: job.Attempt, started: time.Now().UTC()}
	// The item shows its processing from here (its first progress within
	// a moment of the upload), held by this phase until the next claims it.
	claim, err := w.Store.ClaimProcessing(ctx, a.TenantID, a.ItemID, r.runKey,
		w.Node, Service, map[string]any{"step": "probe", "percent": 0, "attempt": r.attempt, "startedOn": r.started})
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil // the item is gone
	}
	if err != nil {
		return err
	}
	next := a
	next.Probed, next.DurationSeconds = true, -1
	if files, key, err := r.source(ctx, claim.Source, claim.StorageID); err == nil {
		p, input, ok := probeSource(ctx, files, key)
		if ok {
			next.DurationSeconds = p.Duration()
		}
		switch {
		case ok && p.Kind() == media.KindImage:
			// A still's renditions take a fraction of a second: this job
			// makes them, with the probe it has (a second job and a
			// second ffprobe doubled a photo's time).
			job.Args = next
			return w.transcode(ctx, job, p)
		case p != nil && pipeline.HasEarly(p.Kind()):
			r.early(ctx, input, p, job.ID)
		}
	} else if !errors.As(err, new(*permanentError)) {
		return err // the storage or the database: try again
	}
	return w.Store.ContinueProcessing(ctx, func(tx *sql.Tx) error {
		_, err := river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx, job)
		return err
	}, next, job.Queue, job.Priority)
}

// probeSource probes key in files without copying it — the file itself on
// local disk, a presigned URL on S3 — answering the probe (nil when it
// cannot be read), what ffmpeg read, and whether the duration is known
// (not media: known, zero).
func probeSource(ctx context.Context, files blob.Store, key string) (*media.Probe, string, bool) {
	input, ok, err := sources.Input(ctx, files, key, probeTimeout)
	if !ok || err != nil {
		return nil, "", false
	}
	p, err := media.ProbeLocal(ctx, input)
	if errors.Is(err, media.ErrNotMedia) {
		return &media.Probe{}, input, true
	}
	if err != nil {
		return nil, input, false
	}
	if p.Duration() <= 0 && (p.Kind() == media.KindVideo || p.Kind() == media.KindAudio) {
		return p, input, false // a stream with no duration (a raw elementary stream)
	}
	return p, input, true
}
