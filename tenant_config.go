package loupe

import (
	"encoding/json"
	"errors"
	"math"
	"sort"
	"time"
	_ "time/tzdata" // tenantWideTimezone is checked against the IANA database, present or not on the host
	"unicode/utf8"
)

// The tenant configuration (spec 2.12): one object with every key of the
// spec, each key's rule, and the documented defaults (docs/tenant-config.md)
// for keys the tenant never wrote. The store merges and reads it.

// Limits on the tenant configuration.
const (
	// MaxTenantConfigBytes bounds the stored configuration document.
	MaxTenantConfigBytes = 1 << 20
	// MaxConfigStringLength bounds a string setting, in characters.
	MaxConfigStringLength = 256
	// MaxConfigListEntries bounds a list of strings (file extensions,
	// compact view fields).
	MaxConfigListEntries = 1000
)

// MaskedSecret stands in for a secret a non-admin may not read.
const MaskedSecret = "********"

// TenantConfig is the tenant configuration (spec 2.12). The spec leaves the
// inside of its values open; Loupe types the scalar ones and keeps objects
// and lists of objects as JSON (docs/tenant-config.md).
type TenantConfig struct {
	// Detection and analysis.
	ConfidenceLevel                float64 `json:"confidenceLevel"`
	FaceDetectionMinimumWidthRatio float64 `json:"faceDetectionMinimumWidthRatio"`
	UnknownPersonDetectionConfig   JSON    `json:"unknownPersonDetectionConfig"`
	AnalyticConfig                 JSON    `json:"analyticConfig"`
	ConformAnalyticConfig          JSON    `json:"conformAnalyticConfig"`
	RecordingsAnalyticConfig       JSON    `json:"recordingsAnalyticConfig"`
	AutoAddImagesToDetectedPersons bool    `json:"autoAddImagesToDetectedPersons"`
	SpeakerDiarizationEnabled      bool    `json:"speakerDiarizationEnabled"`

	// Transcription and translation.
	TranscriptionAPIKey          *string `json:"transcriptionApiKey"`
	RealtimeTranscriptionConfig  JSON    `json:"realtimeTranscriptionConfig"`
	TranscodingService           string  `json:"transcodingService"`
	SubtitleParametricRules      JSON    `json:"subtitleParametricRules"`
	ParagraphParametricRules     JSON    `json:"paragraphParametricRules"`
	SecondaryTranslationLanguage *string `json:"secondaryTranslationLanguage"`
	TranslationLanguage          *string `json:"translationLanguage"`
	AutoTranslationEnabled       bool    `json:"autoTranslationEnabled"`

	// Time and naming.
	TenantWideTimezone   string   `json:"tenantWideTimezone"`
	TenantWideTimeFormat string   `json:"tenantWideTimeFormat"`
	OrganizationLabel    string   `json:"organizationLabel"`
	ServiceRate          *float64 `json:"serviceRate"`

	// Metadata forms.
	MdfTypeDefaults                JSON `json:"mdfTypeDefaults"`
	MetadataDefaults               JSON `json:"metadataDefaults"`
	MdfTypePermissions             JSON `json:"mdfTypePermissions"`
	ShouldDefaultExportMdfOverride bool `json:"shouldDefaultExportMdfOverride"`

	// Interface switches.
	FeatureFlags                    JSON     `json:"featureFlags"`
	ShowPersonFunctionality         bool     `json:"showPersonFunctionality"`
	ShowLabelFunctionality          bool     `json:"showLabelFunctionality"`
	ShowFolderFunctionality         bool     `json:"showFolderFunctionality"`
	ShowFileFunctionality           bool     `json:"showFileFunctionality"`
	ShowAudioFunctionality          bool     `json:"showAudioFunctionality"`
	ShowAllItemTypesInDefaultSearch bool     `json:"showAllItemTypesInDefaultSearch"`
	DefaultCompactViewFields        []string `json:"defaultCompactViewFields"`
	IsMoveDefault                   bool     `json:"isMoveDefault"`

	// Projects and recordings.
	ProjectTemplates                    JSON   `json:"projectTemplates"`
	ShouldCreateItemForProjectTemplates bool   `json:"shouldCreateItemForProjectTemplates"`
	ForceCreateP2RootItem               bool   `json:"forceCreateP2RootItem"`
	CrashRecordingDuration              int    `json:"crashRecordingDuration"`
	CrashRecordingName                  string `json:"crashRecordingName"`

	// Editing and subclips.
	EditProxyConfig                    JSON     `json:"editProxyConfig"`
	SubclipFormatConfig                JSON     `json:"subclipFormatConfig"`
	CutterConfig                       JSON     `json:"cutterConfig"`
	UseCutterRendererForSubclips       bool     `json:"useCutterRendererForSubclips"`
	DefaultSubclipPresetID             *string  `json:"defaultSubclipPresetId"`
	UploadAllEditorClips               bool     `json:"uploadAllEditorClips"`
	SkippedFileExtensionsForEditor     []string `json:"skippedFileExtensionsForEditor"`
	UseEditorPreferenceForScaleToFrame bool     `json:"useEditorPreferenceForScaleToFrame"`

	// Extensions and limits.
	Plugins                   JSON     `json:"plugins"`
	PluginConfig              JSON     `json:"pluginConfig"`
	CustomActions             JSON     `json:"customActions"`
	CustomActionsHeaders      JSON     `json:"customActionsHeaders"`
	CustomIcons               JSON     `json:"customIcons"`
	CustomIconRules           JSON     `json:"customIconRules"`
	ShareLimits               JSON     `json:"shareLimits"`
	BlacklistedFileExtensions []string `json:"blacklistedFileExtensions"`
}

// defaultTenantConfig is what a tenant that never wrote its configuration
// reads, key for key as docs/tenant-config.md explains them.
// organizationLabel is the tenant's name until it is written.
const defaultTenantConfig = `{
  "confidenceLevel": 80,
  "faceDetectionMinimumWidthRatio": 0.05,
  "unknownPersonDetectionConfig": {"enabled": false, "minimumConfidence": 90, "minimumAppearances": 3},
  "analyticConfig": {"transcription": false, "translation": false, "personDetection": false,
                     "labelDetection": false, "textDetection": false, "celebrityDetection": false},
  "conformAnalyticConfig": {"transcription": false, "personDetection": false},
  "recordingsAnalyticConfig": {"transcription": false, "personDetection": false},
  "autoAddImagesToDetectedPersons": false,
  "speakerDiarizationEnabled": false,

  "transcriptionApiKey": null,
  "realtimeTranscriptionConfig": {"enabled": false, "languageCode": "en-US"},
  "transcodingService": "default",
  "subtitleParametricRules": {"maxCharactersPerLine": 42, "maxLines": 2, "minDurationMs": 1000,
                              "maxDurationMs": 7000, "maxCharactersPerSecond": 17, "minGapMs": 80},
  "paragraphParametricRules": {"maxParagraphDurationMs": 60000, "pauseThresholdMs": 2000,
                               "splitOnSpeakerChange": true},
  "secondaryTranslationLanguage": null,
  "translationLanguage": null,
  "autoTranslationEnabled": false,

  "tenantWideTimezone": "UTC",
  "tenantWideTimeFormat": "24h",
  "organizationLabel": "",
  "serviceRate": null,

  "mdfTypeDefaults": {"video": "default", "audio": "default", "image": "default", "folder": "default_folder"},
  "metadataDefaults": {},
  "mdfTypePermissions": {},
  "shouldDefaultExportMdfOverride": false,

  "featureFlags": {},
  "showPersonFunctionality": true,
  "showLabelFunctionality": true,
  "showFolderFunctionality": true,
  "showFileFunctionality": true,
  "showAudioFunctionality": true,
  "showAllItemTypesInDefaultSearch": false,
  "defaultCompactViewFields": ["title", "itemType", "createdOn", "mediaSize"],
  "isMoveDefault": false,

  "projectTemplates": [],
  "shouldCreateItemForProjectTemplates": false,
  "forceCreateP2RootItem": false,
  "crashRecordingDuration": 3600,
  "crashRecordingName": "Crash recording",

  "editProxyConfig": {"container": "mp4", "videoCodec": "h264", "height": 720,
                      "videoBitrateKbps": 5000, "audioCodec": "aac"},
  "subclipFormatConfig": {"container": "mov", "videoCodec": "prores_422", "audioCodec": "pcm_s24le"},
  "cutterConfig": {"frameAccurate": true, "handlesSeconds": 0},
  "useCutterRendererForSubclips": false,
  "defaultSubclipPresetId": null,
  "uploadAllEditorClips": false,
  "skippedFileExtensionsForEditor": ["pek", "cfa", "ims", "pkf", "tmp"],
  "useEditorPreferenceForScaleToFrame": false,

  "plugins": [],
  "pluginConfig": {},
  "customActions": [],
  "customActionsHeaders": {},
  "customIcons": [],
  "customIconRules": [],
  "shareLimits": ` + defaultShareLimits + `,
  "blacklistedFileExtensions": ["exe", "msi", "bat", "cmd", "com", "scr", "ps1", "vbs", "jar"]
}`

// configKind is the JSON type a configuration key holds.
type configKind int

const (
	configBool       configKind = iota
	configString                // at most MaxConfigStringLength characters
	configNullString            // a string, or null
	configNumber                // within [min, max]
	configNullNumber            // a number within [min, max], or null
	configInteger               // a whole number within [min, max]
	configObject                // any JSON object (the spec leaves the inside open)
	configArray                 // any JSON array
	configStrings               // an array of non-empty strings
)

// configKey is the rule for one key.
type configKey struct {
	kind     configKind
	min, max float64
	// check is a further rule for a string value, checkObject for an
	// object's.
	check       func(string) error
	checkObject func(json.RawMessage) error
}

var (
	configBoolKey   = configKey{kind: configBool}
	configObjectKey = configKey{kind: configObject}
	configArrayKey  = configKey{kind: configArray}
)

// tenantConfigKeys is every key of spec 2.12 and its rule. A key not here
// is refused.
var tenantConfigKeys = map[string]configKey{
	"confidenceLevel":                {kind: configNumber, min: 0, max: 100},
	"faceDetectionMinimumWidthRatio": {kind: configNumber, min: 0, max: 1},
	"unknownPersonDetectionConfig":   configObjectKey,
	"analyticConfig":                 configObjectKey,
	"conformAnalyticConfig":          configObjectKey,
	"recordingsAnalyticConfig":       configObjectKey,
	"autoAddImagesToDetectedPersons": configBoolKey,
	"speakerDiarizationEnabled":      configBoolKey,

	"transcriptionApiKey":          {kind: configNullString},
	"realtimeTranscriptionConfig":  configObjectKey,
	"transcodingService":           {kind: configString, check: notBlank},
	"subtitleParametricRules":      configObjectKey,
	"paragraphParametricRules":     configObjectKey,
	"secondaryTranslationLanguage": {kind: configNullString, check: configLanguage},
	"translationLanguage":          {kind: configNullString, check: configLanguage},
	"autoTranslationEnabled":       configBoolKey,

	"tenantWideTimezone":   {kind: configString, check: configTimezone},
	"tenantWideTimeFormat": {kind: configString, check: configTimeFormat},
	"organizationLabel":    {kind: configString},
	"serviceRate":          {kind: configNullNumber, min: 0, max: math.MaxFloat64},

	"mdfTypeDefaults":                configObjectKey,
	"metadataDefaults":               configObjectKey,
	"mdfTypePermissions":             configObjectKey,
	"shouldDefaultExportMdfOverride": configBoolKey,

	"featureFlags":                    configObjectKey,
	"showPersonFunctionality":         configBoolKey,
	"showLabelFunctionality":          configBoolKey,
	"showFolderFunctionality":         configBoolKey,
	"showFileFunctionality":           configBoolKey,
	"showAudioFunctionality":          configBoolKey,
	"showAllItemTypesInDefaultSearch": configBoolKey,
	"defaultCompactViewFields":        {kind: configStrings},
	"isMoveDefault":                   configBoolKey,

	"projectTemplates":                    configArrayKey,
	"shouldCreateItemForProjectTemplates": configBoolKey,
	"forceCreateP2RootItem":               configBoolKey,
	"crashRecordingDuration":              {kind: configInteger, min: 1, max: 86400},
	"crashRecordingName":                  {kind: configString, check: notBlank},

	"editProxyConfig":                    configObjectKey,
	"subclipFormatConfig":                configObjectKey,
	"cutterConfig":                       configObjectKey,
	"useCutterRendererForSubclips":       configBoolKey,
	"defaultSubclipPresetId":             {kind: configNullString},
	"uploadAllEditorClips":               configBoolKey,
	"skippedFileExtensionsForEditor":     {kind: configStrings},
	"useEditorPreferenceForScaleToFrame": configBoolKey,

	"plugins":                   configArrayKey,
	"pluginConfig":              configObjectKey,
	"customActions":             configArrayKey,
	"customActionsHeaders":      configObjectKey,
	"customIcons":               configArrayKey,
	"customIconRules":           configArrayKey,
	"shareLimits":               {kind: configObject, checkObject: CheckShareLimits},
	"blacklistedFileExtensions": {kind: configStrings},
}

// TenantConfigKeys names every key of the tenant configuration, sorted.
func TenantConfigKeys() []string {
	keys := make([]string, 0, len(tenantConfigKeys))
	for k := range tenantConfigKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DefaultTenantConfig is the configuration of a tenant that never wrote one
// (organizationLabel is then the tenant's name). Each call returns fresh
// values.
func DefaultTenantConfig() *TenantConfig {
	var c TenantConfig
	if err := json.Unmarshal([]byte(defaultTenantConfig), &c); err != nil {
		panic("loupe: defaultTenantConfig: " + err.Error())
	}
	return &c
}

func notBlank(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	return nil
}

func configLanguage(s string) error {
	if len(s) > 35 || !languageCodeRE.MatchString(s) {
		return errors.New("must be a language code such as en-US")
	}
	return nil
}

func configTimezone(s string) error {
	if s == "" || s == "Local" {
		return errors.New("must be an IANA time zone such as Europe/Berlin or UTC")
	}
	if _, err := time.LoadLocation(s); err != nil {
		return errors.New("must be an IANA time zone such as Europe/Berlin or UTC")
	}
	return nil
}

func configTimeFormat(s string) error {
	if s != "24h" && s != "12h" {
		return errors.New("must be 24h or 12h")
	}
	return nil
}

// ValidateTenantConfig checks a configuration write: an object of known
// keys with values of their kinds. Keys are checked in name order, so the
// error names the first bad one.
func ValidateTenantConfig(in JSON) (map[string]json.RawMessage, error) {
	return checkDelta(in, "the tenant configuration", MaxTenantConfigBytes, validateConfigValue)
}

func validateConfigValue(name string, raw json.RawMessage) error {
	key, ok := tenantConfigKeys[name]
	if !ok {
		return Invalid("unknown configuration key %q", name)
	}
	typ := jsonType(raw)
	switch key.kind {
	case configBool:
		if typ != "boolean" {
			return Invalid("%s must be a boolean", name)
		}
	case configString, configNullString:
		if typ == "null" && key.kind == configNullString {
			return nil
		}
		var s string
		if typ != "string" || json.Unmarshal(raw, &s) != nil {
			if key.kind == configNullString {
				return Invalid("%s must be a string or null", name)
			}
			return Invalid("%s must be a string", name)
		}
		if utf8.RuneCountInString(s) > MaxConfigStringLength {
			return Invalid("%s is longer than %d characters", name, MaxConfigStringLength)
		}
		if key.check != nil {
			if err := key.check(s); err != nil {
				return Invalid("%s %v", name, err)
			}
		}
	case configNumber, configNullNumber, configInteger:
		if typ == "null" && key.kind == configNullNumber {
			return nil
		}
		var f float64
		if typ != "number" || json.Unmarshal(raw, &f) != nil {
			switch key.kind {
			case configNullNumber:
				return Invalid("%s must be a number or null", name)
			case configInteger:
				return Invalid("%s must be an integer", name)
			}
			return Invalid("%s must be a number", name)
		}
		if key.kind == configInteger && f != math.Trunc(f) {
			return Invalid("%s must be an integer", name)
		}
		if f < key.min || f > key.max {
			if key.max == math.MaxFloat64 {
				return Invalid("%s must be %v or more", name, key.min)
			}
			return Invalid("%s must be between %v and %v", name, key.min, key.max)
		}
	case configObject:
		if typ != "object" {
			return Invalid("%s must be an object", name)
		}
		if key.checkObject != nil {
			return key.checkObject(raw)
		}
	case configArray:
		if typ != "array" {
			return Invalid("%s must be an array", name)
		}
	case configStrings:
		var list []any
		if typ != "array" || json.Unmarshal(raw, &list) != nil {
			return Invalid("%s must be an array of strings", name)
		}
		if len(list) > MaxConfigListEntries {
			return Invalid("%s has more than %d entries", name, MaxConfigListEntries)
		}
		for _, v := range list {
			s, ok := v.(string)
			if !ok || s == "" || utf8.RuneCountInString(s) > MaxConfigStringLength {
				return Invalid("%s must be an array of strings of 1 to %d characters", name, MaxConfigStringLength)
			}
		}
	}
	return nil
}

// Masked is the configuration as a non-admin reads it: secrets replaced by
// MaskedSecret (transcriptionApiKey when set, every string inside
// customActionsHeaders).
func (c *TenantConfig) Masked() *TenantConfig {
	out := *c
	if out.TranscriptionAPIKey != nil && *out.TranscriptionAPIKey != "" {
		masked := MaskedSecret
		out.TranscriptionAPIKey = &masked
	}
	if !out.CustomActionsHeaders.IsNull() {
		var v any
		if err := json.Unmarshal(out.CustomActionsHeaders, &v); err == nil {
			out.CustomActionsHeaders = JSONOf(maskStrings(v))
		} else {
			out.CustomActionsHeaders = JSON("{}")
		}
	}
	return &out
}

// maskStrings replaces every string in a decoded JSON value.
func maskStrings(v any) any {
	switch t := v.(type) {
	case string:
		return MaskedSecret
	case map[string]any:
		for k, e := range t {
			t[k] = maskStrings(e)
		}
	case []any:
		for i, e := range t {
			t[i] = maskStrings(e)
		}
	}
	return v
}
