// Package worker is the worker of analyze_item jobs (internal/jobs): it
// runs the analysis engines (internal/analysis) on what processing made —
// the proxy's audio for transcription, the transcript for translation,
// keyframes for text and person detection — and stores their results as
// the item's transcripts, subtitles, timed metadata and persons, each kind
// with its state on the item (store.SetAnalysis). docs/analysis.md.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/analysis/transcripts"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// Engines are the analysis engines of this node.
type Engines struct {
	// Transcribers that run here without a tenant's credentials, by the
	// name they answer (pocketsphinx), in order of preference.
	Transcribers []analysis.Transcriber
	// External makes the externalSpeechToText engine with a tenant's
	// transcriptionApiKey; nil when this server has no such service
	// configured (LOUPE_STT_URL).
	External func(apiKey string) analysis.Transcriber
	// Translators in order of preference.
	Translators []analysis.Translator
	Text        analysis.TextDetector
	Faces       analysis.FaceDetector
}

// Worker works analyze_item jobs.
type Worker struct {
	river.WorkerDefaults[jobs.AnalyzeArgs]
	Store *store.Store
	// Files is the server's file store, where processing's outputs are.
	Files   blob.Store
	Node    string
	Logger  *slog.Logger
	Engines Engines
	// Transcripts writes a transcript with its files.
	Transcripts *transcripts.Writer
	TempDir     string
}

// Timeout implements river.Worker: speech recognition runs at about
// realtime on one core (docs/performance.md); ten times the duration
// leaves room for every kind and a busy node.
func (w *Worker) Timeout(job *river.Job[jobs.AnalyzeArgs]) time.Duration {
	d := job.Args.DurationSeconds
	if d < 0 {
		return jobs.MaxJobTimeout
	}
	return min(24*jobs.MaxJobTimeout, 2*time.Minute+time.Duration(10*d*float64(time.Second)))
}

// progressEvery is how often a run writes its progress at most.
const progressEvery = time.Second

// Work implements river.Worker: each kind asked for in order. A kind that
// cannot be done (no engine, no audio, unsupported language) is marked
// failed or notConfigured saying why and the others go on; an error of
// storage or the database retries the job.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.AnalyzeArgs]) error {
	a := job.Args
	target, err := w.Store.AnalysisTargetOf(ctx, a.TenantID, a.ItemID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(w.TempDir, "loupe-analysis-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &run{w: w, tenant: a.TenantID, item: a.ItemID, target: target, force: a.Force, dir: dir,
		runKey: fmt.Sprintf("%d.%d", job.ID, job.Attempt)}
	for _, kind := range a.Kinds {
		err := r.do(ctx, kind)
		var failed *kindError
		switch {
		case err == nil, errors.Is(err, store.ErrStaleRun):
		case errors.As(err, &failed):
			w.log().Info("analysis not done", "tenant", a.TenantID, "item", a.ItemID, "kind", kind, "state", failed.state, "reason", failed.reason)
			// Written as the run's own (claimed): it may have ended
			// before it claimed the kind (no engine for the language).
			if err := r.set(context.WithoutCancel(ctx), kind, true, map[string]any{"state": failed.state, "error": failed.reason,
				"finishedOn": time.Now().UTC()}, r.spec(kind, failed.state), nil); err != nil && !errors.Is(err, store.ErrStaleRun) {
				return err
			}
		case job.Attempt >= jobs.AnalyzeMaxAttempts:
			// The last attempt: the kind fails saying why; the others
			// go on.
			if err := r.set(context.WithoutCancel(ctx), kind, false, map[string]any{"state": store.AnalysisFailed,
				"error": err.Error(), "finishedOn": time.Now().UTC()}, r.spec(kind, store.AnalysisFailed), nil); err != nil && !errors.Is(err, store.ErrStaleRun) {
				return err
			}
		default:
			r.set(context.WithoutCancel(ctx), kind, false, map[string]any{"retrying": true, "error": err.Error()}, nil, nil) //nolint:errcheck
			return err
		}
	}
	return nil
}

func (w *Worker) log() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

// kindError ends one kind without retrying: its state (failed,
// notConfigured) and why.
type kindError struct{ state, reason string }

func (e *kindError) Error() string { return e.reason }

func failed(format string, args ...any) error {
	return &kindError{state: store.AnalysisFailed, reason: fmt.Sprintf(format, args...)}
}

// run is one attempt at one item.
type run struct {
	w              *Worker
	tenant, item   string
	runKey         string
	target         *store.AnalysisTarget
	force          bool
	dir            string
	proxyPath      string
	lastProgress   time.Time
	tenantSettings *loupe.TenantConfig
}

func (r *run) do(ctx context.Context, kind string) error {
	switch kind {
	case jobs.AnalyzeTranscription:
		return r.transcribe(ctx)
	case jobs.AnalyzeTranslation:
		return r.translate(ctx)
	case jobs.AnalyzeTextDetection:
		return r.detectText(ctx)
	case jobs.AnalyzePersonDetection:
		return r.detectPersons(ctx)
	}
	return failed("%q is not an analysis", kind)
}

// set writes the kind's state (claim: the run takes the kind).
func (r *run) set(ctx context.Context, kind string, claim bool, state, fields map[string]any, work *store.MediaOperation) error {
	return r.w.Store.SetAnalysis(ctx, r.tenant, r.item, store.AnalysisUpdate{Kind: kind, RunKey: r.runKey, Claim: claim,
		State: state, Fields: fields, Work: work})
}

// spec is the spec's fields for a kind's state (transcription's).
func (r *run) spec(kind, state string) map[string]any {
	if kind != jobs.AnalyzeTranscription {
		return nil
	}
	return map[string]any{"transcriptionState": state}
}

// claim takes the kind for the run, naming the engine.
func (r *run) claim(ctx context.Context, kind, service string, fields map[string]any) error {
	return r.set(ctx, kind, true, map[string]any{"state": store.AnalysisProcessing, "by": r.w.Node, "service": service,
		"percent": 0, "startedOn": time.Now().UTC(), "error": nil, "finishedOn": nil}, fields, nil)
}

// progress writes the kind's percent at most every progressEvery.
func (r *run) progress(ctx context.Context, kind string, percent float64) {
	if time.Since(r.lastProgress) < progressEvery {
		return
	}
	r.lastProgress = time.Now()
	var fields map[string]any
	if kind == jobs.AnalyzeTranscription {
		fields = map[string]any{"transcriptionProgress": percent}
	}
	r.set(ctx, kind, false, map[string]any{"percent": percent}, fields, nil) //nolint:errcheck // the next write says if the run is stale
}

// proxy is a local path of the item's proxy (processing's), fetched once.
func (r *run) proxy(ctx context.Context) (string, error) {
	if r.proxyPath != "" {
		return r.proxyPath, nil
	}
	if r.target.Proxy == "" {
		return "", failed("the item has no proxy: process it first")
	}
	p, err := r.local(ctx, r.target.Proxy, "proxy")
	if err != nil {
		return "", err
	}
	r.proxyPath = p
	return p, nil
}

// local is a local path of the stored file key: the file itself on local
// disk, else a copy in the run's directory named name (plus key's
// extension).
func (r *run) local(ctx context.Context, key, name string) (string, error) {
	p, err := sources.Local(ctx, r.w.Files, key, r.dir, name)
	if errors.Is(err, blob.ErrNotFound) {
		return "", failed("the item's %s is missing from storage: process it again", name)
	}
	return p, err
}

// config is the tenant's configuration, read once.
func (r *run) config(ctx context.Context) (*loupe.TenantConfig, error) {
	if r.tenantSettings == nil {
		c, err := r.w.Store.TenantConfig(ctx, r.tenant)
		if err != nil {
			return nil, err
		}
		r.tenantSettings = c
	}
	return r.tenantSettings, nil
}
