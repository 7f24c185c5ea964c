package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// This file scans an ingest storage configuration (docs/ingest.md): its
// prefix listed page by page (blob.Store.List's position survives
// restarts), each page's items, ingested_objects rows and the scan's
// position written in one transaction. A scan killed anywhere resumes from
// the last page that committed; a page done twice (at-least-once delivery)
// creates nothing twice, since the ingest is idempotent by bucket, key and
// ETag.

// ScanOptions tune a scan.
type ScanOptions struct {
	// PageSize is the keys listed per page (blob.MaxListLimit when 0).
	PageSize int
	// Slice bounds one run of the job: past it the scan stops after a
	// page and the job snoozes, to resume at once from its position (so a
	// scan of any size stays within the job timeout). 0: 5 minutes.
	Slice time.Duration
	// AfterPage, when set, is called after each page committed (tests).
	AfterPage func(page int)
	// run is the scan's number (jobs.ScanArgs.Run); 0: whichever.
	run int
}

// errSliceUsed stops a scan whose run used its slice.
var errSliceUsed = errors.New("ingest: scan slice used")

// ScanWorker works the scan jobs (jobs.ScanArgs).
type ScanWorker struct {
	river.WorkerDefaults[jobs.ScanArgs]
	Ingest *Service
	Opts   ScanOptions
}

// scanAttempts is how often a scan that fails (its bucket unreachable, the
// database gone) is tried before it is failed for good.
const scanAttempts = 5

// Timeout bounds one run: the slice plus a page's worth. It is also how
// long a scan whose node was killed waits before it resumes elsewhere
// (internal/jobs): short slices keep that short, at the cost of a snooze
// every slice.
func (w *ScanWorker) Timeout(*river.Job[jobs.ScanArgs]) time.Duration {
	return w.slice() + time.Minute
}

func (w *ScanWorker) slice() time.Duration {
	if w.Opts.Slice > 0 {
		return w.Opts.Slice
	}
	return 30 * time.Second
}

// Work runs the scan; a used slice snoozes the job (it resumes at once).
func (w *ScanWorker) Work(ctx context.Context, job *river.Job[jobs.ScanArgs]) error {
	opts := w.Opts
	opts.Slice = w.slice()
	opts.run = job.Args.Run
	err := w.Ingest.Scan(ctx, job.Args.TenantID, job.Args.ConfigID, opts)
	if errors.Is(err, errSliceUsed) {
		return river.JobSnooze(0)
	}
	if err != nil && job.Attempt >= scanAttempts {
		msg := err.Error()
		var le *loupe.Error
		if errors.As(err, &le) {
			msg = le.Message
		}
		_ = w.Ingest.Store.SetScanState(context.WithoutCancel(ctx), job.Args.TenantID, job.Args.ConfigID, loupe.ScanFailed, msg, ptr(""), nil)
		return river.JobCancel(err)
	}
	return err
}

// Scan scans a configuration: from the top when it is not already
// scanning, else from its position. It records complete when done, and
// failed (without an error: nothing to retry) when the configuration cannot
// be scanned (disabled, credentials that do not open or reach the bucket).
// Other errors (a listing or database failure) are returned for the job
// to retry; the state stays scanning.
func (s *Service) Scan(ctx context.Context, tenantID, configID string, opts ScanOptions) error {
	c, err := s.Store.IngestConfig(ctx, tenantID, configID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	fail := func(msg string) error {
		return s.Store.SetScanState(ctx, tenantID, configID, loupe.ScanFailed, msg, ptr(""), nil)
	}
	if opts.run != 0 && opts.run != c.ScanRun {
		return nil // a scan another has taken over from
	}
	if c.IsDisabled {
		return fail("the ingest configuration is disabled")
	}
	after, counts := "", loupe.ScanCounts{}
	if c.ScanState != nil && *c.ScanState == loupe.ScanScanning {
		after, counts = c.ScanAfter, c.Counts()
	} else if err := s.Store.SetScanState(ctx, tenantID, configID, loupe.ScanScanning, counts.Message(), &after, &counts); err != nil {
		return err
	}
	s3, secret, err := s.Sources.Bucket(ctx, sources.ConfigAccess(c))
	if err != nil {
		return fail(sources.BucketError("Could not read the bucket: ", err, secret).Message)
	}
	p, err := s.Store.ScanPrincipal(ctx, c)
	if err != nil {
		return err
	}
	pl := ConfigPlan(c)
	folders := map[string]string{}
	start := time.Now()
	// The next page is listed while this one is written.
	lctx, stopListing := context.WithCancel(ctx)
	defer stopListing()
	pages := listPages(lctx, s3, c.SourceKeyPrefix, after, opts.PageSize)
	for page := 1; ; page++ {
		lp, ok := <-pages
		if !ok {
			return ctx.Err()
		}
		if lp.err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			le := sources.BucketError("Could not list the bucket: ", lp.err, secret)
			if sources.IsAccessError(lp.err) {
				return fail(le.Message)
			}
			return le
		}
		keys := lp.keys
		n := counts
		objs, err := pl.pageObjects(ctx, s3, keys, &n)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return sources.BucketError("Could not read sidecars or tags: ", err, secret)
		}
		pos := &store.ScanPosition{ConfigID: configID, After: after, Counts: n}
		if len(keys) > 0 {
			pos.After = keys[len(keys)-1].Key
		}
		if _, err := s.Store.IngestObjects(ctx, p, pl.Source, objs, pos, folders); err != nil {
			return err
		}
		after, counts = pos.After, pos.Counts
		if opts.AfterPage != nil {
			opts.AfterPage(page)
		}
		if !lp.more || len(keys) == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if opts.Slice > 0 && time.Since(start) > opts.Slice {
			return errSliceUsed
		}
	}
	return s.Store.SetScanState(ctx, tenantID, configID, loupe.ScanComplete, counts.Message(), ptr(""), &counts)
}

// listedPage is one page of a listing.
type listedPage struct {
	keys []blob.Object
	more bool
	err  error
}

// listPages lists the prefix from after, one page ahead of its reader; it
// stops after the last page, an error, or when ctx ends.
func listPages(ctx context.Context, s3 *blob.S3, prefix, after string, size int) <-chan listedPage {
	out := make(chan listedPage, 1)
	go func() {
		defer close(out)
		for {
			keys, more, err := s3.List(ctx, prefix, after, size)
			select {
			case out <- listedPage{keys: keys, more: more, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil || !more || len(keys) == 0 {
				return
			}
			after = keys[len(keys)-1].Key
		}
	}()
	return out
}
