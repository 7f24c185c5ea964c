package loupe

import (
	"encoding/json"
	"unicode/utf8"
)

// One user's settings (spec 2.18): the keys a user may write, their rules
// and what a user who never wrote one reads. The store merges and reads
// them (and checks that a work folder is a live folder).

// UserSettings are one user's settings (spec 2.18).
type UserSettings struct {
	Bookmarks               JSON   `json:"bookmarks"`
	BookmarksFolders        JSON   `json:"bookmarksFolders"`
	DefaultFilters          JSON   `json:"defaultFilters"`
	DismissedNotifications  JSON   `json:"dismissedNotifications"`
	LastSeenChangelogID     string `json:"lastSeenChangelogId"`
	ShowRenameSubclipDialog bool   `json:"showRenameSubclipDialog"`
	ShowSequenceParts       bool   `json:"showSequenceParts"`
	Language                string `json:"language"`
	Theme                   string `json:"theme"`
	SubtitlePreference      string `json:"subtitlePreference"`
	ShowPopups              bool   `json:"showPopups"`
	PinnedItems             JSON   `json:"pinnedItems"`
	WorkFolderID            string `json:"workFolderId"`
}

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
		Bookmarks:               JSON("[]"),
		BookmarksFolders:        JSON("[]"),
		DefaultFilters:          JSON("[]"),
		DismissedNotifications:  JSON("{}"),
		LastSeenChangelogID:     "",
		ShowRenameSubclipDialog: true,
		ShowSequenceParts:       false,
		Language:                "en",
		Theme:                   "light",
		SubtitlePreference:      "off",
		ShowPopups:              true,
		PinnedItems:             JSON("[]"),
		WorkFolderID:            "",
	}
}

// ValidateUserSettings checks a settings write: an object of known settings
// of the right types within the limits. It returns the settings by name.
// Keys are checked in name order, so the error names the first bad one.
func ValidateUserSettings(in JSON) (map[string]json.RawMessage, error) {
	return checkDelta(in, "user settings", MaxUserSettingsBytes, validateSetting)
}

func validateSetting(name string, raw json.RawMessage) error {
	kind, ok := userSettingKinds[name]
	if !ok {
		return Invalid("unknown setting %q", name)
	}
	switch kind {
	case settingArray:
		var list []json.RawMessage
		if jsonType(raw) != "array" || json.Unmarshal(raw, &list) != nil {
			return Invalid("setting %s must be an array", name)
		}
		if len(list) > MaxUserSettingsEntries {
			return Invalid("setting %s has more than %d entries", name, MaxUserSettingsEntries)
		}
	case settingBoolMap:
		var m map[string]json.RawMessage
		if jsonType(raw) != "object" || json.Unmarshal(raw, &m) != nil {
			return Invalid("setting %s must be an object of booleans", name)
		}
		if len(m) > MaxUserSettingsEntries {
			return Invalid("setting %s has more than %d entries", name, MaxUserSettingsEntries)
		}
		for k, v := range m {
			if k == "" || utf8.RuneCountInString(k) > MaxUserSettingLength {
				return Invalid("setting %s: keys must be 1 to %d characters", name, MaxUserSettingLength)
			}
			if jsonType(v) != "boolean" {
				return Invalid("setting %s.%s must be a boolean", name, k)
			}
		}
	case settingString, settingFolderID:
		var s string
		if jsonType(raw) != "string" || json.Unmarshal(raw, &s) != nil {
			return Invalid("setting %s must be a string", name)
		}
		if utf8.RuneCountInString(s) > MaxUserSettingLength {
			return Invalid("setting %s is longer than %d characters", name, MaxUserSettingLength)
		}
		if kind == settingFolderID && s != "" && !ValidID(s) {
			return Invalid("setting %s: folder %s does not exist", name, s)
		}
	case settingBool:
		if jsonType(raw) != "boolean" {
			return Invalid("setting %s must be a boolean", name)
		}
	}
	return nil
}
