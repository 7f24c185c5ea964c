package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const settingsPath = "/auxiliary/api/v1/userSettings"

// The keys of the read and update responses of spec 2.18.
var (
	settingsReadKeys = strings.Fields(`bookmarks bookmarksFolders defaultFilters dismissedNotifications
lastSeenChangelogId showRenameSubclipDialog showSequenceParts language theme subtitlePreference showPopups pinnedItems`)
	settingsUpdateKeys = strings.Fields(`bookmarks bookmarksFolders defaultFilters dismissedNotifications
lastSeenChangelogId showRenameSubclipDialog workFolderId`)
)

// defaultSettings is what a user who never wrote settings reads.
var defaultSettings = map[string]any{
	"bookmarks": []any{}, "bookmarksFolders": []any{}, "defaultFilters": []any{},
	"dismissedNotifications": map[string]any{}, "lastSeenChangelogId": "",
	"showRenameSubclipDialog": true, "showSequenceParts": false, "language": "en", "theme": "light",
	"subtitlePreference": "off", "showPopups": true, "pinnedItems": []any{},
}

func readSettings(t *testing.T, c *loupetest.Client) map[string]any {
	t.Helper()
	got := c.Get(t, settingsPath).Status(http.StatusOK).Object()
	sameKeys(t, "user settings", got, settingsReadKeys)
	return got
}

// with returns a copy of m with the changes applied.
func with(m map[string]any, changes map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var gv, wv any
	json.Unmarshal(g, &gv)
	json.Unmarshal(w, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func TestUserSettingsDefaults(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	sameJSON(t, "defaults", readSettings(t, a), defaultSettings)
	if n := api.Count(t, `SELECT count(*) FROM user_settings`); n != 0 {
		t.Fatalf("reading wrote %d rows", n)
	}
}

func TestUpdateUserSettingsAnswersTheUpdateRecord(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	folder := a.CreateItem(t, map[string]any{"title": "Work", "itemType": "folder"})
	got := a.Put(t, settingsPath, map[string]any{
		"theme": "dark", "lastSeenChangelogId": "cl-7", "workFolderId": folder,
		"bookmarks": []any{map[string]any{"path": "/x"}},
	}).Status(http.StatusOK).Object()
	sameKeys(t, "update record", got, settingsUpdateKeys)
	sameJSON(t, "update record", got, map[string]any{
		"bookmarks": []any{map[string]any{"path": "/x"}}, "bookmarksFolders": []any{}, "defaultFilters": []any{},
		"dismissedNotifications": map[string]any{}, "lastSeenChangelogId": "cl-7",
		"showRenameSubclipDialog": true, "workFolderId": folder,
	})
	sameJSON(t, "read after update", readSettings(t, a), with(defaultSettings, map[string]any{
		"theme": "dark", "lastSeenChangelogId": "cl-7", "bookmarks": []any{map[string]any{"path": "/x"}},
	}))

	// An empty update changes nothing and answers the settings.
	got = a.Put(t, settingsPath, map[string]any{}).Status(http.StatusOK).Object()
	if got["workFolderId"] != folder || got["lastSeenChangelogId"] != "cl-7" {
		t.Fatalf("empty update answered %v", got)
	}
	// workFolderId "" clears it; a work folder in the recycle bin reads as none.
	if got := a.Put(t, settingsPath, map[string]any{"workFolderId": ""}).Status(http.StatusOK).Object(); got["workFolderId"] != "" {
		t.Fatalf("cleared workFolderId = %v", got["workFolderId"])
	}
	a.Put(t, settingsPath, map[string]any{"workFolderId": strings.ToUpper(folder)}).Status(http.StatusOK)
	a.Delete(t, "/api/v1/items/"+folder).Status(http.StatusOK)
	if got := a.Put(t, settingsPath, map[string]any{"theme": "dark"}).Status(http.StatusOK).Object(); got["workFolderId"] != "" {
		t.Fatalf("workFolderId of a deleted folder = %v, want empty", got["workFolderId"])
	}
}

func TestUpdateUserSettingsMerges(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	steps := []struct {
		name string
		put  map[string]any
		want map[string]any // changes from the defaults after the step
	}{
		{"first key", map[string]any{"theme": "dark"},
			map[string]any{"theme": "dark"}},
		{"second key keeps the first", map[string]any{"showPopups": false, "language": "de"},
			map[string]any{"theme": "dark", "showPopups": false, "language": "de"}},
		{"dismissed notifications", map[string]any{"dismissedNotifications": map[string]any{"n1": true, "n2": true}},
			map[string]any{"theme": "dark", "showPopups": false, "language": "de",
				"dismissedNotifications": map[string]any{"n1": true, "n2": true}}},
		{"dismissed notifications merge key by key", map[string]any{"dismissedNotifications": map[string]any{"n2": false, "n3": true}},
			map[string]any{"theme": "dark", "showPopups": false, "language": "de",
				"dismissedNotifications": map[string]any{"n1": true, "n2": false, "n3": true}}},
		{"array", map[string]any{"pinnedItems": []any{"a", "b"}, "defaultFilters": []any{map[string]any{"f": 1}}},
			map[string]any{"theme": "dark", "showPopups": false, "language": "de",
				"dismissedNotifications": map[string]any{"n1": true, "n2": false, "n3": true},
				"pinnedItems":            []any{"a", "b"}, "defaultFilters": []any{map[string]any{"f": 1}}}},
		{"arrays replace", map[string]any{"pinnedItems": []any{"c"}, "theme": "light"},
			map[string]any{"theme": "light", "showPopups": false, "language": "de",
				"dismissedNotifications": map[string]any{"n1": true, "n2": false, "n3": true},
				"pinnedItems":            []any{"c"}, "defaultFilters": []any{map[string]any{"f": 1}}}},
		{"every key", map[string]any{"bookmarks": []any{1}, "bookmarksFolders": []any{2}, "lastSeenChangelogId": "x",
			"showRenameSubclipDialog": false, "showSequenceParts": true, "subtitlePreference": "en"},
			map[string]any{"theme": "light", "showPopups": false, "language": "de",
				"dismissedNotifications": map[string]any{"n1": true, "n2": false, "n3": true},
				"pinnedItems":            []any{"c"}, "defaultFilters": []any{map[string]any{"f": 1}},
				"bookmarks": []any{1}, "bookmarksFolders": []any{2}, "lastSeenChangelogId": "x",
				"showRenameSubclipDialog": false, "showSequenceParts": true, "subtitlePreference": "en"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			want := with(defaultSettings, s.want)
			got := a.Put(t, settingsPath, s.put).Status(http.StatusOK).Object()
			wantUpdate := map[string]any{"workFolderId": ""}
			for _, k := range settingsUpdateKeys {
				if k != "workFolderId" {
					wantUpdate[k] = want[k]
				}
			}
			sameJSON(t, "update record", got, wantUpdate)
			sameJSON(t, "read", readSettings(t, a), want)
		})
	}
}

func TestUpdateUserSettingsRejectsBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	foreignFolder := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "folder"})
	video := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	binned := a.CreateItem(t, map[string]any{"title": "Old", "itemType": "folder"})
	a.Delete(t, "/api/v1/items/"+binned).Status(http.StatusOK)

	a.Put(t, settingsPath, map[string]any{"theme": "dark", "dismissedNotifications": map[string]any{"n": true},
		"bookmarks": []any{strings.Repeat("b", 200<<10)}}).Status(http.StatusOK)
	before := readSettings(t, a)
	var stored string
	api.DB.Get(&stored, `SELECT settings::text FROM user_settings`)

	many := make([]any, 1001)
	for i := range many {
		many[i] = i
	}
	big := make([]any, 1000)
	for i := range big {
		big[i] = strings.Repeat("x", 300)
	}
	long := strings.Repeat("é", 257)
	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"unknown key", map[string]any{"theme": "dark", "x": 1}, `unknown setting "x"`},
		{"boolean as string", map[string]any{"showPopups": "yes"}, "setting showPopups must be a boolean"},
		{"boolean as null", map[string]any{"showSequenceParts": nil}, "setting showSequenceParts must be a boolean"},
		{"string as number", map[string]any{"theme": 5}, "setting theme must be a string"},
		{"string as null", map[string]any{"language": nil}, "setting language must be a string"},
		{"string too long", map[string]any{"subtitlePreference": long}, "setting subtitlePreference is longer than 256 characters"},
		{"array as object", map[string]any{"bookmarks": map[string]any{}}, "setting bookmarks must be an array"},
		{"array as null", map[string]any{"pinnedItems": nil}, "setting pinnedItems must be an array"},
		{"array too long", map[string]any{"defaultFilters": many}, "defaultFilters: an array of 1001 elements, over the limit of 1000"},
		{"notifications as array", map[string]any{"dismissedNotifications": []any{"n"}},
			"setting dismissedNotifications must be an object of booleans"},
		{"notification not boolean", map[string]any{"dismissedNotifications": map[string]any{"n": "yes"}},
			"setting dismissedNotifications.n must be a boolean"},
		{"notification null", map[string]any{"dismissedNotifications": map[string]any{"n": nil}},
			"setting dismissedNotifications.n must be a boolean"},
		{"work folder not an id", map[string]any{"workFolderId": "nope"}, "setting workFolderId: folder nope does not exist"},
		{"work folder missing", map[string]any{"workFolderId": "0190a0a0-0000-7000-8000-000000000000"},
			"setting workFolderId: folder 0190a0a0-0000-7000-8000-000000000000 does not exist"},
		{"work folder of another tenant", map[string]any{"workFolderId": foreignFolder},
			"setting workFolderId: folder " + foreignFolder + " does not exist"},
		{"work folder not a folder", map[string]any{"workFolderId": video},
			"setting workFolderId: folder " + video + " does not exist"},
		{"work folder deleted", map[string]any{"workFolderId": binned},
			"setting workFolderId: folder " + binned + " does not exist"},
		{"work folder as number", map[string]any{"workFolderId": 1}, "setting workFolderId must be a string"},
		{"request too large", map[string]any{"pinnedItems": big}, "a JSON value of 303017 bytes, over the limit of 262144"},
		{"document too large after merge", map[string]any{"pinnedItems": []any{strings.Repeat("p", 60<<10)}},
			"user settings would be larger than 262144 bytes"},
		{"body an array", []any{}, "the request body must be a JSON object"},
		{"body not JSON", "{", "The server could not understand the request due to invalid syntax."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Put(t, settingsPath, c.body).Envelope(http.StatusBadRequest, c.message)
			sameJSON(t, "settings after a refused write", readSettings(t, a), before)
			var now string
			api.DB.Get(&now, `SELECT settings::text FROM user_settings`)
			if now != stored {
				t.Fatalf("stored settings changed:\n got %.200s\nwant %.200s", now, stored)
			}
		})
	}
}

func TestUserSettingsArePerUser(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	colleague := a.User(t, "colleague@a.test", nil, false)
	other := api.Tenant(t, "b")

	a.Put(t, settingsPath, map[string]any{"theme": "dark", "dismissedNotifications": map[string]any{"n": true}}).
		Status(http.StatusOK)
	colleague.Put(t, settingsPath, map[string]any{"language": "fr"}).Status(http.StatusOK)

	for _, c := range []struct {
		name   string
		client *loupetest.Client
		want   map[string]any
	}{
		{"writer", a, with(defaultSettings, map[string]any{"theme": "dark", "dismissedNotifications": map[string]any{"n": true}})},
		{"user of the same tenant", colleague, with(defaultSettings, map[string]any{"language": "fr"})},
		{"user of another tenant", other, defaultSettings},
	} {
		t.Run(c.name, func(t *testing.T) {
			sameJSON(t, "settings", readSettings(t, c.client), c.want)
		})
	}
}

// Concurrent writes of different keys all land: the merge happens under the
// row's lock, including the first write that creates the row.
func TestConcurrentUserSettingsWritesKeepEveryKey(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	puts := []map[string]any{
		{"theme": "dark"}, {"language": "de"}, {"showPopups": false}, {"showSequenceParts": true},
		{"lastSeenChangelogId": "c9"}, {"subtitlePreference": "de"}, {"pinnedItems": []any{"p"}},
		{"bookmarks": []any{"b"}}, {"bookmarksFolders": []any{"f"}}, {"defaultFilters": []any{"d"}},
		{"showRenameSubclipDialog": false},
	}
	want := with(defaultSettings, nil)
	notes := map[string]any{}
	for i := range 20 {
		n := fmt.Sprintf("n%02d", i)
		puts = append(puts, map[string]any{"dismissedNotifications": map[string]any{n: true}})
		notes[n] = true
	}
	for _, p := range puts {
		for k, v := range p {
			if k != "dismissedNotifications" {
				want[k] = v
			}
		}
	}
	want["dismissedNotifications"] = notes

	var wg sync.WaitGroup
	codes := make([]int, len(puts))
	for i, p := range puts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = a.Put(t, settingsPath, p).Code
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("PUT %v: status %d", puts[i], c)
		}
	}
	sameJSON(t, "settings after concurrent writes", readSettings(t, a), want)
}

func TestUserStatus(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)

	got := u.Get(t, "/auth/api/v1/user/status").Status(http.StatusOK).Object()
	sameKeys(t, "user status", got, []string{"isDeactivated"})
	if got["isDeactivated"] != false {
		t.Fatalf("status = %v", got)
	}

	// The answer is read from the users row: a deactivated user's key no
	// longer authenticates, so it never gets to read true.
	if _, err := api.DB.Exec(`UPDATE users SET deactivated = true WHERE tenant_id = $1 AND id = $2`, u.TenantID, u.UserID); err != nil {
		t.Fatal(err)
	}
	u.Get(t, "/auth/api/v1/user/status").Envelope(http.StatusUnauthorized,
		"The client is not authenticated to get the requested resource.")
	if got := a.Get(t, "/auth/api/v1/user/status").Status(http.StatusOK).Object(); got["isDeactivated"] != false {
		t.Fatalf("another user's status = %v", got)
	}
	api.Anonymous().Get(t, "/auth/api/v1/user/status").Status(http.StatusUnauthorized)
	api.Anonymous().Get(t, settingsPath).Status(http.StatusUnauthorized)
	api.Anonymous().Put(t, settingsPath, map[string]any{}).Status(http.StatusUnauthorized)
}
