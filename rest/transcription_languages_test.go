package rest_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const (
	languagesPath       = "/config/api/v1/config/transcriptionLanguageSettings"
	systemLanguagesPath = "/config/api/v1/systemConfig/transcriptionLanguageSettings"
	msgMalformed        = "Malformed transcription language settings: "
)

// languageList is the 2.24 shape.
type languageList struct {
	Total    int `json:"total"`
	Embedded struct {
		Collection []map[string]any `json:"collection"`
	} `json:"_embedded"`
}

func readLanguages(t *testing.T, c *loupetest.Client, path string) languageList {
	t.Helper()
	r := c.Get(t, path).Status(http.StatusOK)
	sameKeys(t, "settings", r.Object(), []string{"total", "_embedded"})
	var l languageList
	r.JSON(&l)
	if l.Total != len(l.Embedded.Collection) {
		t.Fatalf("total %d, but %d entries", l.Total, len(l.Embedded.Collection))
	}
	return l
}

var languageCodeRE = regexp.MustCompile(`^[a-z]{2}-[A-Z]{2}$`)

func TestSystemTranscriptionLanguages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	user := a.User(t, "ed@a.test", nil, false)
	sys := readLanguages(t, user, systemLanguagesPath)
	if sys.Total < 20 {
		t.Fatalf("the system offers %d languages", sys.Total)
	}
	for _, e := range sys.Embedded.Collection {
		sameKeys(t, "entry", e, []string{"languageCode", "transcriptionService", "label"})
		if !languageCodeRE.MatchString(e["languageCode"].(string)) || e["transcriptionService"] != "externalSpeechToText" || e["label"] == "" {
			t.Fatalf("system entry %v", e)
		}
	}
	// A tenant that wrote none uses the system's, for every user.
	sameJSON(t, "tenant default", readLanguages(t, user, languagesPath), sys)
	sameJSON(t, "tenant default for the admin", readLanguages(t, a, languagesPath), sys)
	api.Anonymous().Get(t, systemLanguagesPath).Envelope(http.StatusUnauthorized, "")
}

func TestSetTranscriptionLanguages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	user := a.User(t, "ed@a.test", nil, false)
	sys := readLanguages(t, a, systemLanguagesPath)

	entries := []any{
		map[string]any{"languageCode": "de-CH", "transcriptionService": "externalSpeechToText", "label": "Swiss German"},
		map[string]any{"languageCode": "en-US", "transcriptionService": "externalSpeechToText", "label": "English"},
		map[string]any{"languageCode": "en-US", "transcriptionService": "inHouse", "label": "English (in-house)"},
	}
	want := map[string]any{"total": 3, "_embedded": map[string]any{"collection": entries}}
	got := a.Post(t, languagesPath, want).Status(http.StatusOK).Object()
	sameJSON(t, "answer", got, want)
	sameJSON(t, "read by a user", readLanguages(t, user, languagesPath), want)
	// The system's list and other tenants stay as they were.
	sameJSON(t, "system after", readLanguages(t, a, systemLanguagesPath), sys)
	sameJSON(t, "other tenant", readLanguages(t, b, languagesPath), sys)

	// A bare array of entries is accepted too, and replaces the list.
	got = a.Post(t, languagesPath, entries[:1]).Status(http.StatusOK).Object()
	sameJSON(t, "bare array", got, map[string]any{"total": 1, "_embedded": map[string]any{"collection": entries[:1]}})
	// An empty list offers no language.
	empty := map[string]any{"total": 0, "_embedded": map[string]any{"collection": []any{}}}
	sameJSON(t, "empty", a.Post(t, languagesPath, map[string]any{"_embedded": map[string]any{"collection": []any{}}}).
		Status(http.StatusOK).Object(), empty)
	sameJSON(t, "read empty", readLanguages(t, a, languagesPath), empty)

	// Only admins write.
	user.Post(t, languagesPath, want).Envelope(http.StatusForbidden, "Only administrators may change the tenant configuration.")
	sameJSON(t, "after a refused write", readLanguages(t, a, languagesPath), empty)
}

func TestMalformedTranscriptionLanguages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	good := []any{map[string]any{"languageCode": "fr-FR", "transcriptionService": "externalSpeechToText", "label": "French"}}
	a.Post(t, languagesPath, good).Status(http.StatusOK)

	entry := func(code, service, label string) map[string]any {
		return map[string]any{"languageCode": code, "transcriptionService": service, "label": label}
	}
	for _, c := range []struct {
		name string
		body string
		dev  string // developerMessage, when it matters
	}{
		{"language code of another form", mustJSON(t, []any{entry("english", "externalSpeechToText", "English")}),
			`collection[0].languageCode must have the form xx-XX (en-US), got "english"`},
		{"lower-case region", mustJSON(t, []any{entry("en-us", "externalSpeechToText", "English")}), ""},
		{"region only", mustJSON(t, []any{entry("US", "externalSpeechToText", "English")}), ""},
		{"no label", mustJSON(t, []any{map[string]any{"languageCode": "en-US", "transcriptionService": "externalSpeechToText"}}), ""},
		{"blank label", mustJSON(t, []any{entry("en-US", "externalSpeechToText", "  ")}), ""},
		{"bad service", mustJSON(t, []any{entry("en-US", "speech to text!", "English")}), ""},
		{"twice", mustJSON(t, []any{entry("en-US", "s", "A"), entry("en-US", "s", "B")}), ""},
		{"unknown entry key", mustJSON(t, []any{map[string]any{"languageCode": "en-US", "transcriptionService": "s",
			"label": "x", "colour": "red"}}), ""},
		{"entry not an object", `{"_embedded": {"collection": ["en-US"]}}`, ""},
		{"no collection", `{"total": 1, "_embedded": {}}`, ""},
		{"wrong total", mustJSON(t, map[string]any{"total": 2, "_embedded": map[string]any{"collection": good}}),
			"total must count the 1 entries of the collection"},
		{"unknown top key", `{"items": []}`, "items: unknown field"},
		{"a string", `"en-US"`, ""},
		{"not JSON", `{"_embedded": {"collection": [`, ""},
		{"empty", ``, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := a.Post(t, languagesPath, c.body).Envelope(http.StatusBadRequest, msgMalformed+c.body)
			if c.dev != "" && env["developerMessage"] != c.dev {
				t.Fatalf("developerMessage %q, want %q", env["developerMessage"], c.dev)
			}
		})
	}
	sameJSON(t, "after refused writes", readLanguages(t, a, languagesPath),
		map[string]any{"total": 1, "_embedded": map[string]any{"collection": good}})

	// A long body is quoted up to 1024 bytes.
	long := mustJSON(t, []any{entry("english", "s", strings.Repeat("x", 3000))})
	env := a.Post(t, languagesPath, long).Envelope(http.StatusBadRequest, "")
	if msg := env["message"].(string); msg != msgMalformed+long[:1024]+"…" {
		t.Fatalf("long body quoted as %q", msg)
	}
}
