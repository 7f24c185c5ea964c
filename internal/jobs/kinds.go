package jobs

import (
	"encoding/json"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The job kinds. Each kind's arguments live here, so that the code asking
// for the work (the store, inside the transaction of the change) and the
// worker doing it agree on one type; workers live with their features.
// Arguments are the job's identity for uniqueness: keep them to ids.

// ProcessArgs asks for an item's media to be processed (probe, proxies,
// thumbnails…): inserted when an upload completes or an object is ingested.
type ProcessArgs struct {
	// The item is the job's identity for uniqueness (river:"unique"): a
	// second request while one waits or runs is the same job.
	TenantID string `json:"tenantId" river:"unique"`
	ItemID   string `json:"itemId" river:"unique"`
	// Reason says what asked: "upload", "ingest", "request".
	Reason string `json:"reason"`
	// Steps are the steps asked for (none: all).
	Steps []string `json:"steps,omitempty"`
	// After is the run key of the item's last claimed run when this was
	// asked for (part of the identity): a request while a job waits joins
	// it, but one while a job runs — which may already be past what was
	// changed — makes a new job that runs after it.
	After string `json:"after,omitempty" river:"unique"`
	// Probed marks the second phase: the first reads the original's
	// duration and hands over to a job that has it (DurationSeconds), so
	// that the transcode's timeout — after which River runs the job of a
	// killed node again — is its own (internal/media/worker.Worker.Timeout).
	Probed bool `json:"probed,omitempty"`
	// DurationSeconds is the original's duration (0: a still image or
	// other file; < 0: unknown).
	DurationSeconds float64 `json:"durationSeconds,omitempty"`
	// Analyze are analyses asked for with the processing (AnalysisKinds),
	// queued when it ends beside those the item's switches turn on;
	// AnalyzeForce is their AnalyzeArgs.Force.
	Analyze      []string `json:"analyze,omitempty"`
	AnalyzeForce bool     `json:"analyzeForce,omitempty"`
}

// Kind is the job kind in River's tables.
func (ProcessArgs) Kind() string { return "process_item" }

// ScanArgs asks for a scan of an ingest storage configuration (spec 2.14):
// its prefix listed page by page, one item per new object. One scan per
// configuration runs at a time: a scan asked for while one waits or runs
// is that one (UniqueOpts by args over the unfinished states; Run numbers
// the configuration's scans, so that a scan asked for while the previous
// job is still being marked done is a new one).
type ScanArgs struct {
	TenantID string `json:"tenantId"`
	ConfigID string `json:"configId"`
	Run      int    `json:"run"`
}

// Kind is the job kind in River's tables.
func (ScanArgs) Kind() string { return "ingest_scan" }

// InsertOpts puts scans on the ingest queue, one per configuration.
func (ScanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue: QueueIngest,
		UniqueOpts: river.UniqueOpts{
			ByArgs: true,
			ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
				rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled},
		},
	}
}

// MigrateArgs asks for an item's original to be moved to a storage
// location (migrateMediaLocation).
type MigrateArgs struct {
	TenantID   string `json:"tenantId" river:"unique"`
	ItemID     string `json:"itemId" river:"unique"`
	LocationID string `json:"locationId"`
}

// Kind is the job kind in River's tables.
func (MigrateArgs) Kind() string { return "migrate_media" }

// AnalyzeArgs asks for an item's media to be analysed (transcription,
// translation, text and person detection: internal/analysis/worker), after its
// processing made the proxy the engines read.
type AnalyzeArgs struct {
	TenantID string `json:"tenantId" river:"unique"`
	ItemID   string `json:"itemId" river:"unique"`
	// Kinds are the analyses asked for, in the order they run
	// (AnalysisKinds).
	Kinds []string `json:"kinds" river:"unique"`
	// Force lets an engine's transcript replace one a person edited.
	Force  bool   `json:"force,omitempty"`
	Reason string `json:"reason"`
	// DurationSeconds is the media's duration (the timeout scales with
	// it; < 0 unknown).
	DurationSeconds float64 `json:"durationSeconds,omitempty"`
}

// Kind is the job kind in River's tables.
func (AnalyzeArgs) Kind() string { return "analyze_item" }

// AnalyzeMaxAttempts is how often an analysis job is tried: an engine's
// error (a crash on odd audio, a service down) fails its kind on the last.
const AnalyzeMaxAttempts = 3

// The kinds of analysis, in the order a job runs them (a translation
// reads the transcript).
const (
	AnalyzeTranscription   = "transcription"
	AnalyzeTranslation     = "translation"
	AnalyzeTextDetection   = "textDetection"
	AnalyzePersonDetection = "personDetection"
)

// AnalysisKinds lists the kinds in their order.
var AnalysisKinds = []string{AnalyzeTranscription, AnalyzeTranslation, AnalyzeTextDetection, AnalyzePersonDetection}

// PruneEventsArgs asks for the outbox's events older than its retention to
// be deleted (internal/events/retention): a periodic job, on the leader.
type PruneEventsArgs struct{}

// Kind is the job kind in River's tables.
func (PruneEventsArgs) Kind() string { return "prune_events" }

// DeliverWebhookArgs asks for one message to be delivered to one webhook
// (internal/events/webhooks): inserted by the webhooks reader of the
// outbox in the transaction that moves it past the event, and by a
// replay. The message id is the event's (stable across retries and
// replays: the receiver's key to drop duplicates).
type DeliverWebhookArgs struct {
	TenantID  string          `json:"tenantId"`
	WebhookID string          `json:"webhookId"`
	MessageID string          `json:"messageId"`
	EventType string          `json:"eventType"`
	Payload   json.RawMessage `json:"payload"`
	// Replay is a delivery asked for again by hand: one attempt, no
	// retries, no disabling.
	Replay bool `json:"replay,omitempty"`
}

// Kind is the job kind in River's tables.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// CheckPresetArgs asks for a preset's dry run (internal/media/renderjob):
// a second of synthetic media through its output profile, which resolves
// its type or says why it cannot. ModifiedOn is the preset's version the
// check is of: a preset changed since is not touched.
type CheckPresetArgs struct {
	TenantID   string `json:"tenantId"`
	PresetID   string `json:"presetId"`
	ModifiedOn string `json:"modifiedOn"`
}

// Kind is the job kind in River's tables.
func (CheckPresetArgs) Kind() string { return "check_preset" }

// InsertOpts puts dry runs beside uploads' processing: a person waits.
func (CheckPresetArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueInteractive, MaxAttempts: 3}
}

// RenderArgs asks for a render-sequence request to be rendered
// (internal/media/renderjob); the request row holds the clips.
type RenderArgs struct {
	TenantID  string `json:"tenantId" river:"unique"`
	RequestID string `json:"requestId" river:"unique"`
	// DurationSeconds is the sequence's estimated length: the job's
	// timeout scales with it.
	DurationSeconds float64 `json:"durationSeconds"`
}

// Kind is the job kind in River's tables.
func (RenderArgs) Kind() string { return "render_sequence" }

// RenderAttempts is how often a render is tried: its last failure fails
// the request with its reason.
const RenderAttempts = 3

// InsertOpts puts renders on the interactive queue, one job per request.
func (RenderArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueInteractive, MaxAttempts: RenderAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ReplicationRunArgs asks for a run of a replication source
// (internal/storage/replicate; docs/replication.md): the items of its
// scope — all of them, or ItemIDs only (the ingest trigger) — get a
// transfer for each file to copy. A run asked for while one waits or runs
// joins it.
type ReplicationRunArgs struct {
	TenantID string   `json:"tenantId" river:"unique"`
	SourceID string   `json:"sourceId" river:"unique"`
	ItemIDs  []string `json:"itemIds,omitempty" river:"unique"`
	// Reason says what asked: "hand", "schedule", "ingest".
	Reason string `json:"reason"`
}

// Kind is the job kind in River's tables.
func (ReplicationRunArgs) Kind() string { return "replication_run" }

// InsertOpts puts runs on the bulk queue, one waiting per source and items.
func (ReplicationRunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBulk, UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}
}

// TransferArgs asks for a transfer (one file copied or moved) to be worked
// (internal/storage/replicate); the transfers row holds the rest. Takeover
// numbers the jobs made for a transfer whose worker stopped renewing its
// lease (a killed node): each resumes from the parts recorded.
type TransferArgs struct {
	TenantID   string `json:"tenantId" river:"unique"`
	TransferID string `json:"transferId" river:"unique"`
	Takeover   int    `json:"takeover,omitempty" river:"unique"`
}

// Kind is the job kind in River's tables.
func (TransferArgs) Kind() string { return "transfer" }

// TransferMaxAttempts is how often a transfer is tried before it fails.
const TransferMaxAttempts = 8

// InsertOpts puts transfers on the bulk queue, one job per transfer and
// takeover.
func (TransferArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBulk, MaxAttempts: TransferMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// PurgeLiveArgs asks for a finished recording's live segments, playlist
// and thumbnails to be removed (internal/live; docs/live.md "At the
// end") once its item has its processed proxy: an hour after it ended,
// so that a player still on the live playlist plays on.
type PurgeLiveArgs struct {
	TenantID string `json:"tenantId" river:"unique"`
	ItemID   string `json:"itemId" river:"unique"`
}

// Kind is the job kind in River's tables.
func (PurgeLiveArgs) Kind() string { return "purge_live_segments" }

// LiveSegmentsKept is how long a finished recording's live segments stay.
const LiveSegmentsKept = time.Hour

// InsertOpts puts purges on the bulk queue, one per recording.
func (PurgeLiveArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBulk, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Kinds lists every job kind above (a test holds it to them): the job
// queue's metrics report each, with 0 where none waits, so that a
// dashboard's series exist before the first job of a kind.
var Kinds = []string{
	ProcessArgs{}.Kind(), ScanArgs{}.Kind(), MigrateArgs{}.Kind(), AnalyzeArgs{}.Kind(), PruneEventsArgs{}.Kind(),
	DeliverWebhookArgs{}.Kind(), CheckPresetArgs{}.Kind(), RenderArgs{}.Kind(), ReplicationRunArgs{}.Kind(),
	TransferArgs{}.Kind(), PurgeLiveArgs{}.Kind(),
}
