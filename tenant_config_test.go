package loupe

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Every key of the configuration has a rule, a default that passes it, and
// a field of TenantConfig: the three lists cannot drift apart.
func TestTenantConfigKeysDefaultsAndFieldsAgree(t *testing.T) {
	var defaults map[string]json.RawMessage
	if err := json.Unmarshal([]byte(defaultTenantConfig), &defaults); err != nil {
		t.Fatal(err)
	}
	var fields []string
	typ := reflect.TypeOf(TenantConfig{})
	for i := range typ.NumField() {
		fields = append(fields, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	sort.Strings(fields)
	var fromDefaults []string
	for k, v := range defaults {
		fromDefaults = append(fromDefaults, k)
		if k == "organizationLabel" {
			continue // the tenant's name; "" would not be written
		}
		if err := validateConfigValue(k, v); err != nil {
			t.Errorf("default of %s: %v", k, err)
		}
	}
	sort.Strings(fromDefaults)
	keys := TenantConfigKeys()
	if !reflect.DeepEqual(keys, fields) || !reflect.DeepEqual(keys, fromDefaults) || len(keys) != 54 {
		t.Fatalf("keys %d %v\nfields %d %v\ndefaults %d %v", len(keys), keys, len(fields), fields, len(fromDefaults), fromDefaults)
	}
}

func TestValidateTenantConfig(t *testing.T) {
	cases := []struct {
		in      string
		wantErr string
	}{
		{`{}`, ""},
		{`{"serviceRate": null, "translationLanguage": null, "transcriptionApiKey": null}`, ""},
		{`{"serviceRate": 0, "crashRecordingDuration": 86400, "confidenceLevel": 0.5}`, ""},
		{`{"tenantWideTimezone": "America/New_York", "tenantWideTimeFormat": "12h"}`, ""},
		{`{"b": 1, "a": 1}`, `unknown configuration key "a"`},
		{`{"crashRecordingDuration": 0}`, "crashRecordingDuration must be between 1 and 86400"},
		{`{"crashRecordingDuration": null}`, "crashRecordingDuration must be an integer"},
		{`{"serviceRate": "5"}`, "serviceRate must be a number or null"},
		{`{"transcriptionApiKey": 5}`, "transcriptionApiKey must be a string or null"},
		{`{"transcodingService": ""}`, "transcodingService must not be empty"},
		{`{"tenantWideTimezone": "Local"}`, "tenantWideTimezone must be an IANA time zone such as Europe/Berlin or UTC"},
		{`{"organizationLabel": "` + strings.Repeat("x", 257) + `"}`, "organizationLabel is longer than 256 characters"},
		{`{"blacklistedFileExtensions": [""]}`, "blacklistedFileExtensions must be an array of strings of 1 to 256 characters"},
		{`"x"`, "the tenant configuration must be a JSON object"},
		{`null`, "the tenant configuration must be a JSON object"},
	}
	for _, c := range cases {
		_, err := ValidateTenantConfig(JSON(c.in))
		got := ""
		if err != nil {
			got = err.(*Error).Message
		}
		if got != c.wantErr {
			t.Errorf("%.60s: error %q, want %q", c.in, got, c.wantErr)
		}
	}
}

func TestMaskedTenantConfig(t *testing.T) {
	c := DefaultTenantConfig()
	if m := c.Masked(); m.TranscriptionAPIKey != nil || string(m.CustomActionsHeaders) != "{}" {
		t.Fatalf("nothing to mask: %v %s", m.TranscriptionAPIKey, m.CustomActionsHeaders)
	}
	key := "sk-secret"
	c.TranscriptionAPIKey = &key
	c.CustomActionsHeaders = JSON(`{"a": "x", "b": ["y", 1], "c": {"d": "z"}}`)
	m := c.Masked()
	if *m.TranscriptionAPIKey != MaskedSecret || string(m.CustomActionsHeaders) != `{"a":"********","b":["********",1],"c":{"d":"********"}}` {
		t.Fatalf("masked: %s %s", *m.TranscriptionAPIKey, m.CustomActionsHeaders)
	}
	if *c.TranscriptionAPIKey != key {
		t.Fatal("masking changed the original")
	}
}
