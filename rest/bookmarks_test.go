package rest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of spec 2.11, optional ones included (null when unset).
var bmKeys = strings.Fields(`id title path icon isFilterBookmark parentFolder visibleToGroups sortKey`)

var bmFolderKeys = strings.Fields(`id title parentFolder sortKey`)

const (
	bmMsgMalformed      = "Malformed request"
	bmMsgFolderTreePath = "folderTreePath should not be provided in API version 2 or later"
	bmMsgAdminOnly      = "Only administrators may change system bookmarks and bookmark folders."
	bmPath              = "/config/api/v1/bookmarks"
	bmFoldersPath       = "/config/api/v1/bookmarkFolders"
)

// bmBody is a valid create body with title t, changed by the extra keys.
func bmBody(title string, extra map[string]any) map[string]any {
	b := map[string]any{"title": title, "path": "/search?q=" + title, "icon": "star"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// bmCreate posts a bookmark as c and returns the answer.
func bmCreate(t *testing.T, c *loupetest.Client, body map[string]any) map[string]any {
	t.Helper()
	got := c.Post(t, bmPath, body).Status(http.StatusOK).Object()
	sameKeys(t, "bookmark", got, bmKeys)
	return got
}

// bmList is the GET list as c sees it.
func bmList(t *testing.T, c *loupetest.Client) []map[string]any {
	t.Helper()
	var out []map[string]any
	c.Get(t, bmPath).Status(http.StatusOK).JSON(&out)
	for _, b := range out {
		sameKeys(t, "listed bookmark", b, bmKeys)
	}
	return out
}

// bmTitles are the bmTitles of a list, in order.
func bmTitles(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, b := range list {
		out[i], _ = b["title"].(string)
	}
	return out
}

// bmSetFolders writes the bookmark folders as admin c.
func bmSetFolders(t *testing.T, c *loupetest.Client, folders ...map[string]any) []map[string]any {
	t.Helper()
	var out struct {
		Folders []map[string]any `json:"folders"`
	}
	c.Put(t, bmFoldersPath, map[string]any{"folders": folders}).Status(http.StatusOK).JSON(&out)
	return out.Folders
}

func TestCreateBookmarkAnswersTheBookmark(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "f1", "title": "Searches"})

	minimal := bmCreate(t, a, map[string]any{"title": "Recent", "path": "/items?sort=recent", "icon": "clock"})
	if minimal["title"] != "Recent" || minimal["path"] != "/items?sort=recent" || minimal["icon"] != "clock" {
		t.Fatalf("bookmark = %v", minimal)
	}
	for _, k := range []string{"isFilterBookmark", "parentFolder", "visibleToGroups", "sortKey"} {
		if minimal[k] != nil {
			t.Fatalf("%s = %v, want null when not given", k, minimal[k])
		}
	}
	id, _ := minimal["id"].(string)
	if len(id) != 36 || id[14] != '7' {
		t.Fatalf("id = %q, want a UUIDv7", id)
	}

	full := bmCreate(t, a, bmBody("Interviews", map[string]any{
		"isFilterBookmark": true, "parentFolder": "f1", "visibleToGroups": []string{"g1"}, "sortKey": "a",
		"id": "ignored-on-create",
	}))
	if full["isFilterBookmark"] != true || full["parentFolder"] != "f1" || full["sortKey"] != "a" ||
		!slices.Equal(bmStrings(full["visibleToGroups"]), []string{"g1"}) || full["id"] == "ignored-on-create" {
		t.Fatalf("bookmark = %v", full)
	}

	// What a read answers equals what the create answered.
	for _, want := range []map[string]any{minimal, full} {
		got := a.Get(t, bmPath+"/"+want["id"].(string)).Status(http.StatusOK).Object()
		sameKeys(t, "bookmark", got, bmKeys)
		for _, k := range bmKeys {
			if !bmEqual(got[k], want[k]) {
				t.Fatalf("GET %s = %v, want %v", k, got[k], want[k])
			}
		}
	}
	// An empty group list is kept (and means everyone).
	open := bmCreate(t, a, bmBody("Open", map[string]any{"visibleToGroups": []string{}}))
	if g, ok := open["visibleToGroups"].([]any); !ok || len(g) != 0 {
		t.Fatalf("visibleToGroups = %#v, want []", open["visibleToGroups"])
	}
}

func TestCreateBookmarkRejectsBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	bmSetFolders(t, b, map[string]any{"id": "theirs", "title": "B's"})
	bmCreate(t, a, bmBody("Existing", nil))
	before := api.Count(t, `SELECT count(*) FROM bookmarks`)

	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"folderTreePath", bmBody("x", map[string]any{"folderTreePath": "/a/b"}), bmMsgFolderTreePath},
		{"folderTreePath null", bmBody("x", map[string]any{"folderTreePath": nil}), bmMsgFolderTreePath},
		{"folderTreePath alone", map[string]any{"folderTreePath": "/a"}, bmMsgFolderTreePath},
		// Input is read by its types first (graph/scalar): a number where a
		// string belongs is that mistake, whatever the field.
		{"folderTreePath number", bmBody("x", map[string]any{"folderTreePath": 3}), "folderTreePath: must be a string"},
		{"no title", map[string]any{"path": "/a", "icon": "i"}, "title is required"},
		{"blank title", bmBody(" ", nil), "title is required"},
		{"no path", map[string]any{"title": "t", "icon": "i"}, "path is required"},
		{"no icon", map[string]any{"title": "t", "path": "/a"}, "icon is required"},
		{"relative path", bmBody("x", map[string]any{"path": "items"}), "path must be an application route starting with a single /"},
		{"other site", bmBody("x", map[string]any{"path": "//evil.test/x"}), "path must be an application route starting with a single /"},
		{"long title", bmBody(strings.Repeat("t", 257), nil), "title: at most 256 characters"},
		{"long path", bmBody("x", map[string]any{"path": "/" + strings.Repeat("p", 2048)}), "path: at most 2048 characters"},
		{"long icon", bmBody("x", map[string]any{"icon": strings.Repeat("i", 257)}), "icon: at most 256 characters"},
		{"unknown folder", bmBody("x", map[string]any{"parentFolder": "nope"}), `parentFolder "nope" does not exist`},
		{"other tenant's folder", bmBody("x", map[string]any{"parentFolder": "theirs"}), `parentFolder "theirs" does not exist`},
		{"unknown key", bmBody("x", map[string]any{"colour": "red"}), ""},
		{"wrong type", bmBody("x", map[string]any{"isFilterBookmark": "yes"}), ""},
		{"number for a string", bmBody("x", map[string]any{"title": 5}), "title: must be a string"},
		{"string for a boolean", bmBody("x", map[string]any{"isFilterBookmark": "true"}), ""},
		{"string for a list", bmBody("x", map[string]any{"visibleToGroups": "g"}), "visibleToGroups: must be an array of strings"},
		{"empty group", bmBody("x", map[string]any{"visibleToGroups": []string{""}}),
			"visibleToGroups: entries are group ids or <tenant_id>:<group_name>, 1 to 256 characters"},
		{"array body", []any{bmBody("x", nil)}, "the request body must be a JSON object"},
		{"not JSON", "{title", msgInvalidSyntax},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Post(t, bmPath, c.body).Envelope(http.StatusBadRequest, c.message)
		})
	}
	if got := api.Count(t, `SELECT count(*) FROM bookmarks`); got != before {
		t.Fatalf("%d bookmarks after refused creates, want %d", got, before)
	}
}

func TestBookmarksAreOrderedBySortKeyThenTitle(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for _, b := range []map[string]any{
		bmBody("zeta", nil),
		bmBody("beta", map[string]any{"sortKey": "2"}),
		bmBody("alpha", nil),
		bmBody("omega", map[string]any{"sortKey": "1"}),
		bmBody("gamma", map[string]any{"sortKey": "2"}),
	} {
		bmCreate(t, a, b)
	}
	if got, want := bmTitles(bmList(t, a)), []string{"omega", "beta", "gamma", "alpha", "zeta"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestBookmarksAreVisibleByGroup(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "ed@a.test", []string{"editors"}, false)
	viewer := a.User(t, "vi@a.test", []string{"viewers", "guests"}, false)
	plain := a.User(t, "pl@a.test", nil, false)
	var editorsID string
	if err := api.DB.Get(&editorsID, `SELECT id FROM groups WHERE tenant_id = $1 AND name = 'editors'`, a.TenantID); err != nil {
		t.Fatal(err)
	}

	ids := map[string]string{}
	for _, b := range []map[string]any{
		bmBody("everyone", nil),
		bmBody("everyone-empty", map[string]any{"visibleToGroups": []string{}}),
		bmBody("editors-by-name", map[string]any{"visibleToGroups": []string{a.TenantID + ":editors"}}),
		// Written in upper case: ids compare as UUIDs, not as text.
		bmBody("editors-by-id", map[string]any{"visibleToGroups": []string{strings.ToUpper(editorsID)}}),
		bmBody("viewers-or-editors", map[string]any{"visibleToGroups": []string{a.TenantID + ":viewers", editorsID}}),
		bmBody("nobody", map[string]any{"visibleToGroups": []string{a.TenantID + ":admins-only"}}),
		// A group name without the tenant prefix names no group.
		bmBody("bare-name", map[string]any{"visibleToGroups": []string{"editors"}}),
	} {
		ids[b["title"].(string)] = bmCreate(t, a, b)["id"].(string)
	}

	cases := []struct {
		name string
		c    *loupetest.Client
		want []string
	}{
		{"admin sees all", a, []string{"bare-name", "editors-by-id", "editors-by-name", "everyone", "everyone-empty", "nobody", "viewers-or-editors"}},
		{"editor", editor, []string{"editors-by-id", "editors-by-name", "everyone", "everyone-empty", "viewers-or-editors"}},
		{"viewer", viewer, []string{"everyone", "everyone-empty", "viewers-or-editors"}},
		{"no groups", plain, []string{"everyone", "everyone-empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := bmTitles(bmList(t, c.c)); !slices.Equal(got, c.want) {
				t.Fatalf("visible = %v, want %v", got, c.want)
			}
			for title, id := range ids {
				r := c.c.Get(t, bmPath+"/"+id)
				if slices.Contains(c.want, title) {
					if got := r.Status(http.StatusOK).Object(); got["title"] != title {
						t.Fatalf("GET %s = %v", title, got)
					}
				} else {
					r.Envelope(http.StatusNotFound, notFound)
				}
			}
		})
	}
}

func TestBookmarkWritesAreForAdminsOnly(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "f1", "title": "Folder"})
	id := bmCreate(t, a, bmBody("Kept", map[string]any{"parentFolder": "f1"}))["id"].(string)
	editor := a.User(t, "ed@a.test", []string{"editors"}, false)
	other := a.User(t, "admin2@a.test", nil, true)
	beforeList := bmList(t, a)
	beforeFolders := a.Get(t, bmFoldersPath).Status(http.StatusOK).Object()

	cases := []struct {
		name, method, path string
		body               any
	}{
		{"create", "POST", bmPath, bmBody("x", nil)},
		{"replace all", "PUT", bmPath, []any{bmBody("x", nil)}},
		{"update", "PUT", bmPath + "/" + id, map[string]any{"title": "changed"}},
		{"update missing", "PUT", bmPath + "/" + absentID, map[string]any{"title": "changed"}},
		{"delete", "DELETE", bmPath + "/" + id, nil},
		{"folders", "PUT", bmFoldersPath, map[string]any{"folders": []any{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			editor.Do(t, c.method, c.path, c.body).Envelope(http.StatusForbidden, bmMsgAdminOnly)
		})
	}
	if got := bmList(t, a); !bmEqual(got, beforeList) {
		t.Fatalf("bookmarks after refused writes = %v, want %v", got, beforeList)
	}
	if got := a.Get(t, bmFoldersPath).Status(http.StatusOK).Object(); !bmEqual(got, beforeFolders) {
		t.Fatalf("folders after refused writes = %v, want %v", got, beforeFolders)
	}
	// Readers read; any admin of the tenant writes.
	editor.Get(t, bmPath+"/"+id).Status(http.StatusOK)
	editor.Get(t, bmFoldersPath).Status(http.StatusOK)
	other.Put(t, bmPath+"/"+id, map[string]any{"title": "by another admin"}).Status(http.StatusOK)
}

func TestBookmarksOfAnotherTenantAreNotFound(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	bmSetFolders(t, b, map[string]any{"id": "f1", "title": "B's folder"})
	theirs := bmCreate(t, b, bmBody("B's", map[string]any{"parentFolder": "f1"}))
	id := theirs["id"].(string)
	bmCreate(t, a, bmBody("A's", nil))

	cases := []struct {
		name, method string
		body         any
	}{
		{"get", "GET", nil},
		{"update", "PUT", map[string]any{"title": "taken over"}},
		{"delete", "DELETE", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Do(t, c.method, bmPath+"/"+id, c.body).Envelope(http.StatusNotFound, notFound)
		})
	}
	if got := bmTitles(bmList(t, a)); !slices.Equal(got, []string{"A's"}) {
		t.Fatalf("a lists %v", got)
	}
	if got := a.Get(t, bmFoldersPath).Object(); len(got["folders"].([]any)) != 0 {
		t.Fatalf("a's folders = %v", got)
	}
	// Replacing all of a's bookmarks, even naming b's id, leaves b's alone.
	a.Put(t, bmPath, []any{bmBody("A's again", map[string]any{"id": id})}).Status(http.StatusOK)
	a.Put(t, bmFoldersPath, map[string]any{"folders": []any{}}).Status(http.StatusOK)
	got := b.Get(t, bmPath+"/"+id).Status(http.StatusOK).Object()
	if !bmEqual(got, theirs) {
		t.Fatalf("b's bookmark = %v, want %v", got, theirs)
	}
	if got := bmTitles(bmList(t, b)); !slices.Equal(got, []string{"B's"}) {
		t.Fatalf("b lists %v", got)
	}
}

func TestReplaceBookmarks(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "f1", "title": "Folder"})
	kept := bmCreate(t, a, bmBody("old kept", nil))["id"].(string)
	gone := bmCreate(t, a, bmBody("old gone", nil))["id"].(string)
	const given = "01a20242-9dca-771b-bd4e-ca31c13a56ed"

	var got []map[string]any
	a.Put(t, bmPath, []any{
		bmBody("z kept", map[string]any{"id": kept, "sortKey": "1"}),
		bmBody("y new", map[string]any{"parentFolder": "f1", "isFilterBookmark": false}),
		bmBody("x bad id", map[string]any{"id": "not-a-uuid", "visibleToGroups": []string{"g"}}),
		bmBody("w given", map[string]any{"id": strings.ToUpper(given)}),
	}).Status(http.StatusOK).JSON(&got)

	// The answer keeps the order of the body.
	if ts := bmTitles(got); !slices.Equal(ts, []string{"z kept", "y new", "x bad id", "w given"}) {
		t.Fatalf("answer bmTitles = %v", ts)
	}
	for _, b := range got {
		sameKeys(t, "replaced bookmark", b, bmKeys)
	}
	if got[0]["id"] != kept || got[0]["sortKey"] != "1" || got[3]["id"] != given {
		t.Fatalf("ids not kept: %v", got)
	}
	if id, _ := got[2]["id"].(string); len(id) != 36 || id == "not-a-uuid" {
		t.Fatalf("id of an element with a bad id = %v, want a new UUID", got[2]["id"])
	}
	if got[1]["parentFolder"] != "f1" || got[1]["isFilterBookmark"] != false || got[1]["sortKey"] != nil {
		t.Fatalf("new bookmark = %v", got[1])
	}
	a.Get(t, bmPath+"/"+gone).Envelope(http.StatusNotFound, notFound)
	list := bmList(t, a)
	if ts := bmTitles(list); !slices.Equal(ts, []string{"z kept", "w given", "x bad id", "y new"}) {
		t.Fatalf("listed after replace = %v", ts)
	}
	for _, b := range got {
		r := a.Get(t, bmPath+"/"+b["id"].(string)).Status(http.StatusOK).Object()
		if !bmEqual(r, b) {
			t.Fatalf("GET = %v, want %v", r, b)
		}
	}

	// An empty array deletes them all.
	a.Put(t, bmPath, []any{}).Status(http.StatusOK)
	if n := len(bmList(t, a)); n != 0 {
		t.Fatalf("%d bookmarks after replacing with none", n)
	}
}

func TestReplaceBookmarksWithABadElementChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "f1", "title": "Folder"})
	id := bmCreate(t, a, bmBody("one", map[string]any{"parentFolder": "f1"}))["id"].(string)
	bmCreate(t, a, bmBody("two", nil))
	before := bmList(t, a)
	good := bmBody("good", nil)

	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"no title", []any{good, good, map[string]any{"path": "/a", "icon": "i"}}, "bookmarks[2]: title is required"},
		{"folderTreePath", []any{good, bmBody("x", map[string]any{"folderTreePath": "/a"})}, "bookmarks[1]: " + bmMsgFolderTreePath},
		{"unknown folder", []any{good, bmBody("x", map[string]any{"parentFolder": "f2"})}, `bookmarks[1]: parentFolder "f2" does not exist`},
		{"bad path", []any{bmBody("x", map[string]any{"path": "x"}), good}, "bookmarks[0]: path must be an application route starting with a single /"},
		{"duplicate ids", []any{bmBody("x", map[string]any{"id": id}), bmBody("y", map[string]any{"id": id})},
			"bookmarks[1]: id " + id + " is the id of bookmarks[0] too"},
		{"too many", bmMany(1001), "at most 1000 system bookmarks"},
		{"unknown key", []any{good, bmBody("x", map[string]any{"colour": "red"})}, ""},
		{"number for a string", []any{good, bmBody("x", map[string]any{"sortKey": 1})}, "[1].sortKey: must be a string"},
		{"object body", good, "the request body must be a JSON array"},
		{"not JSON", "[{", msgInvalidSyntax},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Put(t, bmPath, c.body).Envelope(http.StatusBadRequest, c.message)
			if got := bmList(t, a); !bmEqual(got, before) {
				t.Fatalf("bookmarks after a refused replace = %v, want %v", got, before)
			}
		})
	}
	// The most a replace may carry is accepted.
	var got []map[string]any
	a.Put(t, bmPath, bmMany(1000)).Status(http.StatusOK).JSON(&got)
	if len(got) != 1000 || len(bmList(t, a)) != 1000 {
		t.Fatalf("replace with 1000 answered %d", len(got))
	}
	// A tenant at the limit cannot create one more.
	a.Post(t, bmPath, good).Envelope(http.StatusConflict, "the tenant has 1000 system bookmarks, the most it may have")
}

func bmMany(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = bmBody("b", nil)
	}
	return out
}

func TestUpdateBookmarkMergesTheGivenFields(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "f1", "title": "One"}, map[string]any{"id": "f2", "title": "Two"})
	start := bmCreate(t, a, bmBody("Start", map[string]any{
		"parentFolder": "f1", "sortKey": "k", "isFilterBookmark": true, "visibleToGroups": []string{"g"}}))
	id := start["id"].(string)
	path := bmPath + "/" + id

	steps := []struct {
		name   string
		body   map[string]any
		change map[string]any
	}{
		{"title only", map[string]any{"title": "Renamed"}, map[string]any{"title": "Renamed"}},
		{"path and icon", map[string]any{"path": "/p?x=1", "icon": "flag"}, map[string]any{"path": "/p?x=1", "icon": "flag"}},
		{"move", map[string]any{"parentFolder": "f2"}, map[string]any{"parentFolder": "f2"}},
		{"null clears", map[string]any{"sortKey": nil, "parentFolder": nil, "isFilterBookmark": nil, "visibleToGroups": nil},
			map[string]any{"sortKey": nil, "parentFolder": nil, "isFilterBookmark": nil, "visibleToGroups": nil}},
		{"own id", map[string]any{"id": id, "sortKey": "s"}, map[string]any{"sortKey": "s"}},
		{"empty body", map[string]any{}, nil},
	}
	want := start
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			next := map[string]any{}
			for k, v := range want {
				next[k] = v
			}
			for k, v := range s.change {
				next[k] = v
			}
			got := a.Put(t, path, s.body).Status(http.StatusOK).Object()
			sameKeys(t, "updated bookmark", got, bmKeys)
			if !bmEqual(got, next) {
				t.Fatalf("answer = %v, want %v", got, next)
			}
			if read := a.Get(t, path).Status(http.StatusOK).Object(); !bmEqual(read, next) {
				t.Fatalf("read = %v, want %v", read, next)
			}
			want = next
		})
	}
}

func TestUpdateBookmarkAnswersMalformedRequest(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := bmCreate(t, a, bmBody("Start", nil))["id"].(string)
	path := bmPath + "/" + id
	before := a.Get(t, path).Object()

	cases := []struct {
		name      string
		body      any
		developer string
	}{
		{"not JSON", "{", msgInvalidSyntax},
		{"array", []any{}, "the request body must be a JSON object"},
		{"wrong type", map[string]any{"title": 5}, "title: must be a string"},
		{"wrong list type", map[string]any{"visibleToGroups": []any{1}}, "visibleToGroups[0]: must be a string"},
		{"unknown key", map[string]any{"colour": "red"}, ""},
		{"blank title", map[string]any{"title": "  "}, "title is required"},
		{"null title", map[string]any{"title": nil}, "title is required and cannot be null"},
		{"null path", map[string]any{"path": nil}, "path is required and cannot be null"},
		{"bad path", map[string]any{"path": "nope"}, "path must be an application route starting with a single /"},
		{"long icon", map[string]any{"icon": strings.Repeat("i", 257)}, "icon: at most 256 characters"},
		{"unknown folder", map[string]any{"parentFolder": "f9"}, `parentFolder "f9" does not exist`},
		{"other id", map[string]any{"id": absentID}, "id: the id of a bookmark cannot change"},
		{"folderTreePath", map[string]any{"folderTreePath": "/a"}, bmMsgFolderTreePath},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := a.Put(t, path, c.body).Envelope(http.StatusBadRequest, bmMsgMalformed)
			dev, _ := env["developerMessage"].(string)
			if dev == "" || (c.developer != "" && dev != c.developer) {
				t.Fatalf("developerMessage = %q, want %q", dev, c.developer)
			}
		})
	}
	if got := a.Get(t, path).Object(); !bmEqual(got, before) {
		t.Fatalf("bookmark after refused updates = %v, want %v", got, before)
	}

	for _, missing := range []string{absentID, "not-a-uuid"} {
		t.Run("missing "+missing, func(t *testing.T) {
			a.Put(t, bmPath+"/"+missing, map[string]any{"title": "x"}).Envelope(http.StatusNotFound, notFound)
		})
	}
}

func TestDeleteBookmark(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := bmCreate(t, a, bmBody("Doomed", nil))["id"].(string)
	other := bmCreate(t, a, bmBody("Stays", nil))["id"].(string)

	got := a.Delete(t, bmPath+"/"+id).Status(http.StatusOK).Object()
	sameKeys(t, "delete answer", got, []string{"id"})
	if got["id"] != id {
		t.Fatalf("delete answered %v", got)
	}
	a.Get(t, bmPath+"/"+id).Envelope(http.StatusNotFound, notFound)
	for _, missing := range []string{id, absentID, "not-a-uuid"} {
		a.Delete(t, bmPath+"/"+missing).Envelope(http.StatusNotFound, notFound)
	}
	if l := bmList(t, a); len(l) != 1 || l[0]["id"] != other {
		t.Fatalf("left = %v", l)
	}
	a.Get(t, bmPath+"/not-a-uuid").Envelope(http.StatusNotFound, notFound)
}

func TestBookmarkFolders(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")

	empty := a.Get(t, bmFoldersPath).Status(http.StatusOK).Object()
	sameKeys(t, "folders", empty, []string{"folders"})
	if f, ok := empty["folders"].([]any); !ok || len(f) != 0 {
		t.Fatalf("folders of a new tenant = %v, want []", empty)
	}

	written := bmSetFolders(t, a,
		map[string]any{"id": "child", "title": "Child", "parentFolder": "top"},
		map[string]any{"id": "top", "title": "Top", "sortKey": "1"},
		map[string]any{"id": "b", "title": "Bravo"},
		map[string]any{"id": "a", "title": "Alpha"},
	)
	for _, f := range written {
		sameKeys(t, "folder", f, bmFolderKeys)
	}
	wantOrder := []string{"Top", "Alpha", "Bravo", "Child"}
	if got := bmTitles(written); !slices.Equal(got, wantOrder) {
		t.Fatalf("answer order = %v, want %v", got, wantOrder)
	}
	if written[0]["sortKey"] != "1" || written[0]["parentFolder"] != nil || written[3]["parentFolder"] != "top" {
		t.Fatalf("folders = %v", written)
	}
	var read struct {
		Folders []map[string]any `json:"folders"`
	}
	a.Get(t, bmFoldersPath).Status(http.StatusOK).JSON(&read)
	if !bmEqual(read.Folders, written) {
		t.Fatalf("read = %v, want %v", read.Folders, written)
	}

	// Bookmarks in a folder that goes away move to the top.
	inChild := bmCreate(t, a, bmBody("in child", map[string]any{"parentFolder": "child"}))["id"].(string)
	inTop := bmCreate(t, a, bmBody("in top", map[string]any{"parentFolder": "top"}))["id"].(string)
	replaced := bmSetFolders(t, a,
		map[string]any{"id": "top", "title": "Top renamed"},
		map[string]any{"id": "new", "title": "New", "parentFolder": "top"},
	)
	if got := bmTitles(replaced); !slices.Equal(got, []string{"New", "Top renamed"}) {
		t.Fatalf("replaced = %v", got)
	}
	if got := a.Get(t, bmPath+"/"+inChild).Object(); got["parentFolder"] != nil {
		t.Fatalf("bookmark of a removed folder: parentFolder = %v, want null", got["parentFolder"])
	}
	if got := a.Get(t, bmPath+"/"+inTop).Object(); got["parentFolder"] != "top" {
		t.Fatalf("bookmark of a kept folder: parentFolder = %v, want top", got["parentFolder"])
	}
	// And the removed folder cannot be used any more.
	a.Post(t, bmPath, bmBody("x", map[string]any{"parentFolder": "child"})).
		Envelope(http.StatusBadRequest, `parentFolder "child" does not exist`)
}

func TestSetBookmarkFoldersAnswersMalformedRequestAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bmSetFolders(t, a, map[string]any{"id": "keep", "title": "Keep"})
	inKeep := bmCreate(t, a, bmBody("in keep", map[string]any{"parentFolder": "keep"}))["id"].(string)
	before := a.Get(t, bmFoldersPath).Object()
	f := func(id, title string, parent any) map[string]any {
		return map[string]any{"id": id, "title": title, "parentFolder": parent}
	}
	many := make([]any, 1001)
	for i := range many {
		many[i] = f(strings.Repeat("x", 1+i%100)+string(rune('a'+i/100)), "t", nil)
	}

	cases := []struct {
		name      string
		body      any
		developer string
	}{
		{"not JSON", "{", msgInvalidSyntax},
		{"no folders key", map[string]any{}, "the request body needs folders"},
		{"extra key", map[string]any{"folders": []any{}, "other": 1}, "other: unknown field"},
		{"folders not an array", map[string]any{"folders": "x"}, ""},
		{"unknown folder key", map[string]any{"folders": []any{map[string]any{"id": "a", "title": "A", "x": 1}}}, ""},
		{"no id", map[string]any{"folders": []any{map[string]any{"title": "A"}}}, ""},
		{"number id", map[string]any{"folders": []any{map[string]any{"id": 5, "title": "A"}}}, "folders[0]: id: must be a string"},
		{"no title", map[string]any{"folders": []any{map[string]any{"id": "a"}}}, ""},
		{"blank title", map[string]any{"folders": []any{f("a", " ", nil)}}, "folders[0]: title is required"},
		{"bad id", map[string]any{"folders": []any{f("a b", "A", nil)}}, `folders[0]: id: 1 to 128 of A-Z a-z 0-9 _ . : -, got "a b"`},
		{"duplicate id", map[string]any{"folders": []any{f("a", "A", nil), f("a", "B", nil)}}, `folders[1]: duplicate id "a"`},
		{"unknown parent", map[string]any{"folders": []any{f("a", "A", "keep")}}, `folders[0]: parentFolder "keep" is not one of the folders`},
		{"own parent", map[string]any{"folders": []any{f("a", "A", "a")}}, `folders[0]: folder "a" is its own ancestor`},
		{"cycle", map[string]any{"folders": []any{f("r", "R", nil), f("a", "A", "c"), f("b", "B", "a"), f("c", "C", "b")}},
			`folders[1]: folder "a" is its own ancestor`},
		{"too many", map[string]any{"folders": many}, "at most 1000 bookmark folders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := a.Put(t, bmFoldersPath, c.body).Envelope(http.StatusBadRequest, bmMsgMalformed)
			dev, _ := env["developerMessage"].(string)
			if dev == "" || (c.developer != "" && dev != c.developer) {
				t.Fatalf("developerMessage = %q, want %q", dev, c.developer)
			}
		})
	}
	if got := a.Get(t, bmFoldersPath).Object(); !bmEqual(got, before) {
		t.Fatalf("folders after refused writes = %v, want %v", got, before)
	}
	if got := a.Get(t, bmPath+"/"+inKeep).Object(); got["parentFolder"] != "keep" {
		t.Fatalf("bookmark after refused writes: parentFolder = %v", got["parentFolder"])
	}
}

// bmEqual compares decoded JSON values.
func bmEqual(got, want any) bool { return reflect.DeepEqual(got, want) }

// bmStrings is a decoded JSON array of strings.
func bmStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, s := range list {
		out[i], _ = s.(string)
	}
	return out
}

// Concurrent replaces naming the same ids all succeed, one after another:
// the end state is one of the bodies, never a mix and never a 500.
func TestConcurrentReplaceBookmarks(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ids := []string{"01a20242-9dca-771b-bd4e-ca31c13a5601", "01a20242-9dca-771b-bd4e-ca31c13a5602"}
	const writers = 6
	var wg sync.WaitGroup
	codes := make([]int, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			title := fmt.Sprintf("w%d", w)
			codes[w] = a.Put(t, bmPath, []any{
				bmBody(title, map[string]any{"id": ids[0]}), bmBody(title, map[string]any{"id": ids[1]}), bmBody(title, nil),
			}).Code
		}()
	}
	wg.Wait()
	for w, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("writer %d: status %d", w, c)
		}
	}
	list := bmList(t, a)
	if len(list) != 3 {
		t.Fatalf("%d bookmarks after concurrent replaces, want 3", len(list))
	}
	for _, b := range list {
		if b["title"] != list[0]["title"] {
			t.Fatalf("mixed replaces: %v", bmTitles(list))
		}
	}
}
