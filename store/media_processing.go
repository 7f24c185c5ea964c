package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// This file holds what the processing worker writes on an item
// (docs/processing.md): the run's claim, its progress, and the switch of
// its outputs onto the item in one transaction. A run is named by its run
// key (job id and attempt); the item's progressInfo carries the key of the
// run that claimed it last, and every later write of a run is conditional
// on it, so a stale attempt (a node that lost its job to a retry) can
// neither overwrite a newer one's progress nor switch its outputs in.

// GeneratedMedia is what processing made for an item: blob keys in the
// server's file store under Prefix (one prefix per run, so that a run
// never overwrites what another made visible), each under the name the
// processing step table gives its output (internal/media/pipeline: proxy,
// poster, strip…). Resolvers answer them as signed links in the spec's
// fields (proxy, thumbnail, thumbnailStrip…). In the item's media document
// the names are keys beside prefix, kind and madeOn (media_generated.go).
type GeneratedMedia struct {
	Prefix string
	Kind   string
	MadeOn time.Time
	// Files are the outputs made once, by name.
	Files map[string]string
	// Lists are the outputs made several times (a video's further audio
	// tracks), by name, in order.
	Lists map[string][]string
}

// States an item moves through (docs/processing.md).
const (
	ItemStateProcessing = "processing"
	ItemStateReady      = "ready"
	ItemStateFailed     = "failed"

	TranscodingQueued     = "queued"
	TranscodingProcessing = "processing"
	TranscodingComplete   = "complete"
	TranscodingFailed     = "failed"
	TranscodingSkipped    = "skipped"
)

// ErrStaleRun is the answer to a write of a run that another has since
// claimed the item from.
var ErrStaleRun = errors.New("store: a newer processing run has claimed the item")

const (
	// claimProcessingSQL marks a live item as being processed (the run's
	// key is in the progress, $5).
	// It announces the start (processingStart) in the same statement.
	claimProcessingSQL = `
WITH claimed AS (
    UPDATE items SET transcoding_state = 'processing',
        media = COALESCE(media, '{}'::jsonb) || jsonb_build_object('itemState', 'processing',
            'transcodingBy', $3::text, 'transcodingService', $4::text, 'progressInfo', $5::jsonb)
    WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL
    RETURNING media, original_file_name
), announced AS (
    INSERT INTO events (tenant_id, type, item_id, data)
    SELECT $1, 'processingStart', $2, jsonb_build_object('runKey', $5::jsonb->>'runKey') FROM claimed
)
SELECT COALESCE(media->>'sourceFileLocation', ''), COALESCE(media->>'ingestSourceStorageId', ''), original_file_name
FROM claimed`

	// progressSQL writes run $3's progress while it holds the item, and
	// announces it (processingProgress) unless it did within the last
	// second: at most one progress event per item per second, however
	// often a run writes.
	progressSQL = `
WITH written AS (
    UPDATE items SET media = jsonb_set(media, '{progressInfo}', $4::jsonb)
    WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->'progressInfo'->>'runKey' = $3
    RETURNING id
), announced AS (
    INSERT INTO events (tenant_id, type, item_id, data)
    SELECT $1, 'processingProgress', $2, jsonb_strip_nulls(jsonb_build_object('step', $4::jsonb->'step',
        'percent', $4::jsonb->'percent', 'etaSeconds', $4::jsonb->'etaSeconds'))
    FROM written
    WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = $1 AND e.item_id = $2
        AND e.type = 'processingProgress' AND e.occurred_on > now() - interval '1 second')
)
SELECT count(*) FROM written`

	runOfItemSQL = `
SELECT media->'progressInfo'->>'runKey' AS run_key, COALESCE(media->'generated'->>'prefix', '') AS prefix
FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`

	// finishProcessingSQL switches a run's outputs in. The item's
	// geoLocation is the media's (no API writes it).
	finishProcessingSQL = `
UPDATE items SET transcoding_state = $3, technical_metadata = $4, frame_count = $5,
    media_created_on = COALESCE($6, media_created_on), modified_on = $7,
    media = media || $8::jsonb,
    geo_location = $9
WHERE tenant_id = $1 AND id = $2`

	// Processing's thumbnails are those under a generated prefix of the
	// item; a user's own (CreateThumbnail) are kept.
	dropGeneratedThumbnailsSQL = `
DELETE FROM thumbnails WHERE tenant_id = $1 AND item_id = $2 AND blob_key LIKE $3 || '%'
AND NOT position_ms = ANY($4::bigint[])`

	upsertGeneratedThumbnailsSQL = `
INSERT INTO thumbnails (tenant_id, item_id, position_ms, blob_key, width, height, created_on)
SELECT $1, $2, p, k, $5, $6, $7 FROM unnest($3::bigint[], $4::text[]) AS t (p, k)
ON CONFLICT (tenant_id, item_id, position_ms) DO UPDATE SET
    blob_key = EXCLUDED.blob_key, width = EXCLUDED.width, height = EXCLUDED.height, created_on = EXCLUDED.created_on`

	// failProcessingSQL marks run $3's item failed and, in the same
	// statement, audits the failure (processingFailed, in the name of the
	// item's creator: a run is nobody's action, and the creator is whom it
	// concerns) and meters it (a failed operation, no outputs).
	failProcessingSQL = `
WITH failed AS (
    UPDATE items SET transcoding_state = 'failed', modified_on = $5,
        media = media || jsonb_build_object('itemState', 'failed', 'progressInfo', $4::jsonb)
    WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->'progressInfo'->>'runKey' = $3
    RETURNING tenant_id, id, title, created_by
), audited AS (
    INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on, mdf_diff)
    SELECT f.tenant_id, $6, f.id, 'processingFailed', f.created_by, COALESCE(u.email, ''), f.title, $5,
        jsonb_build_object('reason', $4::jsonb->>'error')
    FROM failed f LEFT JOIN users u ON u.tenant_id = f.tenant_id AND u.id = f.created_by
), metered AS (
    INSERT INTO media_operations (tenant_id, id, item_id, kind, provider, media_seconds, outputs, done_on, failed)
    SELECT tenant_id, $7, id, $8, $9, 0, 0, $5, true FROM failed
), announced AS (
    INSERT INTO events (tenant_id, type, item_id, occurred_on, data)
    SELECT tenant_id, 'processingFailure', id, $5, jsonb_build_object('reason', $4::jsonb->>'error', 'runKey', $3::text,
        'createdBy', created_by)
    FROM failed
)
SELECT count(*) FROM failed`
)

// GeneratedPrefix is where an item's generated media goes; each run writes
// below it in a directory of its own.
func GeneratedPrefix(tenantID, itemID string) string {
	return "media/" + tenantID + "/" + itemID + "/generated/"
}

// Claim is what a run needs of the item it claimed.
type Claim struct {
	// Source is its sourceFileLocation, StorageID its
	// ingestSourceStorageId ("" when it has none).
	Source, StorageID string
	// FileName is its original's name (what it claims to be).
	FileName string
}

// ClaimProcessing marks the item as processed by run (itemState
// processing, transcodingState processing, progressInfo with the run key)
// and answers where its original is. ENOTFOUND when the item is gone.
func (s *Store) ClaimProcessing(ctx context.Context, tenantID, itemID, runKey, by, service string, progress map[string]any) (Claim, error) {
	progress["runKey"] = runKey
	b, err := json.Marshal(progress)
	if err != nil {
		return Claim{}, err
	}
	var c Claim
	err = s.db.QueryRowContext(ctx, claimProcessingSQL, tenantID, itemID, by, service, string(b)).Scan(&c.Source, &c.StorageID, &c.FileName)
	if err != nil {
		return Claim{}, notFoundOr(err, "store: unable to claim item %s for processing: %w", itemID)
	}
	return c, nil
}

// WriteProgress writes run's progress on the item. ErrStaleRun when
// another run has claimed it or it is gone (the run should stop).
func (s *Store) WriteProgress(ctx context.Context, tenantID, itemID, runKey string, progress map[string]any) error {
	progress["runKey"] = runKey
	b, err := json.Marshal(progress)
	if err != nil {
		return err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, progressSQL, tenantID, itemID, runKey, string(b)).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to write progress: %w", err)
	}
	if n == 0 {
		return ErrStaleRun
	}
	return nil
}

// ProcessingResult is what a run switches onto its item.
type ProcessingResult struct {
	Generated      GeneratedMedia
	Technical      loupe.JSON
	FrameCount     *int64
	MediaCreatedOn *time.Time
	// GeoLocation is where the media says it was recorded (nil when it
	// does not say).
	GeoLocation loupe.JSON
	// Fields are further media document fields (proxySize,
	// thumbnailInfo…).
	Fields map[string]any
	// Thumbnails are the position thumbnails (keys under the run's
	// prefix), all of one size.
	Thumbnails []GeneratedThumbnail
	ThumbW     int
	ThumbH     int
	Progress   map[string]any
	// State is the transcodingState it ends in ("": complete; skipped for
	// a file that is not media).
	State string
	// StoredBytes and StoredFiles are what the outputs hold (metered as
	// one set under Generated.Prefix).
	StoredBytes int64
	StoredFiles int
	// Work is the metered work of the run.
	Work MediaOperation
	// Analysis asked for with the run (jobs.ProcessArgs.Analyze), queued
	// on Queue with those the switches turn on; DurationSeconds sizes the
	// analysis job's timeout.
	Analyze      []string
	AnalyzeForce bool
	// NewMedia: the run made the proxy (an original new or processed
	// again): the switches' analyses run again too.
	NewMedia        bool
	Queue           string
	DurationSeconds float64
}

// MediaOperation is a piece of metered media work (spec 2.25 operations).
type MediaOperation struct {
	Kind, Provider string
	// MediaSeconds is the media time of the outputs, summed over them.
	MediaSeconds float64
	Outputs      int
}

// The kinds of metered media work.
const (
	OperationTranscoding     = "transcoding"
	OperationTranscription   = "transcription"
	OperationTranslation     = "translation"
	OperationTextDetection   = "textDetection"
	OperationPersonDetection = "personDetection"
)

// GeneratedThumbnail is one position thumbnail.
type GeneratedThumbnail struct {
	PositionMs int64
	Key        string
}

// FinishProcessing switches a run's outputs onto the item in one
// transaction: the generated media, technical metadata, states (itemState
// ready, transcodingState complete) and position thumbnails. It answers the
// prefix of the outputs it replaced (the caller deletes them), or
// ErrStaleRun when another run holds the item (the caller deletes its own
// outputs instead), ENOTFOUND when the item is gone.
func (s *Store) FinishProcessing(ctx context.Context, tenantID, itemID, runKey string, r *ProcessingResult) (string, error) {
	var old string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur struct {
			RunKey sql.NullString `db:"run_key"`
			Prefix string         `db:"prefix"`
		}
		if err := tx.GetContext(ctx, &cur, runOfItemSQL, tenantID, itemID); err != nil {
			return notFoundOr(err, "store: unable to read item %s: %w", itemID)
		}
		if cur.RunKey.String != runKey {
			return ErrStaleRun
		}
		old = cur.Prefix
		r.Progress["runKey"] = runKey
		fields := map[string]any{"generated": r.Generated, "itemState": ItemStateReady, "progressInfo": r.Progress}
		for k, v := range r.Fields {
			fields[k] = v
		}
		doc, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		state := r.State
		if state == "" {
			state = TranscodingComplete
		}
		if _, err := tx.ExecContext(ctx, finishProcessingSQL, tenantID, itemID, state, r.Technical,
			r.FrameCount, r.MediaCreatedOn, now, string(doc), r.GeoLocation); err != nil {
			return fmt.Errorf("store: unable to switch processing outputs: %w", err)
		}
		pos := make([]int64, len(r.Thumbnails))
		keys := make([]string, len(r.Thumbnails))
		for i, t := range r.Thumbnails {
			pos[i], keys[i] = t.PositionMs, t.Key
		}
		if _, err := tx.ExecContext(ctx, dropGeneratedThumbnailsSQL, tenantID, itemID,
			GeneratedPrefix(tenantID, itemID), pq.Array(pos)); err != nil {
			return fmt.Errorf("store: unable to drop thumbnails: %w", err)
		}
		if len(pos) > 0 {
			if _, err := tx.ExecContext(ctx, upsertGeneratedThumbnailsSQL, tenantID, itemID, pq.Array(pos),
				pq.Array(keys), r.ThumbW, r.ThumbH, now); err != nil {
				return fmt.Errorf("store: unable to write thumbnails: %w", err)
			}
		}
		if err := meterProcessingTx(ctx, tx, tenantID, itemID, old, r, now); err != nil {
			return err
		}
		if err := emitTx(ctx, tx, tenantID, now, NewEvent{Type: loupe.EventProcessingCompletion, ItemID: itemID,
			Data: map[string]any{"runKey": runKey, "transcodingState": state, "kind": r.Generated.Kind}}); err != nil {
			return err
		}
		return s.analyseAfterProcessingTx(ctx, tx, tenantID, itemID, r)
	})
	if err != nil {
		return "", err
	}
	s.countOperation(tenantID, r.Work.Kind)
	if old == r.Generated.Prefix {
		old = ""
	}
	return old, nil
}

// FailProcessing marks the item failed by run, the reason in progressInfo
// (error), audited (processingFailed) and metered as a failed operation of
// work's kind and provider. ErrStaleRun as WriteProgress.
func (s *Store) FailProcessing(ctx context.Context, tenantID, itemID, runKey, reason string, work MediaOperation) error {
	b, err := json.Marshal(map[string]any{"runKey": runKey, "step": "failed", "error": truncate(reason, 2000)})
	if err != nil {
		return err
	}
	var n int
	err = s.db.QueryRowContext(ctx, failProcessingSQL, tenantID, itemID, runKey, string(b), time.Now().UTC(),
		loupe.NewID(), loupe.NewID(), work.Kind, work.Provider).Scan(&n)
	if err != nil {
		return fmt.Errorf("store: unable to mark item failed: %w", err)
	}
	if n == 0 {
		return ErrStaleRun
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

const (
	insertMediaOperationSQL = `
INSERT INTO media_operations (tenant_id, id, item_id, kind, provider, media_seconds, outputs, done_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

	insertStoredSetSQL = `
INSERT INTO stored_files (tenant_id, id, key, size_bytes, stored_on, file_count) VALUES ($1, $2, $3, $4, $5, $6)`
)

// meterProcessingTx records in tx what a run switched in: its work
// (media_operations) and its outputs as one stored set, the set it
// replaced (under old) gone.
func meterProcessingTx(ctx context.Context, tx *sqlx.Tx, tenantID, itemID, old string, r *ProcessingResult, at time.Time) error {
	if r.Work.Kind != "" {
		if _, err := tx.ExecContext(ctx, insertMediaOperationSQL, tenantID, loupe.NewID(), itemID, r.Work.Kind,
			r.Work.Provider, r.Work.MediaSeconds, r.Work.Outputs, at); err != nil {
			return fmt.Errorf("store: unable to meter processing: %w", err)
		}
	}
	if old != "" && old != r.Generated.Prefix {
		if _, err := tx.ExecContext(ctx, closeStoredFileSQL, tenantID, old, at); err != nil {
			return fmt.Errorf("store: unable to meter replaced outputs: %w", err)
		}
	}
	if r.StoredFiles > 0 {
		if _, err := tx.ExecContext(ctx, closeStoredFileSQL, tenantID, r.Generated.Prefix, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insertStoredSetSQL, tenantID, loupe.NewID(), r.Generated.Prefix,
			r.StoredBytes, at, r.StoredFiles); err != nil {
			return fmt.Errorf("store: unable to meter outputs: %w", err)
		}
	}
	return nil
}
