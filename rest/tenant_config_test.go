package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const configPath = "/config/api/v1/config"

// tenantConfigKeys are the keys of spec 2.12, group by group.
var tenantConfigKeys = strings.Fields(`
confidenceLevel faceDetectionMinimumWidthRatio unknownPersonDetectionConfig analyticConfig conformAnalyticConfig
recordingsAnalyticConfig autoAddImagesToDetectedPersons speakerDiarizationEnabled
transcriptionApiKey realtimeTranscriptionConfig transcodingService subtitleParametricRules paragraphParametricRules
secondaryTranslationLanguage translationLanguage autoTranslationEnabled
tenantWideTimezone tenantWideTimeFormat organizationLabel serviceRate
mdfTypeDefaults metadataDefaults mdfTypePermissions shouldDefaultExportMdfOverride
featureFlags showPersonFunctionality showLabelFunctionality showFolderFunctionality showFileFunctionality
showAudioFunctionality showAllItemTypesInDefaultSearch defaultCompactViewFields isMoveDefault
projectTemplates shouldCreateItemForProjectTemplates forceCreateP2RootItem crashRecordingDuration crashRecordingName
editProxyConfig subclipFormatConfig cutterConfig useCutterRendererForSubclips defaultSubclipPresetId
uploadAllEditorClips skippedFileExtensionsForEditor useEditorPreferenceForScaleToFrame
plugins pluginConfig customActions customActionsHeaders customIcons customIconRules shareLimits
blacklistedFileExtensions`)

// defaultTenantConfig is what docs/tenant-config.md documents for a new
// tenant named "a".
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
  "paragraphParametricRules": {"maxParagraphDurationMs": 60000, "pauseThresholdMs": 2000, "splitOnSpeakerChange": true},
  "secondaryTranslationLanguage": null,
  "translationLanguage": null,
  "autoTranslationEnabled": false,
  "tenantWideTimezone": "UTC",
  "tenantWideTimeFormat": "24h",
  "organizationLabel": "a",
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
  "editProxyConfig": {"container": "mp4", "videoCodec": "h264", "height": 720, "videoBitrateKbps": 5000, "audioCodec": "aac"},
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
  "shareLimits": {"defaultValidityDays": 7, "maxValidityDays": 30, "allowPublicShares": true, "allowUploadShares": true,
    "requirePassword": false, "sessionMinutes": 240, "options": {
      "downloadProxy": {"default": true, "nonAdminMayChange": true},
      "downloadOriginal": {"default": false, "nonAdminMayChange": false},
      "comments": {"default": true, "nonAdminMayChange": true},
      "versions": {"default": false, "nonAdminMayChange": true},
      "metadataFields": {"default": [], "nonAdminMayChange": true}}},
  "blacklistedFileExtensions": ["exe", "msi", "bat", "cmd", "com", "scr", "ps1", "vbs", "jar"]
}`

func defaultConfig(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(defaultTenantConfig), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func readConfig(t *testing.T, c *loupetest.Client) map[string]any {
	t.Helper()
	got := c.Get(t, configPath).Status(http.StatusOK).Object()
	sameKeys(t, "tenant config", got, tenantConfigKeys)
	return got
}

func TestTenantConfigDefaults(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	if len(tenantConfigKeys) != 54 {
		t.Fatalf("the test lists %d keys of spec 2.12, want 54", len(tenantConfigKeys))
	}
	sameJSON(t, "defaults", readConfig(t, a), defaultConfig(t))
	// A user who is not an admin reads the same.
	user := a.User(t, "ed@a.test", nil, false)
	sameJSON(t, "defaults read by a user", readConfig(t, user), defaultConfig(t))
	if n := api.Count(t, `SELECT count(*) FROM tenant_config`); n != 0 {
		t.Fatalf("reading wrote %d rows", n)
	}
}

func TestUpdateTenantConfigMerges(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	steps := []struct {
		name string
		post map[string]any
		want map[string]any // changes from the defaults after the step
	}{
		{"first keys", map[string]any{"confidenceLevel": 65.5, "featureFlags": map[string]any{"newPlayer": true}},
			map[string]any{"confidenceLevel": 65.5, "featureFlags": map[string]any{"newPlayer": true}}},
		{"other keys keep the first", map[string]any{"showAudioFunctionality": false, "tenantWideTimezone": "Europe/Berlin",
			"translationLanguage": "de-DE", "crashRecordingDuration": 1800},
			map[string]any{"confidenceLevel": 65.5, "featureFlags": map[string]any{"newPlayer": true},
				"showAudioFunctionality": false, "tenantWideTimezone": "Europe/Berlin", "translationLanguage": "de-DE",
				"crashRecordingDuration": 1800}},
		{"objects are replaced whole, null clears a nullable key", map[string]any{
			"featureFlags": map[string]any{"beta": false}, "translationLanguage": nil,
			"blacklistedFileExtensions": []any{"exe"}, "organizationLabel": "ACME Broadcasting"},
			map[string]any{"confidenceLevel": 65.5, "featureFlags": map[string]any{"beta": false},
				"showAudioFunctionality": false, "tenantWideTimezone": "Europe/Berlin", "crashRecordingDuration": 1800,
				"blacklistedFileExtensions": []any{"exe"}, "organizationLabel": "ACME Broadcasting"}},
		{"an empty write changes nothing", map[string]any{},
			map[string]any{"confidenceLevel": 65.5, "featureFlags": map[string]any{"beta": false},
				"showAudioFunctionality": false, "tenantWideTimezone": "Europe/Berlin", "crashRecordingDuration": 1800,
				"blacklistedFileExtensions": []any{"exe"}, "organizationLabel": "ACME Broadcasting"}},
	}
	for _, s := range steps {
		want := with(defaultConfig(t), s.want)
		got := a.Post(t, configPath, s.post).Status(http.StatusOK).Object()
		sameKeys(t, s.name, got, tenantConfigKeys)
		sameJSON(t, s.name+": answer", got, want)
		sameJSON(t, s.name+": read after", readConfig(t, a), want)
	}
}

func TestUpdateTenantConfigRefusesBadInputAndWritesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	a.Post(t, configPath, map[string]any{"confidenceLevel": 70}).Status(http.StatusOK)
	before := readConfig(t, a)

	for _, c := range []struct {
		name    string
		body    any
		message string
	}{
		{"unknown key", map[string]any{"colour": "red"}, `unknown configuration key "colour"`},
		{"unknown key beside good ones", map[string]any{"showAudioFunctionality": false, "zzz": 1},
			`unknown configuration key "zzz"`},
		{"boolean as string", map[string]any{"isMoveDefault": "true"}, "isMoveDefault must be a boolean"},
		{"number as string", map[string]any{"confidenceLevel": "80"}, "confidenceLevel must be a number"},
		{"number out of range", map[string]any{"confidenceLevel": 101}, "confidenceLevel must be between 0 and 100"},
		{"ratio out of range", map[string]any{"faceDetectionMinimumWidthRatio": -0.1},
			"faceDetectionMinimumWidthRatio must be between 0 and 1"},
		{"integer with a fraction", map[string]any{"crashRecordingDuration": 1.5}, "crashRecordingDuration must be an integer"},
		{"null for a key that is never null", map[string]any{"featureFlags": nil}, "featureFlags must be an object"},
		{"array for an object", map[string]any{"shareLimits": []any{}}, "shareLimits must be an object"},
		{"object for an array", map[string]any{"plugins": map[string]any{}}, "plugins must be an array"},
		{"list of non-strings", map[string]any{"blacklistedFileExtensions": []any{"exe", 1}},
			"blacklistedFileExtensions must be an array of strings of 1 to 256 characters"},
		{"unknown time zone", map[string]any{"tenantWideTimezone": "Mars/Olympus"},
			"tenantWideTimezone must be an IANA time zone such as Europe/Berlin or UTC"},
		{"time format", map[string]any{"tenantWideTimeFormat": "am/pm"}, "tenantWideTimeFormat must be 24h or 12h"},
		{"language", map[string]any{"translationLanguage": "german!"},
			"translationLanguage must be a language code such as en-US"},
		{"negative rate", map[string]any{"serviceRate": -1}, "serviceRate must be 0 or more"},
		{"body is an array", []any{}, "the request body must be a JSON object"},
		{"body is not JSON", "{confidenceLevel: 1", "The server could not understand the request due to invalid syntax."},
	} {
		t.Run(c.name, func(t *testing.T) {
			a.Post(t, configPath, c.body).Envelope(http.StatusBadRequest, c.message)
		})
	}
	sameJSON(t, "after refused writes", readConfig(t, a), before)
}

func TestTenantConfigAccess(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	user := a.User(t, "ed@a.test", []string{"editors"}, false)
	secrets := map[string]any{
		"transcriptionApiKey":  "sk-live-0123456789",
		"customActionsHeaders": map[string]any{"Authorization": "Bearer xyz", "render": map[string]any{"X-Key": "k"}},
	}
	a.Post(t, configPath, secrets).Status(http.StatusOK)

	// Admins read secrets as written; other users read them masked.
	got := readConfig(t, a)
	sameJSON(t, "admin's secrets", map[string]any{
		"transcriptionApiKey": got["transcriptionApiKey"], "customActionsHeaders": got["customActionsHeaders"]}, secrets)
	got = readConfig(t, user)
	sameJSON(t, "user's secrets", map[string]any{
		"transcriptionApiKey": got["transcriptionApiKey"], "customActionsHeaders": got["customActionsHeaders"]},
		map[string]any{"transcriptionApiKey": "********",
			"customActionsHeaders": map[string]any{"Authorization": "********", "render": map[string]any{"X-Key": "********"}}})

	// Only admins write, and a refused write writes nothing.
	user.Post(t, configPath, map[string]any{"confidenceLevel": 1}).
		Envelope(http.StatusForbidden, "Only administrators may change the tenant configuration.")
	if got := readConfig(t, a)["confidenceLevel"]; got != float64(80) {
		t.Fatalf("confidenceLevel after a refused write = %v", got)
	}
	api.Anonymous().Get(t, configPath).Envelope(http.StatusUnauthorized, "")
	api.Anonymous().Post(t, configPath, map[string]any{}).Envelope(http.StatusUnauthorized, "")

	// Another tenant never sees a's configuration.
	want := with(defaultConfig(t), map[string]any{"organizationLabel": "b"})
	sameJSON(t, "other tenant", readConfig(t, b), want)
	b.Post(t, configPath, map[string]any{"isMoveDefault": true}).Status(http.StatusOK)
	if got := readConfig(t, a)["isMoveDefault"]; got != false {
		t.Fatalf("b's write reached a: isMoveDefault = %v", got)
	}
}
