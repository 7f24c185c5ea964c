package store

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
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
		_, err := validateTenantConfig(loupe.JSON(c.in))
		got := ""
		if err != nil {
			got = err.(*loupe.Error).Message
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
	c.CustomActionsHeaders = loupe.JSON(`{"a": "x", "b": ["y", 1], "c": {"d": "z"}}`)
	m := c.Masked()
	if *m.TranscriptionAPIKey != MaskedSecret || string(m.CustomActionsHeaders) != `{"a":"********","b":["********",1],"c":{"d":"********"}}` {
		t.Fatalf("masked: %s %s", *m.TranscriptionAPIKey, m.CustomActionsHeaders)
	}
	if *c.TranscriptionAPIKey != key {
		t.Fatal("masking changed the original")
	}
}

func TestMeteringPeriod(t *testing.T) {
	now := time.Date(2026, 5, 17, 13, 45, 0, 0, time.UTC)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	ms := func(t time.Time) *int64 { v := t.UnixMilli(); return &v }
	cases := []struct {
		name        string
		start, end  *int64
		first, last time.Time
		wantErr     string
	}{
		{"defaults: this month to today", nil, nil, day(5, 1), day(5, 17), ""},
		{"end only: its month", nil, ms(day(3, 9)), day(3, 1), day(3, 9), ""},
		{"cut to days", ms(day(4, 2).Add(5 * time.Hour)), ms(day(4, 3).Add(23 * time.Hour)), day(4, 2), day(4, 3), ""},
		{"one day", ms(day(4, 2)), ms(day(4, 2)), day(4, 2), day(4, 2), ""},
		{"366 days", ms(day(1, 1)), ms(day(1, 1).AddDate(0, 0, 365)), day(1, 1), day(1, 1).AddDate(0, 0, 365), ""},
		{"367 days", ms(day(1, 1)), ms(day(1, 1).AddDate(0, 0, 366)), time.Time{}, time.Time{}, "the period spans 367 days; at most 366"},
		{"backwards", ms(day(4, 3)), ms(day(4, 2)), time.Time{}, time.Time{}, "endDay must not be before startDay"},
		{"start after the default end", ms(day(6, 1)), nil, time.Time{}, time.Time{}, "endDay must not be before startDay"},
	}
	for _, c := range cases {
		first, last, err := MeteringPeriod(c.start, c.end, now)
		got := ""
		if err != nil {
			got = err.(*loupe.Error).Message
		}
		if got != c.wantErr || c.wantErr == "" && (!first.Equal(c.first) || !last.Equal(c.last)) {
			t.Errorf("%s: %v..%v %q, want %v..%v %q", c.name, first, last, got, c.first, c.last, c.wantErr)
		}
	}
}
