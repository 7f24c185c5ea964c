package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds the tenant's presets (spec 2.20; docs/render.md): their
// list in the {l, i, s, t} shape, their writes, their dry-run state and
// their usage. The entity and its rules are loupe.Preset.

// MaxPresetPage bounds one page of presets.
const MaxPresetPage = 1000

const presetColumns = `tenant_id, id, name, type, settings, NULLIF(check_error, '') AS check_error, checked_on, created_by,
created_on, modified_on`

const (
	presetsSQL = `SELECT ` + presetColumns + ` FROM presets WHERE tenant_id = $1
ORDER BY created_on, id OFFSET $2 LIMIT $3`
	countPresetsSQL = `SELECT count(*) FROM presets WHERE tenant_id = $1`
	presetSQL       = `SELECT ` + presetColumns + ` FROM presets WHERE tenant_id = $1 AND id = $2`
	presetsByIDSQL  = `SELECT ` + presetColumns + ` FROM presets WHERE tenant_id = $1 AND id = ANY($2::uuid[])`
	lockPresetSQL   = `SELECT ` + presetColumns + ` FROM presets WHERE tenant_id = $1 AND id = $2 FOR UPDATE`
	lockPresetsSQL  = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.presets:' || $1::text, 0))`
	insertPresetSQL = `INSERT INTO presets (tenant_id, id, name, type, settings, created_by, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ` + presetColumns
	updatePresetSQL = `UPDATE presets SET name = $4, type = $5, settings = $6, check_error = $7, checked_on = $8, modified_on = $9
WHERE tenant_id = $1 AND id = $2 AND modified_on = $3 RETURNING ` + presetColumns
	// presetCheckedSQL records a dry run's outcome, unless the preset
	// changed since the check was asked for.
	presetCheckedSQL = `UPDATE presets SET type = $4, check_error = $5, checked_on = $6
WHERE tenant_id = $1 AND id = $2 AND modified_on = $3`
	deletePresetSQL = `DELETE FROM presets WHERE tenant_id = $1 AND id = $2`

	// presetUsageSQL: the renders that have not ended, then the tenant
	// configuration's default subclip preset.
	presetUsageSQL = `
SELECT preset_id::text AS preset_id, 'renderSequenceRequest' AS type, id::text AS id, state, target_item_id::text AS item_id
FROM render_requests WHERE tenant_id = $1 AND preset_id = ANY($2::uuid[]) AND state IN ('queued', 'rendering')
UNION ALL
SELECT config->>'defaultSubclipPresetId', 'tenantConfig', 'defaultSubclipPresetId', '', ''
FROM tenant_config WHERE tenant_id = $1 AND config->>'defaultSubclipPresetId' = ANY($2::text[])
ORDER BY 1, 2, 3`
)

// decoded fills a preset's settings from their column.
func decoded(p *loupe.Preset) *loupe.Preset {
	var s loupe.PresetSettings
	if err := json.Unmarshal(p.Settings, &s); err == nil {
		p.Filters, p.Capabilities, p.AudioMapping, p.Output = s.Filters, s.Capabilities, s.AudioMapping, s.Output
	}
	if p.Filters.Choices == nil {
		p.Filters.Choices = []loupe.PresetChoice{}
	}
	if p.Capabilities == nil {
		p.Capabilities = []string{}
	}
	return p
}

// Presets returns up to size presets from index (oldest first) and how
// many the tenant has.
func (s *Store) Presets(ctx context.Context, tenantID string, index, size int) ([]*loupe.Preset, int, error) {
	if index < 0 || size < 1 || size > MaxPresetPage {
		return nil, 0, loupe.Invalid("index must be 0 or more and size 1 to %d", MaxPresetPage)
	}
	out := []*loupe.Preset{}
	if err := s.selectPrepared(ctx, &out, presetsSQL, tenantID, index, size); err != nil {
		return nil, 0, fmt.Errorf("store: unable to list presets: %w", err)
	}
	for _, p := range out {
		decoded(p)
	}
	var total int
	if err := s.getPrepared(ctx, &total, countPresetsSQL, tenantID); err != nil {
		return nil, 0, fmt.Errorf("store: unable to count presets: %w", err)
	}
	return out, total, nil
}

// Preset returns one preset; ENOTFOUND when missing.
func (s *Store) Preset(ctx context.Context, tenantID, id string) (*loupe.Preset, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.Preset
	if err := s.getPrepared(ctx, &out, presetSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch preset: %w")
	}
	return decoded(&out), nil
}

// PresetsByID returns the tenant's presets of ids (a dataloader's batch).
func (s *Store) PresetsByID(ctx context.Context, tenantID string, ids []string) ([]*loupe.Preset, error) {
	var out []*loupe.Preset
	if err := s.db.SelectContext(ctx, &out, presetsByIDSQL, tenantID, pq.Array(validIDs(ids))); err != nil {
		return nil, fmt.Errorf("store: unable to fetch presets: %w", err)
	}
	for _, p := range out {
		decoded(p)
	}
	return out, nil
}

// PresetUsage returns what uses each of the presets (a dataloader's
// batch): renders that have not ended, and the tenant configuration's
// defaultSubclipPresetId.
func (s *Store) PresetUsage(ctx context.Context, tenantID string, ids []string) (map[string][]*loupe.PresetUse, error) {
	return presetUsage(ctx, s.db, tenantID, validIDs(ids))
}

func presetUsage(ctx context.Context, q sqlx.QueryerContext, tenantID string, ids []string) (map[string][]*loupe.PresetUse, error) {
	var rows []struct {
		PresetID string `db:"preset_id"`
		loupe.PresetUse
	}
	if err := sqlx.SelectContext(ctx, q, &rows, presetUsageSQL, tenantID, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to read presets' usage: %w", err)
	}
	out := make(map[string][]*loupe.PresetUse, len(ids))
	for i := range rows {
		out[rows[i].PresetID] = append(out[rows[i].PresetID], &rows[i].PresetUse)
	}
	return out, nil
}

// NewPreset is a preset to create: checked (loupe.PresetInput.Apply).
type NewPreset struct {
	Name     string
	Settings loupe.PresetSettings
}

// CreatePreset adds a preset, unresolved, and asks for its dry run (a
// check_preset job) in the same transaction. ECONFLICT at MaxPresets.
func (s *Store) CreatePreset(ctx context.Context, p *loupe.Principal, in NewPreset) (*loupe.Preset, error) {
	var out loupe.Preset
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockPresetsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to lock presets: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, countPresetsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count presets: %w", err)
		}
		if n >= loupe.MaxPresets {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d presets, the most it may have", loupe.MaxPresets)
		}
		if err := tx.GetContext(ctx, &out, insertPresetSQL, p.TenantID, loupe.NewID(), in.Name, loupe.PresetUnresolved,
			loupe.JSONOf(in.Settings), p.UserID, now()); err != nil {
			return fmt.Errorf("store: unable to create preset: %w", err)
		}
		return s.askPresetCheck(ctx, tx, &out)
	})
	if err != nil {
		return nil, err
	}
	return decoded(&out), nil
}

// askPresetCheck inserts the dry run of a preset as it is now.
func (s *Store) askPresetCheck(ctx context.Context, tx *sqlx.Tx, p *loupe.Preset) error {
	_, err := s.enqueue(ctx, tx, jobs.CheckPresetArgs{TenantID: p.TenantID, PresetID: p.ID,
		ModifiedOn: p.ModifiedOn.UTC().Format(time.RFC3339Nano)}, nil)
	if err != nil {
		return fmt.Errorf("store: unable to ask for the preset's dry run: %w", err)
	}
	return nil
}

// PresetChange is an update of a preset read at ModifiedOn: its new name
// and settings, and the dry run's outcome when the resolver ran one
// (Checked), else the type is kept.
type PresetChange struct {
	ModifiedOn time.Time
	Name       string
	Settings   loupe.PresetSettings
	Checked    bool
	Type       string
}

// UpdatePreset writes a change of the preset as it was read; ECONFLICT
// when it changed meanwhile, ENOTFOUND when it is gone.
func (s *Store) UpdatePreset(ctx context.Context, tenantID, id string, c PresetChange) (*loupe.Preset, error) {
	var out loupe.Preset
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur loupe.Preset
		if err := tx.GetContext(ctx, &cur, lockPresetSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock preset: %w")
		}
		if !cur.ModifiedOn.Equal(c.ModifiedOn) {
			return loupe.Errorf(loupe.ECONFLICT, "the preset changed while it was checked; send the update again")
		}
		typ, checkErr, checkedOn := cur.Type, "", cur.CheckedOn
		if cur.CheckError != nil {
			checkErr = *cur.CheckError
		}
		if c.Checked {
			at := now()
			typ, checkErr, checkedOn = c.Type, "", &at
		}
		if err := tx.GetContext(ctx, &out, updatePresetSQL, tenantID, id, cur.ModifiedOn, c.Name, typ,
			loupe.JSONOf(c.Settings), checkErr, checkedOn, now()); err != nil {
			return fmt.Errorf("store: unable to update preset: %w", err)
		}
		// A preset still waiting for its first dry run gets one for what
		// it is now (the pending one will find it changed).
		if !c.Checked && typ == loupe.PresetUnresolved {
			return s.askPresetCheck(ctx, tx, &out)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return decoded(&out), nil
}

// PresetChecked records a dry run of the preset as it was at modifiedOn:
// its resolved type, or why it failed (the type stays unresolved). A
// preset changed since is left alone.
func (s *Store) PresetChecked(ctx context.Context, tenantID, id string, modifiedOn time.Time, typ, reason string) error {
	if reason != "" {
		typ = loupe.PresetUnresolved
	}
	if _, err := s.db.ExecContext(ctx, presetCheckedSQL, tenantID, id, modifiedOn, typ, reason, now()); err != nil {
		return fmt.Errorf("store: unable to record the preset's dry run: %w", err)
	}
	return nil
}

// DeletePreset removes a preset nothing uses; a conflict listing its
// usage otherwise (loupe.PresetInUse), ENOTFOUND when missing. Renders
// take the preset's row lock too, so none starts using it meanwhile.
func (s *Store) DeletePreset(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var cur loupe.Preset
		if err := tx.GetContext(ctx, &cur, lockPresetSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock preset: %w")
		}
		usage, err := presetUsage(ctx, tx, tenantID, []string{id})
		if err != nil {
			return err
		}
		if uses := usage[id]; len(uses) > 0 {
			return loupe.PresetInUse(uses)
		}
		if _, err := tx.ExecContext(ctx, deletePresetSQL, tenantID, id); err != nil {
			return fmt.Errorf("store: unable to delete preset: %w", err)
		}
		return nil
	})
}
