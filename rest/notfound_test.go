package rest_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// Paths the spec lists as absent (section 7), wrong methods on served paths,
// and paths nobody wrote all answer 404 with the envelope, not 405.
func TestUnknownPathsAndMethodsAnswer404(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	cases := []struct{ method, path string }{
		{"GET", "/api/v1/generatedMediaLocations"},
		{"GET", "/api/v1/storage/locations"},
		{"GET", "/config/api/v1/configs"},
		{"GET", "/api/v1/bookmarks"},
		{"GET", "/api/v1/folders"},
		{"POST", "/api/v1/folders"},
		{"GET", "/api/v1/transcription/languages"},
		{"GET", "/api/v1/users/me"},
		{"PUT", "/auth/api/v1/keys/k1"},
		{"GET", "/api/v1/presets"},
		{"GET", "/api/v1/items/" + id + "/uploadLock"},
		{"GET", "/api/v1/system/health"},
		{"GET", "/api/v1/tenantIds"},
		{"GET", "/api/v1/metadata/forms"},
		{"GET", "/nothing/here"},
		// Wrong methods on served paths.
		{"PATCH", "/api/v1/items/" + id},
		{"PUT", "/api/v1/items"},
		{"GET", "/api/v1/items/" + id + "/undelete"},
		{"POST", "/auxiliary/api/v1/itemAnalyticsSearch"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			a.Do(t, c.method, c.path, nil).Envelope(404, "The server can not find requested resource.")
			api.Anonymous().Do(t, c.method, c.path, nil).Envelope(404, "The server can not find requested resource.")
		})
	}
}
