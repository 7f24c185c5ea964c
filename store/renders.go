package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds render-sequence requests (spec 4.5; docs/render.md):
// their creation with the target item and the job in one transaction,
// and what the render job writes as it goes — progress, the exact frames
// it plans, the original it makes (switched in like a completed upload,
// then processed), or why it failed.

// RenderClip is a clip as stored: resolved to frames of its item.
type RenderClip struct {
	ItemID string `json:"itemId"`
	In     int64  `json:"in"`
	Out    int64  `json:"out"`
}

// RenderRequest is a render-sequence request.
type RenderRequest struct {
	TenantID       string       `db:"tenant_id" json:"-"`
	ID             string       `db:"id"`
	PresetID       string       `db:"preset_id"`
	TargetItemID   string       `db:"target_item_id"`
	TargetType     string       `db:"target_type"`
	ClipsDoc       loupe.JSON   `db:"clips" json:"-"`
	AnalyticConfig loupe.JSON   `db:"analytic_config"`
	State          string       `db:"state"`
	Percent        float64      `db:"percent"`
	Error          string       `db:"error"`
	Frames         int64        `db:"frames"`
	Duration       float64      `db:"duration"`
	CreatedBy      string       `db:"created_by"`
	CreatedOn      time.Time    `db:"created_on"`
	StartedOn      *time.Time   `db:"started_on"`
	EndedOn        *time.Time   `db:"ended_on"`
	Clips          []RenderClip `db:"-"`
	// Analyses are what AnalyticConfig switches on (run once the result
	// is processed).
	Analyses []string `db:"-"`
}

func (r *RenderRequest) decode() *RenderRequest {
	_ = jsonUnmarshal(r.ClipsDoc, &r.Clips)
	var on map[string]bool
	_ = jsonUnmarshal(r.AnalyticConfig, &on)
	r.Analyses = []string{}
	for _, k := range jobs.AnalysisKinds {
		if on[k] {
			r.Analyses = append(r.Analyses, k)
		}
	}
	return r
}

const renderColumns = `tenant_id, id, preset_id, target_item_id, target_type, clips, analytic_config, state, percent,
error, frames, duration, created_by, created_on, started_on, ended_on`

const (
	renderSQL       = `SELECT ` + renderColumns + ` FROM render_requests WHERE tenant_id = $1 AND id = $2`
	presetForUseSQL = `SELECT ` + presetColumns + ` FROM presets WHERE tenant_id = $1 AND id = $2 FOR SHARE`
	// A placeholder: a live item, not a folder, without media, that no
	// unfinished render targets.
	placeholderSQL = `
SELECT (i.media_size IS NOT NULL OR i.media ? 'sourceFileLocation') AS has_media,
       EXISTS (SELECT 1 FROM render_requests r WHERE r.tenant_id = i.tenant_id AND r.target_item_id = i.id
                 AND r.state IN ('queued', 'rendering')) AS pending
FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL AND i.item_type <> 'folder'
FOR UPDATE OF i`
	insertRenderSQL = `
INSERT INTO render_requests (tenant_id, id, preset_id, target_item_id, target_type, clips, analytic_config, state,
                             frames, duration, created_by, created_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $10, $11) RETURNING ` + renderColumns
	// The target shows the render as its processing.
	renderTargetSQL = `
UPDATE items SET transcoding_state = 'queued',
                 media = COALESCE(media, '{}'::jsonb) || jsonb_build_object('itemState', 'rendering', 'progressInfo', $3::jsonb)
WHERE tenant_id = $1 AND id = $2`

	// itemsInFoldersSQL: which of the items ($2) lie in one of the folders
	// ($3), at any depth.
	itemsInFoldersSQL = `
WITH RECURSIVE up (item_id, folder_id, depth) AS (
    SELECT item_id, folder_id, 1 FROM item_folders WHERE tenant_id = $1 AND item_id = ANY($2::uuid[])
  UNION
    SELECT up.item_id, f.folder_id, up.depth + 1 FROM up
    JOIN item_folders f ON f.tenant_id = $1 AND f.item_id = up.folder_id
    WHERE up.depth < 64)
SELECT DISTINCT item_id::text FROM up WHERE folder_id = ANY($3::uuid[])`

	startRenderSQL = `
UPDATE render_requests SET state = 'rendering', percent = 0, error = '', started_on = $3
WHERE tenant_id = $1 AND id = $2 AND state IN ('queued', 'rendering')`
	plannedRenderSQL = `
UPDATE render_requests SET frames = $3, duration = $4 WHERE tenant_id = $1 AND id = $2 AND state = 'rendering'`
	renderProgressSQL = `
UPDATE render_requests SET percent = $3 WHERE tenant_id = $1 AND id = $2 AND state = 'rendering'`
	renderItemProgressSQL = `
UPDATE items SET media = media || jsonb_build_object('progressInfo', $3::jsonb)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->>'itemState' = 'rendering'`
	endRenderSQL = `
UPDATE render_requests SET state = $3, percent = CASE WHEN $3 = 'complete' THEN 100 ELSE percent END,
                           error = $4, ended_on = $5
WHERE tenant_id = $1 AND id = $2 AND state IN ('queued', 'rendering')`
	// renderFailedItemSQL: the target says why (a later upload may still
	// give it media).
	renderFailedItemSQL = `
UPDATE items SET transcoding_state = 'failed',
                 media = media || jsonb_build_object('itemState', 'failed', 'progressInfo', $3::jsonb)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->>'itemState' = 'rendering'`
	renderedItemSQL = `
UPDATE items SET media_size = $3, media_type = $4, original_file_name = $5, transcoding_state = 'queued',
                 media = media || $6::jsonb, modified_on = $7
WHERE tenant_id = $1 AND id = $2`
)

// Render returns one request; ENOTFOUND when missing. The caller checks
// that the viewer may see it (its target).
func (s *Store) Render(ctx context.Context, tenantID, id string) (*RenderRequest, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var r RenderRequest
	if err := s.db.GetContext(ctx, &r, renderSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to read render request: %w")
	}
	return r.decode(), nil
}

// ItemsInFolders answers which of the items lie in one of the folders, at
// any depth (a preset's folder filter).
func (s *Store) ItemsInFolders(ctx context.Context, tenantID string, items, folders []string) (map[string]bool, error) {
	var ids []string
	if err := s.db.SelectContext(ctx, &ids, itemsInFoldersSQL, tenantID, stringArray(validIDs(items)),
		stringArray(validIDs(folders))); err != nil {
		return nil, fmt.Errorf("store: unable to read items' folders: %w", err)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// NewRender is a checked request: the preset, the resolved clips, the
// target — a placeholder's id, or the new item to make — the analyses to
// run on the result, and the estimated frames and duration.
type NewRender struct {
	PresetID    string
	Clips       []RenderClip
	TargetType  string
	Placeholder string
	NewItem     *loupe.CreateItemInput
	// AnalyticConfig is the target's, normalized.
	AnalyticConfig map[string]bool
	Frames         int64
	Duration       float64
}

// CreateRender makes the target (a new item) or claims it (a placeholder:
// it must still have no media and no other render), stores the request
// and asks for its job, in one transaction. The preset is share-locked so
// that it cannot be deleted meanwhile. A placeholder the principal may not
// see answers like a missing one; one they may not change is EFORBIDDEN.
func (s *Store) CreateRender(ctx context.Context, p *loupe.Principal, in NewRender) (*RenderRequest, error) {
	var out RenderRequest
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var preset loupe.Preset
		if err := tx.GetContext(ctx, &preset, presetForUseSQL, p.TenantID, in.PresetID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.Invalid("presetId %s is not a preset", in.PresetID)
			}
			return fmt.Errorf("store: unable to lock preset: %w", err)
		}
		target := in.Placeholder
		if in.TargetType == loupe.RenderToPlaceholder {
			if err := claimPlaceholderTx(ctx, tx, p, target); err != nil {
				return err
			}
		} else {
			it, err := createItem(ctx, tx, p, in.NewItem)
			if err != nil {
				return err
			}
			target = it.ID
		}
		at := now()
		if err := tx.GetContext(ctx, &out, insertRenderSQL, p.TenantID, loupe.NewID(), in.PresetID, target, in.TargetType,
			loupe.JSONOf(in.Clips), loupe.JSONOf(in.AnalyticConfig), in.Frames, in.Duration,
			p.UserID, at); err != nil {
			return fmt.Errorf("store: unable to store render request: %w", err)
		}
		if _, err := tx.ExecContext(ctx, renderTargetSQL, p.TenantID, target,
			loupe.JSONOf(renderProgress(&out, 0, ""))); err != nil {
			return fmt.Errorf("store: unable to mark the render's item: %w", err)
		}
		if _, err := s.enqueue(ctx, tx, jobs.RenderArgs{TenantID: p.TenantID, RequestID: out.ID,
			DurationSeconds: in.Duration}, nil); err != nil {
			return fmt.Errorf("store: unable to ask for the render: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if in.TargetType == loupe.RenderToNewItem {
		s.countUsage(p.TenantID, MetricItemsCreated, 1)
	}
	return out.decode(), nil
}

// claimPlaceholderTx checks and locks a placeholder target.
func claimPlaceholderTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, id string) error {
	var ph struct {
		HasMedia bool `db:"has_media"`
		Pending  bool `db:"pending"`
	}
	err := tx.GetContext(ctx, &ph, placeholderSQL, p.TenantID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return badPlaceholder("target.itemId %s is not an item", id)
	}
	if err != nil {
		return fmt.Errorf("store: unable to lock the placeholder: %w", err)
	}
	var access []ItemAccess
	if err := tx.SelectContext(ctx, &access, itemAccessSQL, p.TenantID, stringArray([]string{id}), p.UserID,
		aclTokens(p)); err != nil {
		return fmt.Errorf("store: unable to check the placeholder: %w", err)
	}
	switch {
	case len(access) == 0 || !access[0].Visible:
		return badPlaceholder("target.itemId %s is not an item", id)
	case !access[0].Updatable:
		return loupe.Forbidden("you may not change item %s", id)
	case ph.HasMedia:
		return badPlaceholder("target.itemId %s is not a placeholder: it has media", id)
	case ph.Pending:
		return badPlaceholder("target.itemId %s already awaits another render", id)
	}
	return nil
}

func badPlaceholder(format string, args ...any) *loupe.Error {
	e := loupe.Invalid(loupe.MsgBadRenderTarget)
	e.DeveloperMessage = fmt.Sprintf(format, args...)
	return e
}

// renderProgress is the target's progressInfo while it renders.
func renderProgress(r *RenderRequest, percent float64, errMsg string) map[string]any {
	m := map[string]any{"step": "render", "percent": percent, "renderRequestId": r.ID}
	if errMsg != "" {
		m["error"] = errMsg
	}
	return m
}

// StartRender marks a request rendering (again, after a crash). False
// when it has ended (nothing to do).
func (s *Store) StartRender(ctx context.Context, r *RenderRequest) (bool, error) {
	res, err := s.db.ExecContext(ctx, startRenderSQL, r.TenantID, r.ID, now())
	if err != nil {
		return false, fmt.Errorf("store: unable to start render: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RenderPlanned records the exact frames and duration the render makes.
func (s *Store) RenderPlanned(ctx context.Context, r *RenderRequest, frames int64, duration float64) error {
	if _, err := s.db.ExecContext(ctx, plannedRenderSQL, r.TenantID, r.ID, frames, duration); err != nil {
		return fmt.Errorf("store: unable to record the render's plan: %w", err)
	}
	return nil
}

// RenderProgress writes a running render's percent, on the request and
// on its target's progressInfo.
func (s *Store) RenderProgress(ctx context.Context, r *RenderRequest, percent float64) error {
	if _, err := s.db.ExecContext(ctx, renderProgressSQL, r.TenantID, r.ID, percent); err != nil {
		return fmt.Errorf("store: unable to write render progress: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, renderItemProgressSQL, r.TenantID, r.TargetItemID,
		loupe.JSONOf(renderProgress(r, percent, ""))); err != nil {
		return fmt.Errorf("store: unable to write render progress: %w", err)
	}
	return nil
}

// FailRender ends a request as failed, saying why, on it and its target.
func (s *Store) FailRender(ctx context.Context, r *RenderRequest, reason string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		res, err := tx.ExecContext(ctx, endRenderSQL, r.TenantID, r.ID, loupe.RenderFailed, reason, at)
		if err != nil {
			return fmt.Errorf("store: unable to fail render: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, renderFailedItemSQL, r.TenantID, r.TargetItemID,
			loupe.JSONOf(renderProgress(r, r.Percent, reason))); err != nil {
			return fmt.Errorf("store: unable to fail the render's item: %w", err)
		}
		return emitTx(ctx, tx, r.TenantID, at, NewEvent{Type: loupe.EventRenderFailure, ItemID: r.TargetItemID,
			ActorID: r.CreatedBy, Data: map[string]any{"renderRequestId": r.ID, "error": reason}})
	})
}

// Rendered is the original a render made.
type Rendered struct {
	Key, FileName, MediaType, SHA256 string
	Size                             int64
}

// CompleteRender gives the target the rendered original — like a
// completed upload: size, type, name, checksum, location, metered — ends
// the request, and asks for the processing with the request's analyses,
// in one transaction. A target that got media meanwhile (an upload) or is
// gone fails the request instead; the file is then the caller's to delete
// (false).
func (s *Store) CompleteRender(ctx context.Context, r *RenderRequest, f Rendered) (bool, error) {
	kept := false
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var hasMedia bool
		err := tx.GetContext(ctx, &hasMedia, itemForUploadSQL, r.TenantID, r.TargetItemID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: unable to lock the render's item: %w", err)
		}
		state, why := loupe.RenderComplete, ""
		if err != nil || hasMedia {
			state, why = loupe.RenderFailed, "the target item was deleted or got its media elsewhere before the render ended"
		}
		res, err := tx.ExecContext(ctx, endRenderSQL, r.TenantID, r.ID, state, why, at)
		if err != nil {
			return fmt.Errorf("store: unable to end render: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 || state == loupe.RenderFailed {
			return nil // ended meanwhile, or nowhere to go
		}
		doc := map[string]any{"itemState": "uploaded", "sourceFileLocation": loupe.FileLocation(f.Key),
			"mediaSha256": f.SHA256, "progressInfo": renderProgress(r, 100, "")}
		if _, err = tx.ExecContext(ctx, renderedItemSQL, r.TenantID, r.TargetItemID, f.Size, f.MediaType, f.FileName,
			loupe.JSONOf(doc), at); err != nil {
			return fmt.Errorf("store: unable to give the render's item its media: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertStoredSetSQL, r.TenantID, loupe.NewID(), f.Key, f.Size, at, 1); err != nil {
			return fmt.Errorf("store: unable to meter the render: %w", err)
		}
		if _, err := s.enqueue(ctx, tx, jobs.ProcessArgs{TenantID: r.TenantID, ItemID: r.TargetItemID, Reason: "render",
			Analyze: r.Analyses}, ProcessInsertOpts(jobs.QueueInteractive)); err != nil {
			return fmt.Errorf("store: unable to ask for processing: %w", err)
		}
		kept = true
		return emitTx(ctx, tx, r.TenantID, at, NewEvent{Type: loupe.EventRenderCompletion, ItemID: r.TargetItemID,
			ActorID: r.CreatedBy, Data: map[string]any{"renderRequestId": r.ID, "frames": r.Frames, "size": f.Size}})
	})
	if err != nil || !kept {
		return false, err
	}
	s.countUsage(r.TenantID, "render_sequence_in_cloud", 1)
	if r.TargetType == loupe.RenderToPlaceholder {
		s.countUsage(r.TenantID, "render_sequence_to_placeholder", 1)
	} else {
		s.countUsage(r.TenantID, "render_sequence_to_new_item", 1)
	}
	return true, nil
}
