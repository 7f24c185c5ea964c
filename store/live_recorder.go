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
	"github.com/loupe-mam/loupe/internal/jobs"
)

// The recorder's side of scheduled recordings (docs/live.md "How a
// recording runs"): a node takes a due recording under a lease, writes
// its segments as they arrive and ends it. Every write names the lease's
// epoch: once another node has taken the lease over (the holder stopped
// renewing it: killed, or cut off), the old holder's writes change
// nothing and it stops (ErrRecordingLost) — fencing.

// ErrRecordingLost answers a write of a recorder whose lease another node has
// taken, or whose recording ended meanwhile.
var ErrRecordingLost = errors.New("store: the recording's lease is no longer this node's")

// The states the recorder moves a recording through (loupe's
// RecordingState values).
const (
	recordingFinishing = "finishing"
	recordingComplete  = "complete"
	recordingFailed    = "failed"
)

// RecordingLease is a recording a node holds.
type RecordingLease struct {
	TenantID   string    `db:"tenant_id"`
	ItemID     string    `db:"item_id"`
	PipelineID string    `db:"pipeline_id"`
	State      string    `db:"state"`
	StartsOn   time.Time `db:"starts_on"`
	EndsOn     time.Time `db:"ends_on"`
	Epoch      int       `db:"epoch"`
	Node       string    `db:"lease_node"`
	// Previous is the node that held it before (a takeover), "" when none.
	Previous string `db:"previous_node"`
	// CreatedBy is who scheduled it (the events' actor).
	CreatedBy string `db:"created_by"`
}

// RecordingSegment is one stored segment.
type RecordingSegment struct {
	Of       string    `db:"of"`
	Epoch    int       `db:"epoch"`
	Run      int       `db:"run"`
	Index    int       `db:"idx"`
	Key      string    `db:"key"`
	InitKey  string    `db:"init_key"`
	Duration float64   `db:"duration"`
	Size     int64     `db:"size"`
	On       time.Time `db:"recorded_on"`
}

// RecordingGap is a stretch of a recording without media.
type RecordingGap struct {
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
	Reason string    `json:"reason"`
}

const (
	// claimRecordingsSQL takes the recordings due by $1 (their start, less
	// the lead) that no node holds — never held, or whose holder let the
	// lease lapse — for node $2 until $3, with the next epoch.
	claimRecordingsSQL = `
WITH due AS (
    SELECT tenant_id, item_id, lease_node FROM live_recordings
    WHERE state IN ('scheduled', 'recording', 'finishing') AND starts_on <= $1
      AND (lease_until IS NULL OR lease_until < now())
    ORDER BY starts_on
    LIMIT $4
    FOR UPDATE SKIP LOCKED
)
UPDATE live_recordings r
SET lease_node = $2, lease_until = $3, epoch = r.epoch + 1,
    state = CASE WHEN r.state = 'scheduled' THEN 'recording' ELSE r.state END,
    started_on = COALESCE(r.started_on, now())
FROM due
WHERE r.tenant_id = due.tenant_id AND r.item_id = due.item_id
RETURNING r.tenant_id, r.item_id, r.pipeline_id, r.state, r.starts_on, r.ends_on, r.epoch, r.lease_node,
          due.lease_node AS previous_node, r.created_by`

	// renewRecordingSQL extends a holder's lease and answers the end as it
	// is now (a stop or an extension).
	renewRecordingSQL = `
UPDATE live_recordings SET lease_until = $4
WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state IN ('recording', 'finishing')
RETURNING ends_on`

	insertRecordingSegmentSQL = `
INSERT INTO live_recording_segments (tenant_id, item_id, of, epoch, run, idx, key, init_key, duration, size, recorded_on)
SELECT $1, $2, $4, $3, $5, $6, $7, $8, $9, $10, $11
WHERE EXISTS (SELECT 1 FROM live_recordings WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state = 'recording')
ON CONFLICT DO NOTHING`

	// recordedSQL adds an original segment's length to what is recorded.
	recordedSQL = `
UPDATE live_recordings SET recorded_seconds = recorded_seconds + $4
WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3`

	recordingSegmentsSQL = `
SELECT of, epoch, run, idx, key, init_key, duration, size, recorded_on FROM live_recording_segments
WHERE tenant_id = $1 AND item_id = $2 AND of = $3 ORDER BY epoch, run, idx`

	addRecordingGapSQL = `
UPDATE live_recordings SET gaps = gaps || $4::jsonb
WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state IN ('recording', 'finishing')`

	// liveMediaSQL points the item at its growing playlist and latest
	// thumbnail while it records (store.ItemMedia.LivePlaylist).
	liveMediaSQL = `
UPDATE items SET media = media || $3::jsonb, modified_on = $4
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	finishingRecordingSQL = `
UPDATE live_recordings SET state = 'finishing'
WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state = 'recording'`

	endRecordingSQL = `
UPDATE live_recordings SET state = $4, error = $5, ended_on = $6, lease_until = NULL
WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state IN ('recording', 'finishing')
RETURNING gaps`

	// stopRecordingsSQL is what deleting items does to their recordings:
	// a scheduled one is cancelled, one that records stops now (and ends
	// without an item: CompleteRecording).
	stopRecordingsSQL = `
UPDATE live_recordings SET
    state = CASE WHEN state = 'scheduled' THEN 'cancelled' ELSE state END,
    ended_on = CASE WHEN state = 'scheduled' THEN $3 ELSE ended_on END,
    ends_on = CASE WHEN state = 'recording' THEN GREATEST($3, starts_on + interval '1 millisecond') ELSE ends_on END
WHERE tenant_id = $1 AND item_id = ANY($2::uuid[]) AND state IN ('scheduled', 'recording')`

	// liveLeftSQL says what is left of a recording's item for the purge:
	// its processing's state, and whether it is deleted.
	liveLeftSQL = `SELECT transcoding_state, deleted_on IS NOT NULL FROM items WHERE tenant_id = $1 AND id = $2`

	deleteRecordingSegmentsSQL = `DELETE FROM live_recording_segments WHERE tenant_id = $1 AND item_id = $2`

	forgetLiveMediaSQL = `
UPDATE items SET media = media - 'livePlaylist' - 'liveThumbnail' WHERE tenant_id = $1 AND id = $2`

	recordingGapMetadataSQL = `
INSERT INTO timed_metadata (tenant_id, item_id, id, start_ms, end_ms, form_id, form_data, modified_on)
VALUES ($1, $2, $3, $4, $5, 'default', $6, $7)
ON CONFLICT (tenant_id, item_id, id) DO NOTHING`
)

// ClaimRecordings takes for node up to limit recordings that start within
// lead (or run, or were being finished) and that no node holds, leased
// for lease.
func (s *Store) ClaimRecordings(ctx context.Context, node string, lead, lease time.Duration, limit int) ([]*RecordingLease, error) {
	var out []*RecordingLease
	at := time.Now()
	if err := s.db.SelectContext(ctx, &out, claimRecordingsSQL, at.Add(lead), node, at.Add(lease), limit); err != nil {
		return nil, fmt.Errorf("store: unable to claim recordings: %w", err)
	}
	return out, nil
}

// RenewRecording extends l's lease to until and answers the recording's
// end as it is now; ErrRecordingLost when another node took it or it ended.
func (s *Store) RenewRecording(ctx context.Context, l *RecordingLease, until time.Time) (time.Time, error) {
	var end time.Time
	err := s.db.GetContext(ctx, &end, renewRecordingSQL, l.TenantID, l.ItemID, l.Epoch, until)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, ErrRecordingLost
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: unable to renew the recording's lease: %w", err)
	}
	return end, nil
}

// AddRecordingSegment records a stored segment of l's (an original's
// length counts as recorded); ErrRecordingLost when l is no longer held.
func (s *Store) AddRecordingSegment(ctx context.Context, l *RecordingLease, seg RecordingSegment) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, insertRecordingSegmentSQL, l.TenantID, l.ItemID, l.Epoch, seg.Of, seg.Run, seg.Index,
			seg.Key, seg.InitKey, seg.Duration, seg.Size, now())
		if err != nil {
			return fmt.Errorf("store: unable to record a segment: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var held bool
			if err := tx.GetContext(ctx, &held, `SELECT EXISTS (SELECT 1 FROM live_recordings
				WHERE tenant_id = $1 AND item_id = $2 AND epoch = $3 AND state = 'recording')`, l.TenantID, l.ItemID, l.Epoch); err != nil {
				return fmt.Errorf("store: unable to record a segment: %w", err)
			}
			if !held {
				return ErrRecordingLost
			}
			return nil // written before (a retried write)
		}
		if seg.Of != "original" {
			return nil
		}
		_, err = tx.ExecContext(ctx, recordedSQL, l.TenantID, l.ItemID, l.Epoch, seg.Duration)
		return err
	})
}

// RecordingSegments lists the stored segments of one output ("original"
// or "proxy") of a recording, in recording order.
func (s *Store) RecordingSegments(ctx context.Context, tenantID, itemID, of string) ([]RecordingSegment, error) {
	var out []RecordingSegment
	if err := s.db.SelectContext(ctx, &out, recordingSegmentsSQL, tenantID, itemID, of); err != nil {
		return nil, fmt.Errorf("store: unable to list a recording's segments: %w", err)
	}
	return out, nil
}

// AddRecordingGap notes a stretch without media.
func (s *Store) AddRecordingGap(ctx context.Context, l *RecordingLease, g RecordingGap) error {
	g.From, g.To = g.From.UTC().Truncate(time.Millisecond), g.To.UTC().Truncate(time.Millisecond)
	res, err := s.db.ExecContext(ctx, addRecordingGapSQL, l.TenantID, l.ItemID, l.Epoch, loupe.JSONOf([]RecordingGap{g}))
	if err != nil {
		return fmt.Errorf("store: unable to note a gap: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrRecordingLost
	}
	return nil
}

// SetLiveMedia points the recording's item at its playlist and its latest
// thumbnail ("" leaves one as it is).
func (s *Store) SetLiveMedia(ctx context.Context, l *RecordingLease, playlist, thumbnail string) error {
	doc := map[string]any{}
	if playlist != "" {
		doc["livePlaylist"] = playlist
	}
	if thumbnail != "" {
		doc["liveThumbnail"] = thumbnail
	}
	if _, err := s.db.ExecContext(ctx, liveMediaSQL, l.TenantID, l.ItemID, loupe.JSONOf(doc), now()); err != nil {
		return fmt.Errorf("store: unable to update the recording's item: %w", err)
	}
	return nil
}

// stopRecordingsTx cancels or stops the recordings of items being deleted.
func stopRecordingsTx(ctx context.Context, tx *sqlx.Tx, tenantID string, itemIDs []string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, stopRecordingsSQL, tenantID, pq.Array(itemIDs), at); err != nil {
		return fmt.Errorf("store: unable to stop the items' recordings: %w", err)
	}
	return nil
}

// FinishingRecording marks l as being finished (its segments joined): a
// node that takes it over after a crash finishes it rather than record.
func (s *Store) FinishingRecording(ctx context.Context, l *RecordingLease) error {
	res, err := s.db.ExecContext(ctx, finishingRecordingSQL, l.TenantID, l.ItemID, l.Epoch)
	if err != nil {
		return fmt.Errorf("store: unable to mark the recording finishing: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrRecordingLost
	}
	l.State = recordingFinishing
	return nil
}

// FailRecording ends l as failed, saying why, on it and its item.
func (s *Store) FailRecording(ctx context.Context, l *RecordingLease, reason string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var gaps loupe.JSON
		err := tx.GetContext(ctx, &gaps, endRecordingSQL, l.TenantID, l.ItemID, l.Epoch, recordingFailed, reason, at)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrRecordingLost
		}
		if err != nil {
			return fmt.Errorf("store: unable to fail the recording: %w", err)
		}
		doc := map[string]any{"itemState": ItemStateFailed, "progressInfo": map[string]any{"error": reason}}
		if _, err := tx.ExecContext(ctx, liveMediaSQL, l.TenantID, l.ItemID, loupe.JSONOf(doc), at); err != nil {
			return fmt.Errorf("store: unable to fail the recording's item: %w", err)
		}
		return emitTx(ctx, tx, l.TenantID, at, NewEvent{Type: loupe.EventProcessingFailure, ItemID: l.ItemID,
			ActorID: l.CreatedBy, Data: map[string]any{"recording": true, "error": reason}})
	})
}

// Recorded is the original a recording made of its segments.
type Recorded struct {
	Key, FileName, MediaType, SHA256 string
	Size                             int64
	// Seconds is the original's length.
	Seconds float64
}

// ErrRecordingItemGone answers CompleteRecording when the recording's item
// was deleted while it recorded: the recording ended as failed, the file
// is the caller's to delete.
var ErrRecordingItemGone = errors.New("store: the recording's item was deleted")

// CompleteRecording gives l's item the joined original — like a completed
// upload: size, type, name, checksum, location, metered — marks each gap
// in the item's timed metadata (at its place in the joined media, where
// the gap closed up), ends the recording and asks for the processing with
// the tenant's recordingsAnalyticConfig analyses, in one transaction.
// ErrRecordingLost when l is no longer held (the file is then the caller's to
// delete).
func (s *Store) CompleteRecording(ctx context.Context, l *RecordingLease, f Recorded, analyses []string) error {
	gone := false
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var hasMedia bool
		err := tx.GetContext(ctx, &hasMedia, itemForUploadSQL, l.TenantID, l.ItemID)
		if errors.Is(err, sql.ErrNoRows) {
			gone = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: unable to lock the recording's item: %w", err)
		}
		var gapsDoc loupe.JSON
		err = tx.GetContext(ctx, &gapsDoc, endRecordingSQL, l.TenantID, l.ItemID, l.Epoch, recordingComplete, "", at)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrRecordingLost
		}
		if err != nil {
			return fmt.Errorf("store: unable to end the recording: %w", err)
		}
		doc := map[string]any{"itemState": "uploaded", "sourceFileLocation": loupe.FileLocation(f.Key),
			"mediaSha256": f.SHA256, "progressInfo": map[string]any{"recordedSeconds": f.Seconds}}
		if _, err = tx.ExecContext(ctx, renderedItemSQL, l.TenantID, l.ItemID, f.Size, f.MediaType, f.FileName,
			loupe.JSONOf(doc), at); err != nil {
			return fmt.Errorf("store: unable to give the recording's item its media: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertStoredSetSQL, l.TenantID, loupe.NewID(), f.Key, f.Size, at, 1); err != nil {
			return fmt.Errorf("store: unable to meter the recording: %w", err)
		}
		var gaps []RecordingGap
		_ = json.Unmarshal(gapsDoc, &gaps)
		for i, g := range gapMarks(gaps, l.StartsOn) {
			note := map[string]any{"default_title": "Recording gap",
				"default_description": fmt.Sprintf("The source was away %.1f s: %s", float64(g.length)/1000, g.reason)}
			if _, err := tx.ExecContext(ctx, recordingGapMetadataSQL, l.TenantID, l.ItemID, fmt.Sprintf("recording-gap-%d", i+1),
				g.at, g.at+g.length, loupe.JSONOf(note), at); err != nil {
				return fmt.Errorf("store: unable to mark a gap: %w", err)
			}
		}
		if _, err := s.enqueue(ctx, tx, jobs.ProcessArgs{TenantID: l.TenantID, ItemID: l.ItemID, Reason: "recording",
			Analyze: analyses}, ProcessInsertOpts(jobs.QueueInteractive)); err != nil {
			return fmt.Errorf("store: unable to ask for processing: %w", err)
		}
		purge := jobs.PurgeLiveArgs{TenantID: l.TenantID, ItemID: l.ItemID}.InsertOpts()
		purge.ScheduledAt = at.Add(jobs.LiveSegmentsKept)
		if _, err := s.enqueue(ctx, tx, jobs.PurgeLiveArgs{TenantID: l.TenantID, ItemID: l.ItemID}, &purge); err != nil {
			return fmt.Errorf("store: unable to plan the live segments' removal: %w", err)
		}
		return emitTx(ctx, tx, l.TenantID, at, NewEvent{Type: loupe.EventUploadCompletion, ItemID: l.ItemID,
			ActorID: l.CreatedBy, Data: map[string]any{"recording": true, "size": f.Size, "gaps": len(gaps)}})
	})
	if err != nil || !gone {
		return err
	}
	if err := s.FailRecording(ctx, l, "the recording's item was deleted while it recorded"); err != nil {
		return err
	}
	return ErrRecordingItemGone
}

// gapMark is a gap's place in the joined media, in milliseconds: where the
// media closed up, and how long the source was away. (A gap before the
// first media starts at 0.)
type gapMark struct {
	at, length int64
	reason     string
}

// gapMarks places gaps (in wall-clock time) in the joined media: media
// time is wall-clock time less the gaps before it.
func gapMarks(gaps []RecordingGap, start time.Time) []gapMark {
	var out []gapMark
	var away time.Duration
	for _, g := range gaps {
		from := g.From
		if from.Before(start) {
			from = start
		}
		length := g.To.Sub(from)
		if length <= 0 {
			continue
		}
		at := from.Sub(start) - away
		out = append(out, gapMark{at: max(at, 0).Milliseconds(), length: length.Milliseconds(), reason: strings.TrimSpace(g.Reason)})
		away += length
	}
	return out
}

// LiveLeft answers a recording's item's processing state and whether it
// is deleted (gone: no such item at all).
func (s *Store) LiveLeft(ctx context.Context, tenantID, itemID string) (state string, deleted, gone bool, err error) {
	err = s.db.QueryRowxContext(ctx, liveLeftSQL, tenantID, itemID).Scan(&state, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, true, nil
	}
	if err != nil {
		return "", false, false, fmt.Errorf("store: unable to read a recording's item: %w", err)
	}
	return state, deleted, false, nil
}

// ForgetLiveMedia removes a recording's segments' rows and the item's live
// playlist and thumbnail (their files are the caller's to delete first).
func (s *Store) ForgetLiveMedia(ctx context.Context, tenantID, itemID string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, deleteRecordingSegmentsSQL, tenantID, itemID); err != nil {
			return fmt.Errorf("store: unable to forget live segments: %w", err)
		}
		if _, err := tx.ExecContext(ctx, forgetLiveMediaSQL, tenantID, itemID); err != nil {
			return fmt.Errorf("store: unable to forget live media: %w", err)
		}
		return nil
	})
}
