package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file reads and merges the per-user settings (spec 2.18; their keys,
// rules and defaults are loupe.UserSettings') and reads the user's status.

const (
	// The row holds only the keys written. A work folder that is no longer
	// a live folder reads as none; the check constraint keeps the cast safe.
	userSettingsColumns = `
s.settings,
EXISTS (SELECT 1 FROM items f
        WHERE f.tenant_id = s.tenant_id AND f.id = NULLIF(s.settings->>'workFolderId', '')::uuid
          AND f.item_type = 'folder' AND f.deleted_on IS NULL) AS work_folder_live`

	userSettingsSQL = `SELECT ` + userSettingsColumns + `
FROM user_settings s WHERE s.tenant_id = $1 AND s.user_id = $2`

	// mergeUserSettingsSQL merges $3 into the row under the row's lock:
	// keys replace, except dismissedNotifications, merged key by key.
	mergeUserSettingsSQL = `
INSERT INTO user_settings AS s (tenant_id, user_id, settings, modified_on)
VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant_id, user_id) DO UPDATE
SET settings = s.settings || EXCLUDED.settings
        || CASE WHEN EXCLUDED.settings->'dismissedNotifications' IS NULL THEN '{}'::jsonb
           ELSE jsonb_build_object('dismissedNotifications',
                COALESCE(s.settings->'dismissedNotifications', '{}'::jsonb)
                || (EXCLUDED.settings->'dismissedNotifications')) END,
    modified_on = EXCLUDED.modified_on
RETURNING ` + userSettingsColumns

	liveFolderSQL = `
SELECT EXISTS (SELECT 1 FROM items
               WHERE tenant_id = $1 AND id = $2 AND item_type = 'folder' AND deleted_on IS NULL)`
)

// settingsRow is a user_settings row as read.
type settingsRow struct {
	Settings       loupe.JSON `db:"settings"`
	WorkFolderLive bool       `db:"work_folder_live"`
}

// settings is the row over the defaults.
func (r *settingsRow) settings() (*loupe.UserSettings, error) {
	us := loupe.DefaultUserSettings()
	if err := jsonUnmarshal(r.Settings, us); err != nil {
		return nil, err
	}
	if !r.WorkFolderLive {
		us.WorkFolderID = ""
	}
	return us, nil
}

// UserSettings returns the principal's settings, defaults for keys never
// written.
func (s *Store) UserSettings(ctx context.Context, p *loupe.Principal) (*loupe.UserSettings, error) {
	var row settingsRow
	if err := s.getPrepared(ctx, &row, userSettingsSQL, p.TenantID, p.UserID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return loupe.DefaultUserSettings(), nil
		}
		return nil, fmt.Errorf("store: unable to fetch user settings: %w", err)
	}
	return row.settings()
}

// UpdateUserSettings merges in (a JSON object of some settings) into the
// principal's settings and returns them all. Arrays and other values replace
// what was stored; dismissedNotifications merges key by key. Returns
// EINVALID naming the first bad setting, an unknown work folder, or a
// document that would grow beyond loupe.MaxUserSettingsBytes; nothing is written
// then.
func (s *Store) UpdateUserSettings(ctx context.Context, p *loupe.Principal, in loupe.JSON) (*loupe.UserSettings, error) {
	delta, err := loupe.ValidateUserSettings(in)
	if err != nil {
		return nil, err
	}
	if len(delta) == 0 {
		return s.UserSettings(ctx, p)
	}
	var folder string
	if raw, ok := delta["workFolderId"]; ok {
		if err := json.Unmarshal(raw, &folder); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if folder != "" {
			folder = strings.ToLower(folder)
			delta["workFolderId"] = loupe.RawJSON(folder)
		}
	}
	var us *loupe.UserSettings
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if folder != "" {
			var live bool
			if err := tx.GetContext(ctx, &live, liveFolderSQL, p.TenantID, folder); err != nil {
				return fmt.Errorf("store: unable to check work folder: %w", err)
			}
			if !live {
				return loupe.Invalid("setting workFolderId: folder %s does not exist", folder)
			}
		}
		var row settingsRow
		if err := tx.GetContext(ctx, &row, mergeUserSettingsSQL, p.TenantID, p.UserID, loupe.JSONOf(delta), now()); err != nil {
			return fmt.Errorf("store: unable to write user settings: %w", err)
		}
		if len(row.Settings) > loupe.MaxUserSettingsBytes {
			return loupe.Invalid("user settings would be larger than %d bytes", loupe.MaxUserSettingsBytes)
		}
		var err error
		us, err = row.settings()
		return err
	})
	return us, err
}

const userDeactivatedSQL = `SELECT deactivated FROM users WHERE tenant_id = $1 AND id = $2`

// UserDeactivated reports whether the principal's user is deactivated, as
// the users row says now. Returns EUNAUTHORIZED when the user is gone.
func (s *Store) UserDeactivated(ctx context.Context, p *loupe.Principal) (bool, error) {
	var deactivated bool
	if err := s.getPrepared(ctx, &deactivated, userDeactivatedSQL, p.TenantID, p.UserID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
		}
		return false, fmt.Errorf("store: unable to fetch user status: %w", err)
	}
	return deactivated, nil
}
