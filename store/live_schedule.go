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

// This file holds scheduled recordings and series (spec 4.6;
// docs/live.md "Scheduled recordings"): scheduling (a recording item and
// its live_recordings row in one transaction), changes, cancelling, the
// period listing, series and their occurrences, and ExtendSeries, which
// the scheduler runs across tenants. The rules are loupe's
// (live_recordings.go); what needs the database is checked here under a
// lock of the pipeline's row, so that two schedules on one pipeline
// cannot both pass the overlap check.
//
// Locks are taken in one order: pipeline, then series, then recording
// rows.

// seriesDone is the made_until of a series with no occurrence left to
// make: it is never due again.
var seriesDone = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// maxExtendPerCall bounds the series one ExtendSeries call extends (each in
// its own transaction); the rest wait for the next call.
const maxExtendPerCall = 100

const recordingColumns = `r.tenant_id, r.item_id, i.title, i.folder_ids[1] AS folder_id, r.pipeline_id, r.series_id,
r.starts_on, r.ends_on, r.crash, r.state, r.error, r.lease_node, r.recorded_seconds, r.gaps, r.started_on, r.ended_on,
r.created_by, r.created_on
FROM live_recordings r JOIN items i ON i.tenant_id = r.tenant_id AND i.id = r.item_id`

const seriesColumns = `tenant_id, id, title, pipeline_id, folder_id, metadata, first_start, time_zone, duration_seconds,
repeat, to_jsonb(days) AS days, until_start, occurrences, to_jsonb(exceptions) AS exceptions, made_until, created_by,
created_on, modified_on`

const (
	recordingSQL       = `SELECT ` + recordingColumns + ` WHERE r.tenant_id = $1 AND r.item_id = $2`
	lockRecordingSQL   = recordingSQL + ` FOR UPDATE OF r`
	recordingsOfSQL    = `SELECT ` + recordingColumns + ` WHERE r.tenant_id = $1 AND r.item_id = ANY($2::uuid[])`
	liveItemExistsSQL  = `SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL)`
	scheduledPeriodSQL = `SELECT ` + recordingColumns + `
WHERE r.tenant_id = $1 AND r.starts_on >= $2 AND r.starts_on < $3 AND r.state <> 'cancelled' AND i.deleted_on IS NULL
ORDER BY r.starts_on, r.item_id LIMIT $4`

	// lockPipelineSQL serialises the writes of one pipeline's schedule.
	lockPipelineSQL = `SELECT audio_only FROM live_pipelines WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

	// overlapRowsSQL finds a recording that holds the pipeline during one
	// of the slots ($3 starts, $4 ends), other than $5. A recording is at
	// most 24 hours long, which bounds the index range.
	overlapRowsSQL = `
SELECT r.item_id, r.starts_on, r.ends_on, o.s, o.e
FROM unnest($3::timestamptz[], $4::timestamptz[]) AS o(s, e)
JOIN live_recordings r ON r.tenant_id = $1 AND r.pipeline_id = $2 AND r.state <> 'cancelled'
     AND r.starts_on < o.e AND r.starts_on > o.s - interval '24 hours' AND r.ends_on > o.s
WHERE r.state IN ('scheduled', 'recording', 'finishing') AND r.item_id IS DISTINCT FROM NULLIF($5, '')::uuid
ORDER BY o.s, r.starts_on LIMIT 1`

	// pipelineSeriesSQL are the series of a pipeline with occurrences not
	// made yet before $3 that may reach $4 or later.
	pipelineSeriesSQL = `SELECT ` + seriesColumns + ` FROM live_series
WHERE tenant_id = $1 AND pipeline_id = $2 AND made_until < $3::timestamptz AND first_start < $3::timestamptz
  AND (until_start IS NULL OR until_start > $4::timestamptz - interval '24 hours')
ORDER BY first_start, id LIMIT $5`

	insertRecordingSQL = `
INSERT INTO live_recordings (tenant_id, item_id, pipeline_id, series_id, starts_on, ends_on, crash, created_by, created_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (tenant_id, series_id, starts_on) WHERE series_id IS NOT NULL DO NOTHING`

	updateRecordingTimesSQL = `UPDATE live_recordings SET starts_on = $3, ends_on = $4
WHERE tenant_id = $1 AND item_id = $2 AND state IN ('scheduled', 'recording')`

	// stopRecordingSQL ends a running recording now: the recorder sees its
	// end passed and finishes as at any end.
	stopRecordingSQL = `UPDATE live_recordings SET ends_on = greatest($3, starts_on + interval '1 millisecond')
WHERE tenant_id = $1 AND item_id = $2 AND state = 'recording'`

	// cancelRecordingsSQL cancels the ones of $2 not started.
	cancelRecordingsSQL = `UPDATE live_recordings SET state = 'cancelled', ended_on = $3
WHERE tenant_id = $1 AND item_id = ANY($2::uuid[]) AND state = 'scheduled' RETURNING item_id`

	// deleteRecordingItemsSQL moves recording items (never folders) to the
	// recycle bin, as deleteItem does for one that is not a folder.
	deleteRecordingItemsSQL = `UPDATE items SET deleted_on = $3, modified_on = $3, deleted_with = id
WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND deleted_on IS NULL AND item_type <> 'folder'
RETURNING id, title, false AS is_archive`

	seriesSQL        = `SELECT ` + seriesColumns + ` FROM live_series WHERE tenant_id = $1 AND id = $2`
	lockSeriesSQL    = seriesSQL + ` FOR UPDATE`
	countSeriesSQL   = `SELECT count(*) FROM live_series WHERE tenant_id = $1`
	lockSeriesAllSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.live_series:' || $1::text, 0))`
	insertSeriesSQL  = `
INSERT INTO live_series (tenant_id, id, title, pipeline_id, folder_id, metadata, first_start, time_zone, duration_seconds,
                         repeat, days, until_start, occurrences, made_until, created_by, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`
	seriesMadeSQL      = `UPDATE live_series SET made_until = $3 WHERE tenant_id = $1 AND id = $2`
	seriesExceptionSQL = `UPDATE live_series SET exceptions = array_append(exceptions, $3), modified_on = $4
WHERE tenant_id = $1 AND id = $2 AND NOT ($3 = ANY(exceptions))`
	deleteSeriesSQL = `DELETE FROM live_series WHERE tenant_id = $1 AND id = $2`
	// seriesRecordingsSQL are a series' recordings not cancelled.
	seriesRecordingsSQL = `SELECT item_id, state FROM live_recordings
WHERE tenant_id = $1 AND series_id = $2 AND state <> 'cancelled' ORDER BY starts_on`
	detachSeriesSQL = `UPDATE live_recordings SET series_id = NULL WHERE tenant_id = $1 AND series_id = $2`
	occurrenceSQL   = `SELECT item_id, state FROM live_recordings WHERE tenant_id = $1 AND series_id = $2 AND starts_on = $3
FOR UPDATE`
	madeOccurrencesSQL = `SELECT starts_on FROM live_recordings
WHERE tenant_id = $1 AND series_id = $2 AND starts_on = ANY($3::timestamptz[])`

	// seriesInPeriodSQL are the series that may have an occurrence in
	// [$2, $3): occurrences are computed from each.
	seriesInPeriodSQL = `SELECT ` + seriesColumns + ` FROM live_series
WHERE tenant_id = $1 AND first_start < $3 AND (until_start IS NULL OR until_start >= $2)
ORDER BY first_start, id LIMIT $4`
	occurrenceItemsSQL = `SELECT series_id, starts_on, item_id FROM live_recordings
WHERE tenant_id = $1 AND series_id = ANY($2::uuid[]) AND starts_on >= $3 AND starts_on < $4 AND state <> 'cancelled'`

	// dueSeriesSQL takes one series, of any tenant, whose occurrences
	// before $1 are not all made, skipping those another node holds and
	// those that failed in this call ($2).
	dueSeriesSQL = `SELECT ` + seriesColumns + ` FROM live_series
WHERE made_until < $1 AND id <> ALL($2::uuid[]) ORDER BY made_until LIMIT 1 FOR UPDATE SKIP LOCKED`
)

// ScheduledRecording returns the recording of item id (cancelled ones
// too). ENOTFOUND when there is no such item of the tenant, EINVALID
// (loupe.NotRecording) for an item that is not a recording.
func (s *Store) ScheduledRecording(ctx context.Context, tenantID, id string) (*loupe.ScheduledRecording, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.ScheduledRecording
	err := s.getPrepared(ctx, &out, recordingSQL, tenantID, id)
	if errors.Is(err, sql.ErrNoRows) {
		var exists bool
		if err := s.getPrepared(ctx, &exists, liveItemExistsSQL, tenantID, id); err != nil {
			return nil, fmt.Errorf("store: unable to look up item: %w", err)
		}
		if exists {
			return nil, loupe.NotRecording(id)
		}
		return nil, loupe.NotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch scheduled recording: %w", err)
	}
	return &out, nil
}

// RecordingsOfItems returns the recordings of the items among ids that are
// recordings, keyed by item id, in one query (the Item.recording loader).
func (s *Store) RecordingsOfItems(ctx context.Context, tenantID string, ids []string) (map[string]*loupe.ScheduledRecording, error) {
	out := map[string]*loupe.ScheduledRecording{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []*loupe.ScheduledRecording
	if err := s.selectPrepared(ctx, &rows, recordingsOfSQL, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch recordings of items: %w", err)
	}
	for _, r := range rows {
		out[r.ItemID] = r
	}
	return out, nil
}

// ScheduledRecordings returns the tenant's recordings (not cancelled, their
// items not deleted) whose start lies in [from, to), by start then id, at
// most limit.
func (s *Store) ScheduledRecordings(ctx context.Context, tenantID string, from, to time.Time, limit int) ([]*loupe.ScheduledRecording, error) {
	out := []*loupe.ScheduledRecording{}
	if err := s.selectPrepared(ctx, &out, scheduledPeriodSQL, tenantID, from, to, limit); err != nil {
		return nil, fmt.Errorf("store: unable to list scheduled recordings: %w", err)
	}
	return out, nil
}

// SeriesInPeriod returns the tenant's series with at least one occurrence
// (exceptions left out) starting in [from, to), each with those
// occurrences and the items made of them.
func (s *Store) SeriesInPeriod(ctx context.Context, tenantID string, from, to time.Time) ([]*loupe.RecordingSeries, error) {
	var cand []*loupe.RecordingSeries
	if err := s.selectPrepared(ctx, &cand, seriesInPeriodSQL, tenantID, from, to, loupe.MaxLiveSeries); err != nil {
		return nil, fmt.Errorf("store: unable to list recording series: %w", err)
	}
	out := []*loupe.RecordingSeries{}
	for _, sr := range cand {
		if s.occurrencesIn(sr.Decode(), from, to); len(sr.Occurrences) > 0 {
			out = append(out, sr)
		}
	}
	if err := s.fillOccurrenceItems(ctx, tenantID, out, from, to); err != nil {
		return nil, err
	}
	return out, nil
}

// RecordingSeries returns one series with its occurrences in [from, to);
// ENOTFOUND when missing or another tenant's.
func (s *Store) RecordingSeries(ctx context.Context, tenantID, id string, from, to time.Time) (*loupe.RecordingSeries, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var sr loupe.RecordingSeries
	if err := s.getPrepared(ctx, &sr, seriesSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch recording series: %w")
	}
	s.occurrencesIn(sr.Decode(), from, to)
	if err := s.fillOccurrenceItems(ctx, tenantID, []*loupe.RecordingSeries{&sr}, from, to); err != nil {
		return nil, err
	}
	return &sr, nil
}

// occurrencesIn sets sr's occurrences to those in [from, to).
func (s *Store) occurrencesIn(sr *loupe.RecordingSeries, from, to time.Time) {
	rule := sr.Rule()
	sr.Occurrences = []*loupe.SeriesOccurrence{}
	for _, start := range rule.Occurrences(from, to, loupe.MaxScheduledListed, true) {
		sr.Occurrences = append(sr.Occurrences, &loupe.SeriesOccurrence{Start: start, End: start.Add(rule.Duration)})
	}
}

// fillOccurrenceItems names the items made of the series' occurrences in
// [from, to), in one query.
func (s *Store) fillOccurrenceItems(ctx context.Context, tenantID string, series []*loupe.RecordingSeries, from, to time.Time) error {
	if len(series) == 0 {
		return nil
	}
	ids := make([]string, len(series))
	for i, sr := range series {
		ids[i] = sr.ID
	}
	var rows []struct {
		SeriesID string    `db:"series_id"`
		Start    time.Time `db:"starts_on"`
		ItemID   string    `db:"item_id"`
	}
	if err := s.selectPrepared(ctx, &rows, occurrenceItemsSQL, tenantID, stringArray(ids), from, to); err != nil {
		return fmt.Errorf("store: unable to fetch occurrences' items: %w", err)
	}
	made := make(map[string]string, len(rows))
	for _, r := range rows {
		made[r.SeriesID+"/"+r.Start.UTC().Format(time.RFC3339Nano)] = r.ItemID
	}
	for _, sr := range series {
		for _, o := range sr.Occurrences {
			if id, ok := made[sr.ID+"/"+o.Start.UTC().Format(time.RFC3339Nano)]; ok {
				o.ItemID = &id
			}
		}
	}
	return nil
}

// lockPipelineTx locks the pipeline's row for a write of its schedule and
// answers whether it records sound only. EINVALID naming pipelineId when
// it is not the tenant's.
func lockPipelineTx(ctx context.Context, tx *sqlx.Tx, tenantID, pipelineID string) (audioOnly bool, err error) {
	if !loupe.ValidID(pipelineID) {
		return false, loupe.Invalid("pipelineId %q is not a live pipeline of the tenant", pipelineID)
	}
	if err := tx.GetContext(ctx, &audioOnly, lockPipelineSQL, tenantID, pipelineID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, loupe.Invalid("pipelineId %s is not a live pipeline of the tenant", pipelineID)
		}
		return false, fmt.Errorf("store: unable to lock live pipeline: %w", err)
	}
	return audioOnly, nil
}

// slot is a time a recording holds its pipeline.
type slot struct{ start, end time.Time }

// checkOverlapTx answers EINVALID naming field when one of the slots
// overlaps a recording on the pipeline that holds it (scheduled,
// recording, finishing) other than exceptItem, or an occurrence not made
// yet of a series on the pipeline other than exceptSeries. The series are
// read before the recordings, so that an occurrence made meanwhile is
// seen as one or the other.
func checkOverlapTx(ctx context.Context, tx *sqlx.Tx, tenantID, pipelineID string, slots []slot, exceptItem, exceptSeries,
	field string) error {
	if len(slots) == 0 {
		return nil
	}
	lo, hi := slots[0].start, slots[0].end
	starts, ends := make([]string, len(slots)), make([]string, len(slots))
	for i, sl := range slots {
		lo, hi = minTime(lo, sl.start), maxTime(hi, sl.end)
		starts[i], ends[i] = sl.start.UTC().Format(time.RFC3339Nano), sl.end.UTC().Format(time.RFC3339Nano)
	}
	var series []*loupe.RecordingSeries
	if err := tx.SelectContext(ctx, &series, pipelineSeriesSQL, tenantID, pipelineID, hi, lo, loupe.MaxLiveSeries); err != nil {
		return fmt.Errorf("store: unable to read the pipeline's series: %w", err)
	}
	for _, sr := range series {
		if sr.ID == exceptSeries {
			continue
		}
		rule := sr.Decode().Rule()
		from := maxTime(sr.MadeUntil, lo.Add(-loupe.MaxRecordingSeconds*time.Second))
		for _, o := range rule.Occurrences(from, hi, loupe.MaxSeriesCount*2, true) {
			oe := o.Add(rule.Duration)
			for _, sl := range slots {
				if o.Before(sl.end) && oe.After(sl.start) {
					return loupe.OverlapError(field, sl.start, sl.end, sr.ID, o, oe, true)
				}
			}
		}
	}
	var hit struct {
		ItemID string    `db:"item_id"`
		Start  time.Time `db:"starts_on"`
		End    time.Time `db:"ends_on"`
		S      time.Time `db:"s"`
		E      time.Time `db:"e"`
	}
	err := tx.GetContext(ctx, &hit, overlapRowsSQL, tenantID, pipelineID, pq.StringArray(starts), pq.StringArray(ends), exceptItem)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("store: unable to check overlaps: %w", err)
	}
	return loupe.OverlapError(field, hit.S, hit.E, hit.ItemID, hit.Start, hit.End, false)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// newRecordingTx makes the item of a recording (in its folder, with its
// MDF checked, audited and announced like any created item) and its row.
// made answers false, with nothing written by it, when seriesID already
// has an occurrence at start.
func newRecordingTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, plan *loupe.RecordingPlan, audioOnly bool,
	seriesID *string, at time.Time) (id string, err error) {
	in := &loupe.CreateItemInput{Title: &plan.Title, ItemType: "video", Metadata: plan.Metadata}
	if audioOnly {
		in.ItemType = "audio"
	}
	if plan.FolderID != nil {
		in.FolderParents = []string{*plan.FolderID}
	}
	it, err := createItem(ctx, tx, p, in)
	if err != nil {
		var e *loupe.Error
		if plan.FolderID != nil && errors.As(err, &e) && e.Kind == loupe.EINVALID && strings.HasPrefix(e.Message, "folder ") {
			return "", loupe.Invalid("folderId %s is not a folder of the tenant", *plan.FolderID)
		}
		return "", err
	}
	res, err := tx.ExecContext(ctx, insertRecordingSQL, p.TenantID, it.ID, plan.PipelineID, seriesID, plan.Start, plan.End,
		plan.Crash, p.UserID, at)
	if err != nil {
		return "", fmt.Errorf("store: unable to schedule recording: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", errOccurrenceMade
	}
	return it.ID, nil
}

// errOccurrenceMade rolls back a series' extension that found an
// occurrence made meanwhile (the unique index live_recordings_occurrence).
var errOccurrenceMade = errors.New("store: the series' occurrence is made already")

// ScheduleRecording schedules a checked recording: its item (in the
// folder, with its MDF) and its row, with the item's create audit record
// and itemCreation event, in one transaction under the pipeline's lock.
// EINVALID naming the field for an unknown pipeline (pipelineId) or
// folder (folderId), a bad MDF (metadata.…), or a time the pipeline is
// taken (start); EFORBIDDEN for a folder the principal may not add to.
func (s *Store) ScheduleRecording(ctx context.Context, p *loupe.Principal, plan *loupe.RecordingPlan) (*loupe.ScheduledRecording, error) {
	var out loupe.ScheduledRecording
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		audioOnly, err := lockPipelineTx(ctx, tx, p.TenantID, plan.PipelineID)
		if err != nil {
			return err
		}
		if err := checkOverlapTx(ctx, tx, p.TenantID, plan.PipelineID, []slot{{plan.Start, plan.End}}, "", "", "start"); err != nil {
			return err
		}
		id, err := newRecordingTx(ctx, tx, p, plan, audioOnly, nil, now())
		if err != nil {
			return err
		}
		return tx.GetContext(ctx, &out, recordingSQL, p.TenantID, id)
	})
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, MetricItemsCreated, 1)
	return &out, nil
}

// UpdateScheduledRecording applies a change (checked by change against the
// recording as it is under the locks) to recording id: its times under the
// pipeline's lock and overlap check, its title as a metadata change of its
// item (default_title, audited). ENOTFOUND, EINVALID (loupe.NotRecording,
// a field of the change, start for an overlap).
func (s *Store) UpdateScheduledRecording(ctx context.Context, p *loupe.Principal, id string,
	change func(cur *loupe.ScheduledRecording) (*loupe.RecordingChange, error)) (*loupe.ScheduledRecording, error) {
	cur, err := s.ScheduledRecording(ctx, p.TenantID, id)
	if err != nil {
		return nil, err
	}
	var out loupe.ScheduledRecording
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := lockPipelineTx(ctx, tx, p.TenantID, cur.PipelineID); err != nil {
			return err
		}
		var locked loupe.ScheduledRecording
		if err := tx.GetContext(ctx, &locked, lockRecordingSQL, p.TenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock recording: %w")
		}
		ch, err := change(&locked)
		if err != nil {
			return err
		}
		if !ch.Start.Equal(locked.StartsOn) || !ch.End.Equal(locked.EndsOn) {
			if err := checkOverlapTx(ctx, tx, p.TenantID, locked.PipelineID, []slot{{ch.Start, ch.End}}, id, "", "start"); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, updateRecordingTimesSQL, p.TenantID, id, ch.Start, ch.End)
			if err != nil {
				return fmt.Errorf("store: unable to change recording: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return loupe.Invalid("the recording is %s: only a scheduled or recording one can change", locked.State)
			}
		}
		if ch.Title != nil && *ch.Title != locked.Title {
			if err := retitleTx(ctx, tx, p, id, *ch.Title); err != nil {
				return err
			}
		}
		return tx.GetContext(ctx, &out, recordingSQL, p.TenantID, id)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// retitleTx sets a recording item's title (its default_title) as a
// metadata change: checked against its form, versioned, audited and
// announced like updateItemMetadata.
func retitleTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, id, title string) error {
	var cur struct {
		Title    string     `db:"title"`
		FormID   string     `db:"metadata_form_id"`
		FormData loupe.JSON `db:"metadata_form_data"`
		Version  int        `db:"metadata_version"`
	}
	if err := tx.GetContext(ctx, &cur, lockItemMetadataSQL, p.TenantID, id); err != nil {
		return notFoundOr(err, "store: unable to read metadata of %s: %w", id)
	}
	before, err := cur.FormData.Object()
	if err != nil {
		return fmt.Errorf("store: unreadable metadata of %s: %w", id, err)
	}
	data, err := mergeFormDataTx(ctx, tx, p.TenantID, cur.FormID, before, cur.FormID,
		map[string]json.RawMessage{"default_title": loupe.RawJSON(title)})
	if err != nil {
		return err
	}
	changes := formDataChanges(before, data)
	at := now()
	if _, err := tx.ExecContext(ctx, writeItemMetadataSQL, p.TenantID, id, cur.FormID, loupe.JSONOf(data), title, at,
		cur.Version); err != nil {
		return fmt.Errorf("store: unable to retitle %s: %w", id, err)
	}
	diff := loupe.JSONOf(map[string]any{"oldMdfId": cur.FormID, "newMdfId": cur.FormID, "metadataFields": changes})
	return auditEmitTx(ctx, tx, p, id, title, loupe.ActionMetadataUpdated, at, diff,
		itemChange(id, p.UserID, []loupe.ItemPart{loupe.PartTitle, loupe.PartMetadata}, "metadataVersion", cur.Version+1,
			"fields", []string{"default_title"}))
}

// cancelRecordingsTx cancels the recordings of ids that have not started
// and moves their items to the recycle bin (audited, announced, their
// processing cancelled) like deleteItem. It answers the ids cancelled.
func (s *Store) cancelRecordingsTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, ids []string, at time.Time) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var cancelled []string
	if err := tx.SelectContext(ctx, &cancelled, cancelRecordingsSQL, p.TenantID, stringArray(ids), at); err != nil {
		return nil, fmt.Errorf("store: unable to cancel recordings: %w", err)
	}
	if len(cancelled) == 0 {
		return nil, nil
	}
	var rows []changedItem
	if err := tx.SelectContext(ctx, &rows, deleteRecordingItemsSQL, p.TenantID, stringArray(cancelled), at); err != nil {
		return nil, fmt.Errorf("store: unable to delete recording items: %w", err)
	}
	if len(rows) == 0 {
		return cancelled, nil
	}
	deleted, err := recordStateChangesTx(ctx, tx, p, rows, loupe.ActionDelete, "", at)
	if err != nil {
		return nil, err
	}
	if err := s.cancelProcessingTx(ctx, tx, p.TenantID, deleted); err != nil {
		return nil, err
	}
	return cancelled, nil
}

// CancelScheduledRecording cancels recording id: one not started becomes
// cancelled and its item goes to the recycle bin (an occurrence of a
// series also becomes an exception of it); one recording is stopped now
// (ends_on = now: the recorder sees its end passed within its tick and
// finishes as at any end). EINVALID for a recording that finished,
// failed or was cancelled; ENOTFOUND, EINVALID (loupe.NotRecording).
func (s *Store) CancelScheduledRecording(ctx context.Context, p *loupe.Principal, id string) (*loupe.ScheduledRecording, error) {
	cur, err := s.ScheduledRecording(ctx, p.TenantID, id)
	if err != nil {
		return nil, err
	}
	var out loupe.ScheduledRecording
	deleted := 0
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if cur.SeriesID != nil {
			// Series before recording rows (the lock order).
			if _, err := tx.ExecContext(ctx, lockSeriesSQL, p.TenantID, *cur.SeriesID); err != nil {
				return fmt.Errorf("store: unable to lock series: %w", err)
			}
		}
		var locked loupe.ScheduledRecording
		if err := tx.GetContext(ctx, &locked, lockRecordingSQL, p.TenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock recording: %w")
		}
		at := now()
		switch locked.State {
		case loupe.RecordingScheduled:
			done, err := s.cancelRecordingsTx(ctx, tx, p, []string{id}, at)
			if err != nil {
				return err
			}
			deleted = len(done)
			if locked.SeriesID != nil {
				if _, err := tx.ExecContext(ctx, seriesExceptionSQL, p.TenantID, *locked.SeriesID, locked.StartsOn, at); err != nil {
					return fmt.Errorf("store: unable to add series exception: %w", err)
				}
			}
		case loupe.RecordingRecording:
			if _, err := tx.ExecContext(ctx, stopRecordingSQL, p.TenantID, id, at); err != nil {
				return fmt.Errorf("store: unable to stop recording: %w", err)
			}
		default:
			return loupe.Invalid("the recording is %s: only a scheduled or recording one can be cancelled", locked.State)
		}
		return tx.GetContext(ctx, &out, recordingSQL, p.TenantID, id)
	})
	if err != nil {
		return nil, err
	}
	if deleted > 0 {
		s.countUsage(p.TenantID, MetricItemsDeleted, deleted)
	}
	return &out, nil
}

// seriesItemPlan is the recording plan of an occurrence of sr starting at
// start: the series' title with the occurrence's local date.
func seriesItemPlan(sr *loupe.RecordingSeries, start time.Time) (*loupe.RecordingPlan, error) {
	rule := sr.Rule()
	plan := &loupe.RecordingPlan{Title: sr.Title + " " + start.In(rule.Loc).Format("2006-01-02"), PipelineID: sr.PipelineID,
		FolderID: sr.FolderID, Start: start, End: start.Add(rule.Duration)}
	if !sr.Metadata.IsNull() {
		var md loupe.ItemMetadataInput
		if err := json.Unmarshal(sr.Metadata, &md); err != nil {
			return nil, fmt.Errorf("store: unreadable metadata of series %s: %w", sr.ID, err)
		}
		plan.Metadata = &md
	}
	return plan, nil
}

// makeOccurrencesTx makes the items of sr's occurrences in [from, to)
// not made yet (exceptions left out) and answers how many it made and
// the made_until that follows: the next occurrence's start at or after
// to, or seriesDone.
func makeOccurrencesTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, sr *loupe.RecordingSeries, audioOnly bool,
	from, to, at time.Time) (int, time.Time, error) {
	rule := sr.Rule()
	starts := rule.Occurrences(from, to, loupe.MaxSeriesCount, true)
	made := 0
	if len(starts) > 0 {
		stamps := make([]string, len(starts))
		for i, st := range starts {
			stamps[i] = st.Format(time.RFC3339Nano)
		}
		var have []time.Time
		if err := tx.SelectContext(ctx, &have, madeOccurrencesSQL, sr.TenantID, sr.ID, pq.StringArray(stamps)); err != nil {
			return 0, time.Time{}, fmt.Errorf("store: unable to read made occurrences: %w", err)
		}
		for _, st := range starts {
			if containsTime(have, st) {
				continue
			}
			plan, err := seriesItemPlan(sr, st)
			if err != nil {
				return 0, time.Time{}, err
			}
			if _, err := newRecordingTx(ctx, tx, p, plan, audioOnly, &sr.ID, at); err != nil {
				return 0, time.Time{}, err
			}
			made++
		}
	}
	next := seriesDone
	if n := rule.Occurrences(to, seriesDone, 1, false); len(n) > 0 {
		next = n[0]
	}
	return made, next, nil
}

func containsTime(list []time.Time, t time.Time) bool {
	for _, x := range list {
		if x.Equal(t) {
			return true
		}
	}
	return false
}

// CreateRecordingSeries creates a checked series and makes the items of
// its occurrences starting before now + loupe.SeriesHorizon, in one
// transaction under the pipeline's lock. Its occurrences within
// loupe.SeriesCheckSpan of now are checked against the pipeline's
// recordings and other series. EINVALID naming the field (pipelineId,
// folderId, metadata.…, firstStart for an overlap), EFORBIDDEN for a
// folder the principal may not add to, ECONFLICT at loupe.MaxLiveSeries.
func (s *Store) CreateRecordingSeries(ctx context.Context, p *loupe.Principal, plan *loupe.SeriesPlan) (*loupe.RecordingSeries, error) {
	id := loupe.NewID()
	made := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		audioOnly, err := lockPipelineTx(ctx, tx, p.TenantID, plan.PipelineID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, lockSeriesAllSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to lock series: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, countSeriesSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count series: %w", err)
		}
		if n >= loupe.MaxLiveSeries {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d recording series, the most it may have", loupe.MaxLiveSeries)
		}
		if plan.FolderID != nil {
			if err := checkParents(ctx, tx, p, []string{*plan.FolderID}); err != nil {
				if loupe.ErrorKind(err) == loupe.EINVALID {
					return loupe.Invalid("folderId %s is not a folder of the tenant", *plan.FolderID)
				}
				return err
			}
		}
		// The MDF is checked now as each occurrence's item will be.
		probe := &loupe.CreateItemInput{Title: &plan.Title, ItemType: "video", Metadata: plan.Metadata}
		ni, err := probe.NewItem()
		if err != nil {
			return err
		}
		if _, err := newFormData(ctx, tx, p.TenantID, ni.FormID, ni.FormData); err != nil {
			return err
		}
		at := now()
		r := plan.Rule
		check := r.Occurrences(r.FirstStart, at.Add(loupe.SeriesCheckSpan), loupe.MaxSeriesCount*2, true)
		slots := make([]slot, len(check))
		for i, st := range check {
			slots[i] = slot{st, st.Add(r.Duration)}
		}
		if err := checkOverlapTx(ctx, tx, p.TenantID, plan.PipelineID, slots, "", id, "firstStart"); err != nil {
			return err
		}
		var md any
		if plan.Metadata != nil {
			md = string(loupe.JSONOf(plan.Metadata))
		}
		days := make([]int64, len(r.Weekdays))
		for i, d := range r.Weekdays {
			days[i] = int64(d)
		}
		if _, err := tx.ExecContext(ctx, insertSeriesSQL, p.TenantID, id, plan.Title, plan.PipelineID, plan.FolderID, md,
			r.FirstStart, plan.TimeZone, int(r.Duration/time.Second), r.Repeat, pq.Array(days), r.Until, r.Count,
			r.FirstStart, p.UserID, at); err != nil {
			return fmt.Errorf("store: unable to create series: %w", err)
		}
		var sr loupe.RecordingSeries
		if err := tx.GetContext(ctx, &sr, seriesSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to read series: %w", err)
		}
		var next time.Time
		made, next, err = makeOccurrencesTx(ctx, tx, p, sr.Decode(), audioOnly, r.FirstStart, at.Add(loupe.SeriesHorizon), at)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, seriesMadeSQL, p.TenantID, id, next); err != nil {
			return fmt.Errorf("store: unable to record made occurrences: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if made > 0 {
		s.countUsage(p.TenantID, MetricItemsCreated, made)
	}
	at := now()
	return s.RecordingSeries(ctx, p.TenantID, id, at, at.Add(loupe.SeriesHorizon))
}

// DeleteRecordingSeries deletes series id: its occurrences not started
// are cancelled (their items to the recycle bin), the recordings that
// started are kept and leave the series. It answers the ids cancelled.
// ENOTFOUND when missing or another tenant's.
func (s *Store) DeleteRecordingSeries(ctx context.Context, p *loupe.Principal, id string) ([]string, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var cancelled []string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var sr loupe.RecordingSeries
		if err := tx.GetContext(ctx, &sr, lockSeriesSQL, p.TenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock series: %w")
		}
		var rows []struct {
			ItemID string `db:"item_id"`
			State  string `db:"state"`
		}
		if err := tx.SelectContext(ctx, &rows, seriesRecordingsSQL+` FOR UPDATE`, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to read the series' recordings: %w", err)
		}
		var ids []string
		for _, r := range rows {
			if r.State == loupe.RecordingScheduled {
				ids = append(ids, r.ItemID)
			}
		}
		var err error
		if cancelled, err = s.cancelRecordingsTx(ctx, tx, p, ids, now()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, detachSeriesSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to detach recordings: %w", err)
		}
		if _, err := tx.ExecContext(ctx, deleteSeriesSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to delete series: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cancelled) > 0 {
		s.countUsage(p.TenantID, MetricItemsDeleted, len(cancelled))
	}
	if cancelled == nil {
		cancelled = []string{}
	}
	return cancelled, nil
}

// RemoveSeriesOccurrence removes the occurrence of series id at start (an
// exception): its recording, when made and not started, is cancelled and
// its item goes to the recycle bin. EINVALID naming start when it is no
// occurrence of the series, is removed already, or has started;
// ENOTFOUND for a missing series.
func (s *Store) RemoveSeriesOccurrence(ctx context.Context, p *loupe.Principal, id string, start time.Time) (*loupe.RecordingSeries, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	start = start.UTC()
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var sr loupe.RecordingSeries
		if err := tx.GetContext(ctx, &sr, lockSeriesSQL, p.TenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock series: %w")
		}
		rule := sr.Decode().Rule()
		switch {
		case !rule.Has(start):
			return loupe.Invalid("start %s is not an occurrence of series %s", loupe.Stamp(start), id)
		case rule.Excepted(start):
			return loupe.Invalid("start: the occurrence at %s is removed already", loupe.Stamp(start))
		case len(sr.Exceptions) >= loupe.MaxSeriesExceptions:
			return loupe.Invalid("start: series %s has %d removed occurrences, the most it may have", id, loupe.MaxSeriesExceptions)
		}
		var occ struct {
			ItemID string `db:"item_id"`
			State  string `db:"state"`
		}
		at := now()
		err := tx.GetContext(ctx, &occ, occurrenceSQL, p.TenantID, id, start)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store: unable to read occurrence: %w", err)
		case occ.State == loupe.RecordingScheduled:
			if _, err := s.cancelRecordingsTx(ctx, tx, p, []string{occ.ItemID}, at); err != nil {
				return err
			}
		case occ.State != loupe.RecordingCancelled:
			return loupe.Invalid("start: the occurrence at %s has started (recording %s is %s); cancel the recording to stop it",
				loupe.Stamp(start), occ.ItemID, occ.State)
		}
		if _, err := tx.ExecContext(ctx, seriesExceptionSQL, p.TenantID, id, start, at); err != nil {
			return fmt.Errorf("store: unable to add series exception: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	at := now()
	return s.RecordingSeries(ctx, p.TenantID, id, at, at.Add(loupe.SeriesHorizon))
}

// ExtendSeries makes, across tenants, the items of the series'
// occurrences that now start before now + horizon (the scheduler's loop
// calls it). Each series is extended in its own transaction, holding its
// row FOR UPDATE SKIP LOCKED so that nodes calling at once share the work;
// an occurrence is made once (checked, and held by the unique index
// live_recordings_occurrence). The items are made as the series' creator
// would make them, with an admin's right to its folder (the series was
// authorised when created). It answers how many items it made; a series
// that fails (its folder or form gone) is skipped for this call and its
// error joined to the answer.
func (s *Store) ExtendSeries(ctx context.Context, now time.Time, horizon time.Duration) (int, error) {
	to := now.Add(horizon).UTC()
	failed := []string{}
	var errs []error
	total := 0
	for range maxExtendPerCall {
		var (
			found       bool
			made        int
			sid, tenant string
		)
		err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			var sr loupe.RecordingSeries
			if err := tx.GetContext(ctx, &sr, dueSeriesSQL, to, stringArray(failed)); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return nil
				}
				return fmt.Errorf("store: unable to take a due series: %w", err)
			}
			found, sid = true, sr.ID
			var audioOnly bool
			if err := tx.GetContext(ctx, &audioOnly, `SELECT audio_only FROM live_pipelines WHERE tenant_id = $1 AND id = $2`,
				sr.TenantID, sr.PipelineID); err != nil {
				return notFoundOr(err, "store: unable to read the series' pipeline: %w")
			}
			p := &loupe.Principal{TenantID: sr.TenantID, UserID: sr.CreatedByUser, IsAdmin: true}
			var (
				next time.Time
				err  error
			)
			made, next, err = makeOccurrencesTx(ctx, tx, p, sr.Decode(), audioOnly, sr.MadeUntil, to, time.Now().UTC())
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, seriesMadeSQL, sr.TenantID, sr.ID, next); err != nil {
				return fmt.Errorf("store: unable to record made occurrences: %w", err)
			}
			tenant = sr.TenantID
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return total, errors.Join(append(errs, err)...)
			}
			if sid == "" {
				return total, errors.Join(append(errs, err)...)
			}
			failed = append(failed, sid)
			errs = append(errs, fmt.Errorf("series %s: %w", sid, err))
			continue
		}
		if !found {
			break
		}
		if made > 0 {
			s.countUsage(tenant, MetricItemsCreated, made)
		}
		total += made
	}
	return total, errors.Join(errs...)
}
