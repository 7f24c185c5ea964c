package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/analysis/engine/apertium"
	"github.com/loupe-mam/loupe/internal/analysis/engine/openaistt"
	"github.com/loupe-mam/loupe/internal/analysis/engine/opencv"
	"github.com/loupe-mam/loupe/internal/analysis/engine/sphinx"
	"github.com/loupe-mam/loupe/internal/analysis/engine/tesseract"
	analysisworker "github.com/loupe-mam/loupe/internal/analysis/worker"
	"github.com/loupe-mam/loupe/internal/events/retention"
	"github.com/loupe-mam/loupe/internal/events/webhooks"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/media/renderjob"
	mediaworker "github.com/loupe-mam/loupe/internal/media/worker"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/replicate"
	"github.com/loupe-mam/loupe/internal/storage/transfer"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/store"
)

// workers registers the worker of every job kind this binary does. Each
// feature adds its own line here.
func workers(deps jobDeps) (w *river.Workers, kinds int) {
	w = river.NewWorkers()
	svc := newServices(deps.cfg, deps.store)
	// Ingest scans (spec 2.14; docs/ingest.md) and moves of originals to
	// storage locations reach tenants' buckets with the credentials the
	// resolvers sealed.
	river.AddWorker(w, &ingest.ScanWorker{Ingest: svc.ingest, Opts: deps.cfg.IngestScan})
	river.AddWorker(w, &transfer.MigrateWorker{Store: deps.store, Sources: svc.sources})
	// The outbox is kept to its retention (docs/events.md).
	river.AddWorker(w, &retention.Worker{Store: deps.store, Keep: deps.cfg.EventsRetention})
	// Webhook deliveries (docs/events.md).
	river.AddWorker(w, &webhooks.Worker{Store: deps.store, Guard: webhookGuard(deps.cfg), Schedule: deps.cfg.WebhookSchedule})
	// Presets' dry runs (docs/render.md) need ffmpeg alone.
	river.AddWorker(w, &renderjob.CheckWorker{Store: deps.store})
	kinds += 5
	// Replication (docs/replication.md): runs of sources, and the
	// transfers they make.
	river.AddWorker(w, &replicate.RunWorker{Store: deps.store, Files: deps.cfg.Files})
	river.AddWorker(w, &replicate.TransferWorker{Store: deps.store, Sources: svc.sources})
	kinds += 2
	// Processing (docs/processing.md) reads originals from and writes
	// outputs to the server's file store.
	if deps.cfg.Files != nil {
		river.AddWorker(w, &mediaworker.Worker{Store: deps.store, Files: deps.cfg.Files, Sources: svc.sources, Node: deps.cfg.Jobs.NodeID,
			Logger: deps.logger, Concurrency: deps.cfg.Transcodes, TimeoutFloor: deps.cfg.TranscodeFloor,
			Metrics: deps.cfg.Metrics})
		kinds++
		// Analysis (docs/analysis.md) reads processing's outputs and
		// writes transcripts through the metered file store.
		river.AddWorker(w, &analysisworker.Worker{Store: deps.store, Files: deps.cfg.Files, Node: deps.cfg.Jobs.NodeID,
			Logger: deps.logger, Engines: analysisEngines(deps.cfg), Transcripts: svc.transcripts})
		kinds++
		// Render sequences (docs/render.md) read originals where they lie
		// and write the target's new original to the file store.
		river.AddWorker(w, &renderjob.Worker{Store: deps.store, Files: deps.cfg.Files, Sources: svc.sources})
		kinds++
		// Finished recordings' live segments (docs/live.md).
		river.AddWorker(w, &live.PurgeWorker{Store: deps.store, Files: deps.cfg.Files})
		kinds++
	}
	return w, kinds
}

// jobDeps is what workers are built from.
type jobDeps struct {
	store  *store.Store
	cfg    Config
	logger *slog.Logger
}

// StartJobs makes the job client, gives it to the store for inserts and,
// unless cfg.Jobs.Workers is negative (LOUPE_WORKERS=-1: a node that only
// serves the API), starts working the queues until ctx ends; the caller
// stops it (Stop lets running jobs finish). Without cfg.JobsDB there is no
// queue (nil client): changes that ask for background work fail.
func StartJobs(ctx context.Context, cfg Config, st *store.Store) (*jobs.Client, error) {
	if cfg.JobsDB == nil {
		return nil, nil
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Jobs.NodeID == "" {
		cfg.Jobs.NodeID = cfg.InstanceID
	}
	if cfg.Jobs.NodeID == "" {
		cfg.Jobs.NodeID = upload.NewInstanceID()
	}
	// The queue's depth and the jobs pool, whether or not this node works
	// the queue (docs/operations.md, "Metrics").
	cfg.Metrics.WatchDB("jobs", cfg.JobsDB)
	cfg.Metrics.WatchJobQueue(cfg.JobsDB, jobs.Kinds)
	w, kinds := workers(jobDeps{store: st, cfg: cfg, logger: logger})
	if cfg.Jobs.Workers < 0 || kinds == 0 {
		c, err := jobs.NewInserter(cfg.JobsDB, cfg.Tracing.JobMiddleware()...)
		if err != nil {
			return nil, err
		}
		st.SetJobs(c)
		return c, nil
	}
	jc := cfg.Jobs
	jc.Logger = logger
	// Tracing first: an attempt's span covers what metrics time.
	jc.Middleware = slices.Concat(cfg.Tracing.JobMiddleware(), jc.Middleware)
	if mw := cfg.Metrics.JobMiddleware(); mw != nil {
		jc.Middleware = append(jc.Middleware, mw)
	}
	if cfg.EventsRetention > 0 {
		jc.Periodic = append(jc.Periodic, retention.Periodic())
	}
	c, err := jobs.New(cfg.JobsDB, w, jc)
	if err != nil {
		return nil, err
	}
	st.SetJobs(c)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	// The node's heartbeat, and the takeover of dead nodes' running jobs
	// (internal/jobs/liveness.go; docs/scaling.md).
	go (&jobs.Liveness{DB: cfg.JobsDB, NodeID: cfg.Jobs.NodeID, Beat: cfg.Jobs.Heartbeat, DeadAfter: cfg.Jobs.DeadAfter,
		Logger: logger}).Run(ctx)
	// The replication scheduler ticks on every working node, on the job
	// queue's pool: its statements are not a request's (docs/replication.md).
	go (&replicate.Scheduler{Store: st.On(sqlx.NewDb(cfg.JobsDB, "postgres")), Logger: logger}).Run(ctx)
	// Live pipelines' measurements (docs/live.md) tick the same way.
	liveStore := st.On(sqlx.NewDb(cfg.JobsDB, "postgres"))
	go (&live.Scheduler{Store: liveStore, Service: live.New(cfg.Live), Logger: logger}).Run(ctx)
	// …and so does the recorder of scheduled recordings: exactly one node
	// records each, under a lease (docs/live.md "How a recording runs").
	go (&live.Recorder{Store: liveStore, Service: live.New(cfg.Live), Files: cfg.Files, Node: cfg.Jobs.NodeID,
		Logger: logger}).Run(ctx)
	return c, nil
}

// analysisEngines are the engines installed here (scripts/deps installs
// them; a node without one marks that analysis failed, saying so).
func analysisEngines(cfg Config) analysisworker.Engines {
	var e analysisworker.Engines
	if u := cfg.SpeechToTextURL; u != "" {
		e.External = func(key string) analysis.Transcriber {
			return openaistt.Client{BaseURL: u, Model: cfg.SpeechToTextModel, APIKey: key}
		}
	}
	if sphinx.Available() {
		e.Transcribers = append(e.Transcribers, sphinx.Engine{})
	}
	if apertium.Available() {
		e.Translators = append(e.Translators, analysis.Translator(apertium.Engine{}))
	}
	if tesseract.Available() {
		e.Text = tesseract.Engine{}
	}
	if opencv.Available() {
		e.Faces = opencv.Engine{}
	}
	return e
}
