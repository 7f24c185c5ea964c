package resolvers_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// gqlBookmark is a Bookmark as these tests ask for it (every field).
type gqlBookmark struct {
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Path             string   `json:"path"`
	Icon             string   `json:"icon"`
	IsFilterBookmark *bool    `json:"isFilterBookmark"`
	ParentFolder     *string  `json:"parentFolder"`
	VisibleToGroups  []string `json:"visibleToGroups"`
	SortKey          *string  `json:"sortKey"`
}

type gqlBookmarkFolder struct {
	ID           string  `json:"id"`
	Title        string  `json:"title"`
	ParentFolder *string `json:"parentFolder"`
	SortKey      *string `json:"sortKey"`
}

const (
	gqlBookmarkFields       = `id title path icon isFilterBookmark parentFolder visibleToGroups sortKey`
	gqlBookmarkFolderFields = `folders { id title parentFolder sortKey }`
	gqlMsgFolderTreePath    = "folderTreePath should not be provided in API version 2 or later"
)

// gqlCreateBookmark makes a bookmark through createBookmark.
func gqlCreateBookmark(t *testing.T, c *loupetest.Client, input map[string]any) gqlBookmark {
	t.Helper()
	var out struct {
		CreateBookmark gqlBookmark `json:"createBookmark"`
	}
	c.GraphQL(t, `mutation($in: BookmarkInput!) { createBookmark(input: $in) { `+gqlBookmarkFields+` } }`,
		map[string]any{"in": input}).OK(&out)
	return out.CreateBookmark
}

// gqlBookmarks lists the bookmarks c sees, through Query.bookmarks and
// Viewer.bookmarks (which must agree).
func gqlBookmarks(t *testing.T, c *loupetest.Client) []gqlBookmark {
	t.Helper()
	var out struct {
		Bookmarks []gqlBookmark `json:"bookmarks"`
		Viewer    struct {
			Bookmarks []gqlBookmark `json:"bookmarks"`
		} `json:"viewer"`
	}
	c.GraphQL(t, `{ bookmarks { `+gqlBookmarkFields+` } viewer { bookmarks { `+gqlBookmarkFields+` } } }`, nil).OK(&out)
	if !reflect.DeepEqual(out.Bookmarks, out.Viewer.Bookmarks) {
		t.Fatalf("bookmarks %v and viewer.bookmarks %v differ", out.Bookmarks, out.Viewer.Bookmarks)
	}
	return out.Bookmarks
}

func gqlBookmarkTitles(list []gqlBookmark) []string {
	out := make([]string, len(list))
	for i, b := range list {
		out[i] = b.Title
	}
	return out
}

func gqlBookmarkInput(title string, extra map[string]any) map[string]any {
	in := map[string]any{"title": title, "path": "/items?q=" + title, "icon": "star"}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

func TestGraphQLBookmarksVisibility(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	editor := a.User(t, "ed@a.test", []string{"editors"}, false)
	plain := a.User(t, "pl@a.test", nil, false)
	var editorsID string
	if err := api.DB.Get(&editorsID, `SELECT id FROM groups WHERE tenant_id = $1 AND name = 'editors'`, a.TenantID); err != nil {
		t.Fatal(err)
	}
	open := gqlCreateBookmark(t, a, gqlBookmarkInput("open", map[string]any{"sortKey": "2"}))
	byName := gqlCreateBookmark(t, a, gqlBookmarkInput("by name", map[string]any{"visibleToGroups": []string{a.TenantID + ":editors"}}))
	byID := gqlCreateBookmark(t, a, gqlBookmarkInput("by id", map[string]any{"visibleToGroups": []string{editorsID}, "sortKey": "1"}))
	foreign := gqlCreateBookmark(t, b, gqlBookmarkInput("b's", nil))

	cases := []struct {
		name    string
		c       *loupetest.Client
		visible []string
		hidden  []string
	}{
		{"admin", a, []string{"by id", "open", "by name"}, []string{foreign.ID}},
		{"editor", editor, []string{"by id", "open", "by name"}, []string{foreign.ID}},
		{"no groups", plain, []string{"open"}, []string{byName.ID, byID.ID, foreign.ID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := gqlBookmarkTitles(gqlBookmarks(t, c.c)); !slices.Equal(got, c.visible) {
				t.Fatalf("visible = %v, want %v", got, c.visible)
			}
			var one struct {
				Bookmark gqlBookmark `json:"bookmark"`
			}
			c.c.GraphQL(t, `query($id: ID!) { bookmark(id: $id) { `+gqlBookmarkFields+` } }`,
				map[string]any{"id": open.ID}).OK(&one)
			if !reflect.DeepEqual(one.Bookmark, open) {
				t.Fatalf("bookmark = %+v, want %+v", one.Bookmark, open)
			}
			for _, id := range append(c.hidden, missingID, "not-a-uuid") {
				c.c.GraphQL(t, `query($id: ID!) { bookmark(id: $id) { id } }`, map[string]any{"id": id}).ErrorCode("NOT_FOUND")
			}
		})
	}
}

func TestGraphQLBookmarkWrites(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var folders struct {
		SetBookmarkFolders struct {
			Folders []gqlBookmarkFolder `json:"folders"`
		} `json:"setBookmarkFolders"`
	}
	a.GraphQL(t, `mutation { setBookmarkFolders(folders: [{id: "f2", title: "Two", parentFolder: "f1"}, {id: "f1", title: "One", sortKey: "0"}]) { `+
		gqlBookmarkFolderFields+` } }`, nil).OK(&folders)
	if got := folders.SetBookmarkFolders.Folders; len(got) != 2 || got[0].ID != "f1" || *got[0].SortKey != "0" ||
		got[1].ID != "f2" || *got[1].ParentFolder != "f1" {
		t.Fatalf("folders = %+v", got)
	}

	created := gqlCreateBookmark(t, a, gqlBookmarkInput("start", map[string]any{
		"parentFolder": "f2", "sortKey": "k", "isFilterBookmark": true, "visibleToGroups": []string{"g"}}))
	if created.ParentFolder == nil || *created.ParentFolder != "f2" || !slices.Equal(created.VisibleToGroups, []string{"g"}) ||
		created.IsFilterBookmark == nil || !*created.IsFilterBookmark {
		t.Fatalf("created = %+v", created)
	}

	// An inline literal null clears a field; fields not written stay.
	var upd struct {
		UpdateBookmark gqlBookmark `json:"updateBookmark"`
	}
	a.GraphQL(t, fmt.Sprintf(`mutation { updateBookmark(id: %q, input: {title: "renamed", sortKey: null, visibleToGroups: null}) { %s } }`,
		created.ID, gqlBookmarkFields), nil).OK(&upd)
	want := created
	want.Title, want.SortKey, want.VisibleToGroups = "renamed", nil, nil
	if !reflect.DeepEqual(upd.UpdateBookmark, want) {
		t.Fatalf("updated = %+v, want %+v", upd.UpdateBookmark, want)
	}
	// Through variables too.
	a.GraphQL(t, `mutation($id: ID!, $in: BookmarkInput!) { updateBookmark(id: $id, input: $in) { `+gqlBookmarkFields+` } }`,
		map[string]any{"id": created.ID, "in": map[string]any{"parentFolder": nil}}).OK(&upd)
	want.ParentFolder = nil
	if !reflect.DeepEqual(upd.UpdateBookmark, want) {
		t.Fatalf("updated = %+v, want %+v", upd.UpdateBookmark, want)
	}

	// Removing a folder moves its bookmarks to the top.
	moved := gqlCreateBookmark(t, a, gqlBookmarkInput("in f2", map[string]any{"parentFolder": "f2"}))
	var read struct {
		SetBookmarkFolders struct {
			Folders []gqlBookmarkFolder `json:"folders"`
		} `json:"setBookmarkFolders"`
		Bookmark gqlBookmark `json:"bookmark"`
	}
	a.GraphQL(t, `mutation { setBookmarkFolders(folders: [{id: "f1", title: "One"}]) { `+gqlBookmarkFolderFields+` } }`, nil).OK(&read)
	a.GraphQL(t, `query($id: ID!) { bookmark(id: $id) { `+gqlBookmarkFields+` } }`, map[string]any{"id": moved.ID}).OK(&read)
	if read.Bookmark.ParentFolder != nil {
		t.Fatalf("parentFolder of a bookmark whose folder went away = %v", *read.Bookmark.ParentFolder)
	}

	var del struct {
		DeleteBookmark struct{ ID string } `json:"deleteBookmark"`
	}
	a.GraphQL(t, `mutation($id: ID!) { deleteBookmark(id: $id) { id } }`, map[string]any{"id": created.ID}).OK(&del)
	if del.DeleteBookmark.ID != created.ID {
		t.Fatalf("deleteBookmark answered %v", del)
	}
	a.GraphQL(t, `mutation($id: ID!) { deleteBookmark(id: $id) { id } }`, map[string]any{"id": created.ID}).ErrorCode("NOT_FOUND")

	var replaced struct {
		ReplaceBookmarks []gqlBookmark `json:"replaceBookmarks"`
	}
	a.GraphQL(t, `mutation($in: [BookmarkInput!]!) { replaceBookmarks(input: $in) { `+gqlBookmarkFields+` } }`,
		map[string]any{"in": []any{gqlBookmarkInput("only", map[string]any{"id": moved.ID})}}).OK(&replaced)
	if len(replaced.ReplaceBookmarks) != 1 || replaced.ReplaceBookmarks[0].ID != moved.ID {
		t.Fatalf("replaced = %+v", replaced)
	}
	if got := gqlBookmarkTitles(gqlBookmarks(t, a)); !slices.Equal(got, []string{"only"}) {
		t.Fatalf("after replace = %v", got)
	}
}

func TestGraphQLBookmarkWritesRefused(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "ed@a.test", []string{"editors"}, false)
	a.GraphQL(t, `mutation { setBookmarkFolders(folders: [{id: "f1", title: "One"}]) { folders { id } } }`, nil).OK(nil)
	kept := gqlCreateBookmark(t, a, gqlBookmarkInput("kept", map[string]any{"parentFolder": "f1"}))
	before := gqlBookmarks(t, a)

	const (
		create  = `mutation($in: BookmarkInput!) { createBookmark(input: $in) { id } }`
		replace = `mutation($in: [BookmarkInput!]!) { replaceBookmarks(input: $in) { id } }`
		update  = `mutation($id: ID!, $in: BookmarkInput!) { updateBookmark(id: $id, input: $in) { id } }`
		remove  = `mutation($id: ID!) { deleteBookmark(id: $id) { id } }`
		setF    = `mutation($f: [BookmarkFolderInput!]!) { setBookmarkFolders(folders: $f) { folders { id } } }`
	)
	good := gqlBookmarkInput("new", nil)
	cases := []struct {
		name    string
		c       *loupetest.Client
		query   string
		vars    map[string]any
		code    string
		message string
	}{
		{"create by non-admin", editor, create, map[string]any{"in": good}, "FORBIDDEN", ""},
		{"replace by non-admin", editor, replace, map[string]any{"in": []any{good}}, "FORBIDDEN", ""},
		{"update by non-admin", editor, update, map[string]any{"id": kept.ID, "in": map[string]any{"title": "x"}}, "FORBIDDEN", ""},
		{"delete by non-admin", editor, remove, map[string]any{"id": kept.ID}, "FORBIDDEN", ""},
		{"folders by non-admin", editor, setF, map[string]any{"f": []any{}}, "FORBIDDEN", ""},
		{"folderTreePath", a, create, map[string]any{"in": gqlBookmarkInput("x", map[string]any{"folderTreePath": "/a"})},
			"BAD_USER_INPUT", gqlMsgFolderTreePath},
		{"folderTreePath literal null", a, `mutation { createBookmark(input: {title: "t", path: "/p", icon: "i", folderTreePath: null}) { id } }`,
			nil, "BAD_USER_INPUT", gqlMsgFolderTreePath},
		{"no icon", a, create, map[string]any{"in": map[string]any{"title": "t", "path": "/p"}}, "BAD_USER_INPUT", "icon is required"},
		{"replace with a bad element", a, replace, map[string]any{"in": []any{good, map[string]any{"title": "t", "path": "p", "icon": "i"}}},
			"BAD_USER_INPUT", "bookmarks[1]: path must be an application route starting with a single /"},
		{"update null title", a, `mutation { updateBookmark(id: "` + kept.ID + `", input: {title: null}) { id } }`, nil,
			"BAD_USER_INPUT", "title is required and cannot be null"},
		{"update missing", a, update, map[string]any{"id": missingID, "in": map[string]any{"title": "x"}}, "NOT_FOUND", ""},
		{"folders cycle", a, setF, map[string]any{"f": []any{
			map[string]any{"id": "a", "title": "A", "parentFolder": "b"}, map[string]any{"id": "b", "title": "B", "parentFolder": "a"}}},
			"BAD_USER_INPUT", `folders[0]: folder "a" is its own ancestor`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := c.c.GraphQL(t, c.query, c.vars).ErrorCode(c.code)
			if c.code == "FORBIDDEN" && msg != "Only administrators may change system bookmarks and bookmark folders." {
				t.Fatalf("message = %q", msg)
			}
			if c.message != "" && msg != c.message {
				t.Fatalf("message = %q, want %q", msg, c.message)
			}
		})
	}
	if got := gqlBookmarks(t, a); !reflect.DeepEqual(got, before) {
		t.Fatalf("bookmarks after refused writes = %+v, want %+v", got, before)
	}
	var f struct {
		BookmarkFolders struct {
			Folders []gqlBookmarkFolder `json:"folders"`
		} `json:"bookmarkFolders"`
	}
	editor.GraphQL(t, `{ bookmarkFolders { `+gqlBookmarkFolderFields+` } }`, nil).OK(&f)
	if got := f.BookmarkFolders.Folders; len(got) != 1 || got[0].ID != "f1" {
		t.Fatalf("folders after refused writes = %+v", got)
	}
}
