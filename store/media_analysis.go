package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds the state of media analysis (internal/analysis/worker,
// docs/analysis.md). Each kind's state is kept in the item's media
// document under analysis.<kind> — {state, runKey, by, service, percent,
// error, startedOn, finishedOn} — and transcription's is also answered in
// the spec's transcriptionState, transcriptionProgress, transcriptionBy and
// transcriptionService (translation's in translationBy). Writes of a run
// are conditional on its run key, as processing's are.

// Analysis states.
const (
	AnalysisQueued     = "queued"
	AnalysisProcessing = "processing"
	AnalysisComplete   = "complete"
	AnalysisFailed     = "failed"
	// AnalysisKept: the engine ran, but a person's edit of the transcript
	// was kept (not forced).
	AnalysisKept = "kept"
	// AnalysisNotConfigured: no engine here does that (label detection…).
	AnalysisNotConfigured = "notConfigured"
)

// AnalysisTarget is what an analysis run reads of its item.
type AnalysisTarget struct {
	LanguageCode           string  `db:"language_code"`
	TranslationLanguage    string  `db:"translation_language"`
	MediaKind              string  `db:"media_kind"`
	Proxy                  string  `db:"proxy"`
	Preview                string  `db:"preview"`
	DurationSeconds        float64 `db:"duration"`
	TranscriptionEnabled   bool    `db:"transcription_enabled"`
	TranslationEnabled     bool    `db:"translation_enabled"`
	TextDetectionEnabled   bool    `db:"text_detection_enabled"`
	PersonDetectionEnabled bool    `db:"person_detection_enabled"`
	CreateUnknownPersons   bool    `db:"create_unknown_persons"`
}

const (
	analysisTargetSQL = `
SELECT language_code, COALESCE(media->>'translationLanguage', '') AS translation_language,
       COALESCE(media->>'mediaKind', '') AS media_kind,
       COALESCE(media->'generated'->>'proxy', '') AS proxy, COALESCE(media->'generated'->>'preview', '') AS preview,
       COALESCE((technical_metadata->>'durationSeconds')::float8, 0) AS duration,
       transcription_enabled, translation_enabled, text_detection_enabled, person_detection_enabled,
       create_unknown_persons
FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	// setAnalysisSQL writes analysis.<$3> (merged) and the spec's fields
	// ($5, merged into media) while the run $4 holds the kind (or takes
	// it: $6).
	setAnalysisSQL = `
UPDATE items SET media = jsonb_set(COALESCE(media, '{}'::jsonb) || $5::jsonb, ARRAY['analysis', $3::text],
        COALESCE(media->'analysis'->$3::text, '{}'::jsonb) || $7::jsonb, true)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL
  AND ($6 OR media->'analysis'->$3::text->>'runKey' = $4::text)`

	// queueAnalysisSQL marks the kinds queued (a run holding one keeps
	// it until it ends).
	queueAnalysisSQL = `
UPDATE items SET media = COALESCE(media, '{}'::jsonb) || jsonb_build_object('analysis',
        COALESCE(media->'analysis', '{}'::jsonb) || (
            SELECT COALESCE(jsonb_object_agg(k, COALESCE(media->'analysis'->k, '{}'::jsonb) ||
                       jsonb_build_object('state', 'queued', 'queuedOn', $4::text)), '{}'::jsonb)
            FROM unnest($3::text[]) AS k
            WHERE COALESCE(media->'analysis'->k->>'state', '') <> 'processing'))
    || CASE WHEN 'transcription' = ANY($3::text[]) AND COALESCE(media->>'transcriptionState', '') <> 'processing'
            THEN jsonb_build_object('transcriptionState', 'queued') ELSE '{}'::jsonb END
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	hasProxySQL = `
SELECT COALESCE(media->'generated'->>'proxy', media->'generated'->>'preview', '') <> '' AS has,
       COALESCE((technical_metadata->>'durationSeconds')::float8, -1) AS duration
FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`
)

// AnalysisTargetOf reads what an analysis run needs of the item.
// ENOTFOUND when it is gone.
func (s *Store) AnalysisTargetOf(ctx context.Context, tenantID, itemID string) (*AnalysisTarget, error) {
	var t AnalysisTarget
	if err := s.db.GetContext(ctx, &t, analysisTargetSQL, tenantID, itemID); err != nil {
		return nil, notFoundOr(err, "store: unable to read item %s: %w", itemID)
	}
	return &t, nil
}

// AnalysisUpdate is a write of one kind's state by a run.
type AnalysisUpdate struct {
	Kind, RunKey string
	// Claim takes the kind for the run (its first write).
	Claim bool
	// State is merged into analysis.<Kind>; Fields into the media
	// document (the spec's transcription fields).
	State  map[string]any
	Fields map[string]any
	// Work, when set, is metered with the write (in one transaction).
	Work *MediaOperation
}

// SetAnalysis writes a run's state of one kind. ErrStaleRun when another
// run holds the kind or the item is gone.
func (s *Store) SetAnalysis(ctx context.Context, tenantID, itemID string, u AnalysisUpdate) error {
	u.State["runKey"] = u.RunKey
	state, err := json.Marshal(u.State)
	if err != nil {
		return err
	}
	fields := u.Fields
	if fields == nil {
		fields = map[string]any{}
	}
	doc, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, setAnalysisSQL, tenantID, itemID, u.Kind, u.RunKey, string(doc), u.Claim, string(state))
		if err != nil {
			return fmt.Errorf("store: unable to write the analysis state: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrStaleRun
		}
		at := time.Now().UTC()
		if w := u.Work; w != nil {
			if _, err := tx.ExecContext(ctx, insertMediaOperationSQL, tenantID, loupe.NewID(), itemID, w.Kind,
				w.Provider, w.MediaSeconds, w.Outputs, at); err != nil {
				return fmt.Errorf("store: unable to meter analysis: %w", err)
			}
		}
		// A run that ends (whichever way) is announced.
		switch st, _ := u.State["state"].(string); st {
		case AnalysisComplete, AnalysisFailed, AnalysisKept, AnalysisNotConfigured:
			data := map[string]any{"kind": u.Kind, "state": st, "runKey": u.RunKey}
			if e, ok := u.State["error"].(string); ok && e != "" {
				data["reason"] = e
			}
			return emitTx(ctx, tx, tenantID, at, NewEvent{Type: loupe.EventAnalysisCompletion, ItemID: itemID, Data: data})
		}
		return nil
	})
	if err == nil && u.Work != nil {
		s.countOperation(tenantID, u.Work.Kind)
	}
	return err
}

// RequestAnalysis queues the item's analysis of kinds (jobs.AnalyzeArgs)
// in the same transaction as their queued state. EINVALID when the item
// has nothing processing made to analyse yet, ENOTFOUND when it is gone.
func (s *Store) RequestAnalysis(ctx context.Context, args jobs.AnalyzeArgs, queue string) error {
	if !loupe.ValidID(args.ItemID) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur struct {
			Has      bool    `db:"has"`
			Duration float64 `db:"duration"`
		}
		if err := tx.GetContext(ctx, &cur, hasProxySQL, args.TenantID, args.ItemID); err != nil {
			return notFoundOr(err, "store: unable to read item %s: %w", args.ItemID)
		}
		if !cur.Has {
			return loupe.Invalid("the item has no processed media to analyse yet: process it first (steps proxy…) or ask for both")
		}
		args.DurationSeconds = cur.Duration
		return s.queueAnalysisTx(ctx, tx, args, queue)
	})
}

// waitingAnalysisSQL: is a job that will do (at least) what args $1 ask
// for (their tenant, item, kinds and force, @> on River's GIN index of
// args) still waiting to start?
const waitingAnalysisSQL = `
SELECT EXISTS (SELECT 1 FROM river_job WHERE kind = $2 AND args @> $1::jsonb
                 AND state IN ('available', 'pending', 'retryable', 'scheduled'))`

// queueAnalysisTx marks the kinds queued and inserts the job in tx, unless
// one that will do them waits already. A run that has started does not
// take a new request (its kinds may be done already): a job waits after
// it. Callers hold the item's row, so two requests do not both insert.
func (s *Store) queueAnalysisTx(ctx context.Context, tx *sqlx.Tx, args jobs.AnalyzeArgs, queue string) error {
	if _, err := tx.ExecContext(ctx, queueAnalysisSQL, args.TenantID, args.ItemID, stringArray(args.Kinds),
		time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("store: unable to queue analysis: %w", err)
	}
	covers := map[string]any{"tenantId": args.TenantID, "itemId": args.ItemID, "kinds": args.Kinds}
	if args.Force {
		covers["force"] = true
	}
	var waiting bool
	if err := tx.GetContext(ctx, &waiting, waitingAnalysisSQL, loupe.JSONOf(covers), args.Kind()); err != nil {
		return fmt.Errorf("store: unable to find waiting analyses: %w", err)
	}
	if waiting {
		return nil
	}
	_, err := s.enqueue(ctx, tx, args, &river.InsertOpts{Queue: queue, MaxAttempts: jobs.AnalyzeMaxAttempts})
	return err
}

// analysisSwitchesSQL reads which analyses are on for an item: its own
// switches, or the tenant's analyticConfig for every item (a switch that
// is not the JSON true is off). Translation is also on with the tenant's
// autoTranslationEnabled.
const analysisSwitchesSQL = `
SELECT i.transcription_enabled OR COALESCE(c.config->'analyticConfig'->'transcription' = 'true'::jsonb, false) AS transcription,
       i.translation_enabled OR COALESCE(c.config->'analyticConfig'->'translation' = 'true'::jsonb, false)
           OR COALESCE(c.config->'autoTranslationEnabled' = 'true'::jsonb, false) AS translation,
       i.text_detection_enabled OR COALESCE(c.config->'analyticConfig'->'textDetection' = 'true'::jsonb, false) AS text_detection,
       i.person_detection_enabled OR COALESCE(c.config->'analyticConfig'->'personDetection' = 'true'::jsonb, false) AS person_detection
FROM items i LEFT JOIN tenant_config c ON c.tenant_id = i.tenant_id
WHERE i.tenant_id = $1 AND i.id = $2`

// analyseAfterProcessingTx queues, in the transaction that switched a
// run's outputs in, the analyses asked for with it and those the switches
// turn on.
func (s *Store) analyseAfterProcessingTx(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string, r *ProcessingResult) error {
	var on struct {
		Transcription   bool `db:"transcription"`
		Translation     bool `db:"translation"`
		TextDetection   bool `db:"text_detection"`
		PersonDetection bool `db:"person_detection"`
	}
	if err := tx.GetContext(ctx, &on, analysisSwitchesSQL, tenantID, itemID); err != nil {
		return fmt.Errorf("store: unable to read the analysis switches: %w", err)
	}
	var kinds []string
	for _, k := range jobs.AnalysisKinds {
		switched := map[string]bool{jobs.AnalyzeTranscription: on.Transcription, jobs.AnalyzeTranslation: on.Translation,
			jobs.AnalyzeTextDetection: on.TextDetection, jobs.AnalyzePersonDetection: on.PersonDetection}[k]
		if switched && r.NewMedia || slices.Contains(r.Analyze, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 || s.jobs == nil {
		return nil
	}
	queue := r.Queue
	if queue == "" {
		queue = jobs.QueueInteractive
	}
	return s.queueAnalysisTx(ctx, tx, jobs.AnalyzeArgs{TenantID: tenantID, ItemID: itemID, Kinds: kinds,
		Force: r.AnalyzeForce, Reason: "processed", DurationSeconds: r.DurationSeconds}, queue)
}

// AnalysisStates reads the analysis states from an item's media document
// (null when none was asked for).
func AnalysisStates(media loupe.JSON) loupe.JSON {
	var doc struct {
		Analysis loupe.JSON `json:"analysis"`
	}
	if media.IsNull() || json.Unmarshal(media, &doc) != nil || doc.Analysis.IsNull() {
		return nil
	}
	return doc.Analysis
}
