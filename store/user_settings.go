package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
)

// UserSettings are one user's settings (spec 2.18).
type UserSettings struct {
	Bookmarks               loupe.JSON `json:"bookmarks"`
	BookmarksFolders        loupe.JSON `json:"bookmarksFolders"`
	DefaultFilters          loupe.JSON `json:"defaultFilters"`
	DismissedNotifications  loupe.JSON `json:"dismissedNotifications"`
	LastSeenChangelogID     string     `json:"lastSeenChangelogId"`
	ShowRenameSubclipDialog bool       `json:"showRenameSubclipDialog"`
	ShowSequenceParts       bool       `json:"showSequenceParts"`
	Language                string     `json:"language"`
	Theme                   string     `json:"theme"`
	SubtitlePreference      string     `json:"subtitlePreference"`
	ShowPopups              bool       `json:"showPopups"`
	PinnedItems             loupe.JSON `json:"pinnedItems"`
	WorkFolderID            string     `json:"workFolderId"`
}

// This file holds the per-user settings (spec 2.18) and the user's status.

// Limits on user settings.
const (
	// MaxUserSettingsBytes bounds one user's stored settings document.
	MaxUserSettingsBytes = 256 << 10
	// MaxUserSettingsEntries bounds each array setting and the
	// dismissedNotifications written by one request.
	MaxUserSettingsEntries = 1000
	// MaxUserSettingLength bounds string settings and notification ids,
	// in characters.
	MaxUserSettingLength = 256
)

// settingKind is the JSON type a setting holds.
type settingKind int

const (
	settingArray    settingKind = iota // replaced whole
	settingBoolMap                     // object of booleans, merged key by key
	settingString                      //
	settingBool                        //
	settingFolderID                    // "" or a live folder of the tenant
)

// userSettingKinds names every setting a user may write.
var userSettingKinds = map[string]settingKind{
	"bookmarks":               settingArray,
	"bookmarksFolders":        settingArray,
	"defaultFilters":          settingArray,
	"pinnedItems":             settingArray,
	"dismissedNotifications":  settingBoolMap,
	"lastSeenChangelogId":     settingString,
	"language":                settingString,
	"theme":                   settingString,
	"subtitlePreference":      settingString,
	"showRenameSubclipDialog": settingBool,
	"showSequenceParts":       settingBool,
	"showPopups":              settingBool,
	"workFolderId":            settingFolderID,
}

// DefaultUserSettings are what a user who never wrote a setting reads
// (docs/users-persons.md). Each call returns fresh values.
func DefaultUserSettings() *UserSettings {
	return &UserSettings{
		Bookmarks:               loupe.JSON("[]"),
		BookmarksFolders:        loupe.JSON("[]"),
		DefaultFilters:          loupe.JSON("[]"),
		DismissedNotifications:  loupe.JSON("{}"),
		LastSeenChangelogID:     "",
		ShowRenameSubclipDialog: true,
		ShowSequenceParts:       false,
		Language:                "en",
		Theme:                   "light",
		SubtitlePreference:      "off",
		ShowPopups:              true,
		PinnedItems:             loupe.JSON("[]"),
		WorkFolderID:            "",
	}
}

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
func (r *settingsRow) settings() (*UserSettings, error) {
	us := DefaultUserSettings()
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
func (s *Store) UserSettings(ctx context.Context, p *loupe.Principal) (*UserSettings, error) {
	var row settingsRow
	if err := s.getPrepared(ctx, &row, userSettingsSQL, p.TenantID, p.UserID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return DefaultUserSettings(), nil
		}
		return nil, fmt.Errorf("store: unable to fetch user settings: %w", err)
	}
	return row.settings()
}

// UpdateUserSettings merges in (a JSON object of some settings) into the
// principal's settings and returns them all. Arrays and other values replace
// what was stored; dismissedNotifications merges key by key. Returns
// EINVALID naming the first bad setting, an unknown work folder, or a
// document that would grow beyond MaxUserSettingsBytes; nothing is written
// then.
func (s *Store) UpdateUserSettings(ctx context.Context, p *loupe.Principal, in loupe.JSON) (*UserSettings, error) {
	delta, err := validateUserSettings(in)
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
			delta["workFolderId"] = mustJSON(folder)
		}
	}
	var us *UserSettings
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
		if len(row.Settings) > MaxUserSettingsBytes {
			return loupe.Invalid("user settings would be larger than %d bytes", MaxUserSettingsBytes)
		}
		var err error
		us, err = row.settings()
		return err
	})
	return us, err
}

// validateUserSettings checks a settings write: an object of known settings
// of the right types within the limits. It returns the settings by name.
// Keys are checked in name order, so the error names the first bad one.
func validateUserSettings(in loupe.JSON) (map[string]json.RawMessage, error) {
	if len(in) > MaxUserSettingsBytes {
		return nil, loupe.Invalid("user settings would be larger than %d bytes", MaxUserSettingsBytes)
	}
	if jsonType(in) != "object" {
		return nil, loupe.Invalid("user settings must be a JSON object")
	}
	var delta map[string]json.RawMessage
	if err := json.Unmarshal(in, &delta); err != nil {
		return nil, loupe.Invalid("user settings must be a JSON object")
	}
	names := make([]string, 0, len(delta))
	for k := range delta {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := validateSetting(name, delta[name]); err != nil {
			return nil, err
		}
	}
	return delta, nil
}

func validateSetting(name string, raw json.RawMessage) error {
	kind, ok := userSettingKinds[name]
	if !ok {
		return loupe.Invalid("unknown setting %q", name)
	}
	switch kind {
	case settingArray:
		var list []json.RawMessage
		if jsonType(raw) != "array" || json.Unmarshal(raw, &list) != nil {
			return loupe.Invalid("setting %s must be an array", name)
		}
		if len(list) > MaxUserSettingsEntries {
			return loupe.Invalid("setting %s has more than %d entries", name, MaxUserSettingsEntries)
		}
	case settingBoolMap:
		var m map[string]json.RawMessage
		if jsonType(raw) != "object" || json.Unmarshal(raw, &m) != nil {
			return loupe.Invalid("setting %s must be an object of booleans", name)
		}
		if len(m) > MaxUserSettingsEntries {
			return loupe.Invalid("setting %s has more than %d entries", name, MaxUserSettingsEntries)
		}
		for k, v := range m {
			if k == "" || utf8.RuneCountInString(k) > MaxUserSettingLength {
				return loupe.Invalid("setting %s: keys must be 1 to %d characters", name, MaxUserSettingLength)
			}
			if jsonType(v) != "boolean" {
				return loupe.Invalid("setting %s.%s must be a boolean", name, k)
			}
		}
	case settingString, settingFolderID:
		var s string
		if jsonType(raw) != "string" || json.Unmarshal(raw, &s) != nil {
			return loupe.Invalid("setting %s must be a string", name)
		}
		if utf8.RuneCountInString(s) > MaxUserSettingLength {
			return loupe.Invalid("setting %s is longer than %d characters", name, MaxUserSettingLength)
		}
		if kind == settingFolderID && s != "" && !loupe.ValidID(s) {
			return loupe.Invalid("setting %s: folder %s does not exist", name, s)
		}
	case settingBool:
		if jsonType(raw) != "boolean" {
			return loupe.Invalid("setting %s must be a boolean", name)
		}
	}
	return nil
}

// jsonType names the type of a JSON value by its first byte.
func jsonType(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
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
