package resolvers_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// missingID is a well-formed UUIDv7 no row has.
const missingID = "01a20242-9dca-771b-bd4e-ca31c13a56ec"

// gqlItem is the part of an Item these tests ask for.
type gqlItem struct {
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	ItemType           string   `json:"itemType"`
	CreatedBy          string   `json:"createdBy"`
	FolderParents      []string `json:"folderParents"`
	HasArchiveRelation bool     `json:"hasArchiveRelation"`
	ArchivedOn         *string  `json:"archivedOn"`
	Metadata           struct {
		FormID   string         `json:"formId"`
		FormData map[string]any `json:"formData"`
	} `json:"metadata"`
	Folders []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"folders"`
}

const itemFields = `id title itemType createdBy folderParents hasArchiveRelation archivedOn
metadata { formId formData } folders { id name }`

// createItem makes an item through the createItem mutation and returns it.
func createItem(t *testing.T, c *loupetest.Client, input map[string]any) gqlItem {
	t.Helper()
	var out struct {
		CreateItem struct {
			Item gqlItem `json:"item"`
		} `json:"createItem"`
	}
	c.GraphQL(t, `mutation($in: CreateItemInput!) { createItem(input: $in) { item { `+itemFields+` } } }`,
		map[string]any{"in": input}).OK(&out)
	if out.CreateItem.Item.ID == "" {
		t.Fatalf("createItem %v answered no id", input)
	}
	return out.CreateItem.Item
}

// mutateID runs one of the mutations taking an ItemIdInput.
func mutateID(t *testing.T, c *loupetest.Client, mutation, id, selection string) *loupetest.GraphQLResponse {
	t.Helper()
	return c.GraphQL(t, `mutation($id: ID!) { `+mutation+`(input: {id: $id}) { `+selection+` } }`,
		map[string]any{"id": id})
}

// wantError fails unless the first error has extensions.code and
// extensions.statusCode as wanted; it returns the error's message.
func wantError(t *testing.T, r *loupetest.GraphQLResponse, code string, status int) string {
	t.Helper()
	msg := r.ErrorCode(code)
	if got, _ := r.Errors[0].Extensions["statusCode"].(float64); int(got) != status {
		t.Fatalf("extensions.statusCode = %v, want %d (%+v)", r.Errors[0].Extensions["statusCode"], status, r.Errors)
	}
	return msg
}

// auditActionsOf lists the action types recorded for an item, newest first.
func auditActionsOf(t *testing.T, c *loupetest.Client, itemID string) []string {
	t.Helper()
	var out struct {
		ItemAnalytics struct {
			Hits []struct {
				ActionType string `json:"actionType"`
			} `json:"hits"`
		} `json:"itemAnalytics"`
	}
	c.GraphQL(t, `query($id: ID) { itemAnalytics(filter: {itemId: $id}) { hits { actionType } } }`,
		map[string]any{"id": itemID}).OK(&out)
	actions := make([]string, len(out.ItemAnalytics.Hits))
	for i, h := range out.ItemAnalytics.Hits {
		actions[i] = h.ActionType
	}
	return actions
}

func TestCreateItemMutationAnswersTheItem(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	folder := createItem(t, a, map[string]any{"title": "Projects", "itemType": "folder"})

	cases := []struct {
		name          string
		input         map[string]any
		wantTitle     string
		wantFormID    string
		wantFolderIDs []string
	}{
		{"video with a title", map[string]any{"title": "Interview", "itemType": "video"},
			"Interview", "default", []string{}},
		{"title from the file name", map[string]any{"itemType": "audio", "originalFileName": "take1.wav"},
			"take1.wav", "default", []string{}},
		{"title from the form", map[string]any{"itemType": "image",
			"metadata": map[string]any{"formId": "default_image", "formData": map[string]any{"default_title": "Sunset"}}},
			"Sunset", "default_image", []string{}},
		{"a folder gets the folder form", map[string]any{"title": "Sub", "itemType": "folder", "folderParents": []string{folder.ID}},
			"Sub", "default_folder", []string{folder.ID}},
		{"placed in folders", map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{folder.ID, a.ArchiveFolderID}},
			"Clip", "default", []string{folder.ID, a.ArchiveFolderID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := createItem(t, a, c.input)
			if got.Title != c.wantTitle || got.ItemType != c.input["itemType"] || got.CreatedBy != a.UserID ||
				got.Metadata.FormID != c.wantFormID || got.Metadata.FormData["default_title"] != c.wantTitle ||
				got.HasArchiveRelation || got.ArchivedOn != nil {
				t.Fatalf("createItem answered %+v", got)
			}
			if !slices.Equal(got.FolderParents, c.wantFolderIDs) {
				t.Fatalf("folderParents = %v, want %v", got.FolderParents, c.wantFolderIDs)
			}
			var folderIDs []string
			for _, f := range got.Folders {
				folderIDs = append(folderIDs, f.ID)
			}
			if len(got.Folders) != len(c.wantFolderIDs) || (len(folderIDs) > 0 && !slices.Equal(folderIDs, c.wantFolderIDs)) {
				t.Fatalf("folders = %+v, want ids %v", got.Folders, c.wantFolderIDs)
			}
			// The item is there to read, and its creation is audited.
			var read struct{ Item gqlItem }
			a.GraphQL(t, `query($id: ID!) { item(id: $id) { `+itemFields+` } }`, map[string]any{"id": got.ID}).OK(&read)
			if read.Item.ID != got.ID || read.Item.Title != c.wantTitle {
				t.Fatalf("item(%s) = %+v", got.ID, read.Item)
			}
			if actions := auditActionsOf(t, a, got.ID); !slices.Equal(actions, []string{"create"}) {
				t.Fatalf("audit actions = %v, want [create]", actions)
			}
		})
	}
}

func TestCreateItemMutationRefusesBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	foreignFolder := createItem(t, b, map[string]any{"title": "B's", "itemType": "folder"})
	plain := createItem(t, a, map[string]any{"title": "not a folder", "itemType": "video"})
	createItem(t, a, map[string]any{"title": "taken", "itemType": "video", "externalId": "dup"})
	items := api.Count(t, `SELECT count(*) FROM items`)
	audits := api.Count(t, `SELECT count(*) FROM audit_records`)

	cases := []struct {
		name    string
		input   map[string]any
		code    string
		status  int
		message string
	}{
		{"bad itemType", map[string]any{"title": "x", "itemType": "Video Clip"}, "BAD_USER_INPUT", 400, ""},
		{"no title at all", map[string]any{"itemType": "video"}, "BAD_USER_INPUT", 400,
			"title is required (or originalFileName, or metadata.formData.default_title)"},
		{"unknown folder", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{missingID}},
			"BAD_USER_INPUT", 400, "folder " + missingID + " does not exist"},
		{"folder of another tenant", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{foreignFolder.ID}},
			"BAD_USER_INPUT", 400, "folder " + foreignFolder.ID + " does not exist"},
		{"parent is no folder", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{plain.ID}},
			"BAD_USER_INPUT", 400, "folder " + plain.ID + " does not exist"},
		{"folder with two parents", map[string]any{"title": "x", "itemType": "folder", "folderParents": []string{a.ArchiveFolderID, missingID}},
			"BAD_USER_INPUT", 400, "a folder has at most one parent folder"},
		{"duplicate externalId", map[string]any{"title": "x", "itemType": "video", "externalId": "dup"},
			"CONFLICT", 409, `externalId "dup" is already used by another item`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.GraphQL(t, `mutation($in: CreateItemInput!) { createItem(input: $in) { item { id } } }`,
				map[string]any{"in": c.input})
			msg := wantError(t, r, c.code, c.status)
			if c.message != "" && msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
			// null when a resolver refused it, absent when the variables
			// were (the operation did not run: docs/graphql-over-http.md).
			if len(r.Data) != 0 && string(r.Data) != "null" {
				t.Fatalf("data = %s, want none", r.Data)
			}
		})
	}
	if got := api.Count(t, `SELECT count(*) FROM items`); got != items {
		t.Errorf("items: %d after bad mutations, want %d", got, items)
	}
	if got := api.Count(t, `SELECT count(*) FROM audit_records`); got != audits {
		t.Errorf("audit records: %d after bad mutations, want %d", got, audits)
	}
}

type statePayload struct {
	ID           string `json:"id"`
	VersionState string `json:"versionState"`
	Item         struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"item"`
}

func TestDeleteAndUndeleteMutations(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	const sel = `id versionState item { id title }`

	var del struct{ DeleteItem statePayload }
	mutateID(t, a, "deleteItem", id, sel).OK(&del)
	if got := del.DeleteItem; got.ID != id || got.VersionState != "IN_RECYCLE_BIN" || got.Item.ID != id || got.Item.Title != "Clip" {
		t.Fatalf("deleteItem answered %+v", got)
	}
	wantError(t, a.GraphQL(t, `query($id: ID!) { item(id: $id) { id } }`, map[string]any{"id": id}), "NOT_FOUND", 404)
	wantError(t, mutateID(t, a, "deleteItem", id, sel), "NOT_FOUND", 404)
	wantError(t, mutateID(t, a, "toggleArchive", id, "type"), "NOT_FOUND", 404)
	// Another tenant cannot bring it back.
	wantError(t, mutateID(t, b, "undeleteItem", id, sel), "NOT_FOUND", 404)

	var undel struct{ UndeleteItem statePayload }
	mutateID(t, a, "undeleteItem", id, sel).OK(&undel)
	if got := undel.UndeleteItem; got.ID != id || got.VersionState != "EXISTS" || got.Item.ID != id {
		t.Fatalf("undeleteItem answered %+v", got)
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { id } }`, map[string]any{"id": id}).OK(nil)
	// A live item is not in the recycle bin.
	wantError(t, mutateID(t, a, "undeleteItem", id, sel), "NOT_FOUND", 404)

	if got, want := auditActionsOf(t, a, id), []string{"undelete", "delete", "create"}; !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}

	for _, target := range []struct{ name, id string }{
		{"missing", missingID}, {"malformed", "not-a-uuid"}, {"another tenant's", id},
	} {
		t.Run("delete "+target.name, func(t *testing.T) {
			wantError(t, mutateID(t, b, "deleteItem", target.id, sel), "NOT_FOUND", 404)
		})
	}
	t.Run("delete the archive folder", func(t *testing.T) {
		msg := wantError(t, mutateID(t, a, "deleteItem", a.ArchiveFolderID, sel), "BAD_USER_INPUT", 400)
		if msg != "the archive folder cannot be deleted" {
			t.Fatalf("message %q", msg)
		}
		a.GraphQL(t, `query($id: ID!) { item(id: $id) { id } }`, map[string]any{"id": a.ArchiveFolderID}).OK(nil)
	})
}

func TestToggleArchiveMutation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	const sel = `type payload { folderId folderName } item { id hasArchiveRelation archivedOn }`
	type toggle struct {
		ToggleArchive struct {
			Type    string `json:"type"`
			Payload struct {
				FolderID   string `json:"folderId"`
				FolderName string `json:"folderName"`
			} `json:"payload"`
			Item struct {
				ID                 string  `json:"id"`
				HasArchiveRelation bool    `json:"hasArchiveRelation"`
				ArchivedOn         *string `json:"archivedOn"`
			} `json:"item"`
		}
	}

	steps := []struct {
		wantType     string
		wantArchived bool
	}{
		{"archive", true},
		{"unarchive", false},
		{"archive", true},
	}
	for i, s := range steps {
		var got toggle
		mutateID(t, a, "toggleArchive", id, sel).OK(&got)
		p := got.ToggleArchive
		if p.Type != s.wantType || p.Payload.FolderID != a.ArchiveFolderID || p.Payload.FolderName != "Archive" {
			t.Fatalf("toggle %d: answered %+v, want type %s and the archive folder %s", i+1, p, s.wantType, a.ArchiveFolderID)
		}
		if p.Item.ID != id || p.Item.HasArchiveRelation != s.wantArchived || (p.Item.ArchivedOn != nil) != s.wantArchived {
			t.Fatalf("toggle %d: item = %+v, want archived %v", i+1, p.Item, s.wantArchived)
		}
	}
	if got, want := auditActionsOf(t, a, id), []string{"archiveInitiated", "unarchiveInitiated", "archiveInitiated", "create"}; !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}
	for _, target := range []struct{ name, id string }{
		{"missing", missingID}, {"malformed", "x"}, {"another tenant's", id},
	} {
		t.Run(target.name, func(t *testing.T) {
			wantError(t, mutateID(t, b, "toggleArchive", target.id, sel), "NOT_FOUND", 404)
		})
	}
}

func TestItemAnswersNotFound(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	live := createItem(t, a, map[string]any{"title": "Live", "itemType": "video"}).ID
	deleted := createItem(t, a, map[string]any{"title": "Binned", "itemType": "video"}).ID
	mutateID(t, a, "deleteItem", deleted, "id").OK(nil)
	foreign := createItem(t, b, map[string]any{"title": "B's", "itemType": "video"}).ID

	cases := []struct{ name, id string }{
		{"missing", missingID},
		{"deleted", deleted},
		{"another tenant's", foreign},
		{"another tenant's archive folder", b.ArchiveFolderID},
		{"malformed", "not-a-uuid"},
		{"uuid with braces", "{" + live + "}"},
		{"empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.GraphQL(t, `query($id: ID!) { item(id: $id) { id title } }`, map[string]any{"id": c.id})
			if msg := wantError(t, r, "NOT_FOUND", 404); msg != loupe.MsgNotFound {
				t.Fatalf("message %q, want %q", msg, loupe.MsgNotFound)
			}
			if len(r.Errors[0].Path) != 1 || r.Errors[0].Path[0] != "item" {
				t.Fatalf("error path %v, want [item]", r.Errors[0].Path)
			}
			if got := strings.Join(strings.Fields(string(r.Data)), ""); got != `{"item":null}` {
				t.Fatalf("data = %s, want {\"item\":null}", r.Data)
			}
		})
	}
	t.Run("live", func(t *testing.T) {
		var out struct{ Item gqlItem }
		a.GraphQL(t, `query($id: ID!) { item(id: $id) { `+itemFields+` } }`, map[string]any{"id": live}).OK(&out)
		if out.Item.ID != live || out.Item.Title != "Live" {
			t.Fatalf("item = %+v", out.Item)
		}
	})
}

// page is one answer of the items connection.
type page struct {
	Items struct {
		Edges []struct {
			Cursor string `json:"cursor"`
			Node   struct {
				ID string `json:"id"`
			} `json:"node"`
		} `json:"edges"`
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
		PageInfo struct {
			HasPreviousPage bool    `json:"hasPreviousPage"`
			HasNextPage     bool    `json:"hasNextPage"`
			StartCursor     *string `json:"startCursor"`
			EndCursor       *string `json:"endCursor"`
		} `json:"pageInfo"`
		TotalCount int `json:"totalCount"`
	}
}

const itemsQuery = `query($first: Int, $after: String, $filter: ItemFilter, $orderBy: ItemOrder) {
  items(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    edges { cursor node { id } }
    nodes { id }
    pageInfo { hasPreviousPage hasNextPage startCursor endCursor }
    totalCount
  }
}`

// listAll pages through items with first, checking each page's shape, and
// returns the ids in the order served.
func listAll(t *testing.T, c *loupetest.Client, first int, filter map[string]any, orderBy string) []string {
	t.Helper()
	var ids []string
	var after any
	total := -1
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatalf("paging does not end: %d pages", n)
		}
		vars := map[string]any{"first": first, "after": after, "filter": filter}
		if orderBy != "" {
			vars["orderBy"] = orderBy
		}
		var p page
		c.GraphQL(t, itemsQuery, vars).OK(&p)
		got := p.Items
		if len(got.Nodes) != len(got.Edges) || len(got.Nodes) > first {
			t.Fatalf("page %d: %d nodes and %d edges, page size %d", n, len(got.Nodes), len(got.Edges), first)
		}
		for i, e := range got.Edges {
			if e.Node.ID != got.Nodes[i].ID || e.Cursor == "" {
				t.Fatalf("page %d: edge %d = %+v, node %s", n, i, e, got.Nodes[i].ID)
			}
			ids = append(ids, e.Node.ID)
		}
		if total == -1 {
			total = got.TotalCount
		} else if got.TotalCount != total {
			t.Fatalf("page %d: totalCount %d, was %d on the first page", n, got.TotalCount, total)
		}
		// Relay: a page asked with after continues the list (hasPreviousPage).
		if got.PageInfo.HasPreviousPage != (n > 0) {
			t.Fatalf("page %d: hasPreviousPage %v", n, got.PageInfo.HasPreviousPage)
		}
		if len(got.Edges) == 0 {
			if n > 0 {
				t.Fatalf("page %d is empty, yet the page before it said hasNextPage", n)
			}
			if got.PageInfo.EndCursor != nil || got.PageInfo.StartCursor != nil || got.PageInfo.HasNextPage {
				t.Fatalf("page %d: empty page with pageInfo %+v", n, got.PageInfo)
			}
			break
		}
		if start := got.PageInfo.StartCursor; start == nil || *start != got.Edges[0].Cursor {
			t.Fatalf("page %d: startCursor %v, want the first edge's cursor %s", n, start, got.Edges[0].Cursor)
		}
		if end := got.PageInfo.EndCursor; end == nil || *end != got.Edges[len(got.Edges)-1].Cursor {
			t.Fatalf("page %d: endCursor %v, want the last edge's cursor %s", n, end, got.Edges[len(got.Edges)-1].Cursor)
		}
		if !got.PageInfo.HasNextPage {
			break
		}
		if len(got.Edges) != first {
			t.Fatalf("page %d: hasNextPage on a short page of %d", n, len(got.Edges))
		}
		after = *got.PageInfo.EndCursor
	}
	if total != len(ids) {
		t.Fatalf("totalCount %d, but paging served %d items", total, len(ids))
	}
	return ids
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestItemsPagesThroughEveryItemOnce(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	createItem(t, b, map[string]any{"title": "B's", "itemType": "video"})
	// The archive folder is the tenant's oldest item.
	created := []string{a.ArchiveFolderID}
	for i := range 11 {
		created = append(created, createItem(t, a, map[string]any{"title": "Item " + string(rune('A'+i)), "itemType": "video"}).ID)
	}

	for _, first := range []int{1, 3, 4, 12, 100} {
		for _, order := range []struct {
			name, value string
			want        []string
		}{
			{"default order", "", reversed(created)},
			{"CREATED_DESC", "CREATED_DESC", reversed(created)},
			{"CREATED_ASC", "CREATED_ASC", created},
		} {
			t.Run(fmt.Sprintf("%s by %d", order.name, first), func(t *testing.T) {
				got := listAll(t, a, first, nil, order.value)
				if !slices.Equal(got, order.want) {
					t.Fatalf("paged ids:\n got %v\nwant %v", got, order.want)
				}
			})
		}
	}

	t.Run("default page size is 20", func(t *testing.T) {
		for range 10 {
			created = append(created, createItem(t, a, map[string]any{"title": "more", "itemType": "image"}).ID)
		}
		var p page
		a.GraphQL(t, `{ items { nodes { id } pageInfo { hasNextPage } totalCount } }`, nil).OK(&p)
		if len(p.Items.Nodes) != 20 || !p.Items.PageInfo.HasNextPage || p.Items.TotalCount != len(created) {
			t.Fatalf("items without first: %d nodes, hasNextPage %v, totalCount %d; want 20, true, %d",
				len(p.Items.Nodes), p.Items.PageInfo.HasNextPage, p.Items.TotalCount, len(created))
		}
	})
}

func TestItemsFilters(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	folder := createItem(t, a, map[string]any{"title": "Shoot", "itemType": "folder"}).ID
	v1 := createItem(t, a, map[string]any{"title": "v1", "itemType": "video", "folderParents": []string{folder}}).ID
	img := createItem(t, a, map[string]any{"title": "img", "itemType": "image"}).ID
	v2 := createItem(t, a, map[string]any{"title": "v2", "itemType": "video", "folderParents": []string{a.ArchiveFolderID, folder}}).ID
	binned := createItem(t, a, map[string]any{"title": "binned", "itemType": "video", "folderParents": []string{folder}}).ID
	mutateID(t, a, "deleteItem", binned, "id").OK(nil)
	binnedImg := createItem(t, a, map[string]any{"title": "binned img", "itemType": "image"}).ID
	mutateID(t, a, "deleteItem", binnedImg, "id").OK(nil)
	foreignFolder := createItem(t, b, map[string]any{"title": "B's", "itemType": "folder"}).ID
	createItem(t, b, map[string]any{"title": "B's video", "itemType": "video", "folderParents": []string{foreignFolder}})

	cases := []struct {
		name   string
		filter map[string]any
		want   []string // newest first
	}{
		{"no filter", nil, []string{v2, img, v1, folder, a.ArchiveFolderID}},
		{"empty filter", map[string]any{}, []string{v2, img, v1, folder, a.ArchiveFolderID}},
		{"itemType video", map[string]any{"itemType": "video"}, []string{v2, v1}},
		{"itemType folder", map[string]any{"itemType": "folder"}, []string{folder, a.ArchiveFolderID}},
		{"itemType nobody uses", map[string]any{"itemType": "person"}, nil},
		{"folderId", map[string]any{"folderId": folder}, []string{v2, v1}},
		{"folderId of the archive folder", map[string]any{"folderId": a.ArchiveFolderID}, []string{v2}},
		{"folderId and itemType", map[string]any{"folderId": folder, "itemType": "image"}, nil},
		{"folderId of another tenant", map[string]any{"folderId": foreignFolder}, nil},
		{"folderId missing", map[string]any{"folderId": missingID}, nil},
		{"folderId malformed", map[string]any{"folderId": "nope"}, nil},
		{"inRecycleBin", map[string]any{"inRecycleBin": true}, []string{binnedImg, binned}},
		{"inRecycleBin false", map[string]any{"inRecycleBin": false}, []string{v2, img, v1, folder, a.ArchiveFolderID}},
		{"inRecycleBin and itemType", map[string]any{"inRecycleBin": true, "itemType": "image"}, []string{binnedImg}},
		{"inRecycleBin and folderId", map[string]any{"inRecycleBin": true, "folderId": folder}, []string{binned}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, first := range []int{1, 100} {
				got := listAll(t, a, first, c.filter, "")
				if !slices.Equal(got, c.want) {
					t.Fatalf("first %d: ids\n got %v\nwant %v", first, got, c.want)
				}
			}
		})
	}
}

func TestItemsRefusesBadPaging(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := createItem(t, a, map[string]any{"title": "x", "itemType": "video"}).ID
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

	cases := []struct {
		name    string
		vars    map[string]any
		message string // "" when the page is served
	}{
		{"first 0", map[string]any{"first": 0}, "first must be between 1 and 100"},
		{"first 101", map[string]any{"first": 101}, "first must be between 1 and 100"},
		{"first -1", map[string]any{"first": -1}, "first must be between 1 and 100"},
		{"first 1", map[string]any{"first": 1}, ""},
		{"first 100", map[string]any{"first": 100}, ""},
		{"cursor not base64", map[string]any{"after": "!!not base64!!"}, "invalid cursor"},
		{"cursor of no id", map[string]any{"after": b64("not-a-uuid")}, "invalid cursor"},
		{"cursor of a longer string, padded", map[string]any{"after": base64.URLEncoding.EncodeToString([]byte(id + "x"))}, "invalid cursor"},
		{"cursor of an item", map[string]any{"after": b64(id)}, ""},
		{"cursor of a missing id", map[string]any{"after": b64(missingID)}, ""},
		{"empty cursor", map[string]any{"after": ""}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.GraphQL(t, itemsQuery, c.vars)
			if c.message == "" {
				r.OK(nil)
				return
			}
			if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
		})
	}
}

// nodeRef is what node and nodes answer for one id.
type nodeRef struct {
	Typename   string `json:"__typename"`
	ID         string `json:"id"`
	Title      string `json:"title"`
	Name       string `json:"name"`
	ActionType string `json:"actionType"`
	ItemID     string `json:"itemId"`
}

const nodeFields = `__typename id
... on Item { title }
... on Folder { name }
... on AuditRecord { actionType itemId }`

func TestNodeAnswersEachKindAndNullForTheRest(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	folder := createItem(t, a, map[string]any{"title": "Shoot", "itemType": "folder"}).ID
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{folder}}).ID
	deleted := createItem(t, a, map[string]any{"title": "Gone", "itemType": "video"}).ID
	mutateID(t, a, "deleteItem", deleted, "id").OK(nil)
	deletedFolder := createItem(t, a, map[string]any{"title": "Gone folder", "itemType": "folder"}).ID
	mutateID(t, a, "deleteItem", deletedFolder, "id").OK(nil)
	foreignItem := createItem(t, b, map[string]any{"title": "B's", "itemType": "video"}).ID
	foreignFolder := createItem(t, b, map[string]any{"title": "B's folder", "itemType": "folder"}).ID
	record := auditRecordID(t, a, item, "create")
	foreignRecord := auditRecordID(t, b, foreignItem, "create")

	cases := []struct {
		name string
		id   string
		want *nodeRef
	}{
		{"item", item, &nodeRef{Typename: "Item", ID: item, Title: "Clip"}},
		{"folder", folder, &nodeRef{Typename: "Folder", ID: folder, Name: "Shoot"}},
		{"archive folder", a.ArchiveFolderID, &nodeRef{Typename: "Folder", ID: a.ArchiveFolderID, Name: "Archive"}},
		{"audit record", record, &nodeRef{Typename: "AuditRecord", ID: record, ActionType: "create", ItemID: item}},
		{"audit record of a deleted item", auditRecordID(t, a, deleted, "delete"),
			&nodeRef{Typename: "AuditRecord", ID: auditRecordID(t, a, deleted, "delete"), ActionType: "delete", ItemID: deleted}},
		{"deleted item", deleted, nil},
		{"deleted folder", deletedFolder, nil},
		{"missing", missingID, nil},
		{"malformed", "not-a-uuid", nil},
		{"another tenant's item", foreignItem, nil},
		{"another tenant's folder", foreignFolder, nil},
		{"another tenant's archive folder", b.ArchiveFolderID, nil},
		{"another tenant's audit record", foreignRecord, nil},
		{"a user id", a.UserID, nil},
		{"a tenant id", a.TenantID, nil},
	}
	for _, c := range cases {
		t.Run("node "+c.name, func(t *testing.T) {
			var out struct{ Node *nodeRef }
			a.GraphQL(t, `query($id: ID!) { node(id: $id) { `+nodeFields+` } }`, map[string]any{"id": c.id}).OK(&out)
			if !equalRef(out.Node, c.want) {
				t.Fatalf("node(%s) = %+v, want %+v", c.id, out.Node, c.want)
			}
		})
	}
	t.Run("nodes in the order asked", func(t *testing.T) {
		ids := make([]string, 0, 2*len(cases))
		var want []*nodeRef
		for _, c := range cases {
			ids = append(ids, c.id)
			want = append(want, c.want)
		}
		// Each again, backwards: order and repeats are kept.
		for i := len(cases) - 1; i >= 0; i-- {
			ids = append(ids, cases[i].id)
			want = append(want, cases[i].want)
		}
		var out struct{ Nodes []*nodeRef }
		a.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { `+nodeFields+` } }`, map[string]any{"ids": ids}).OK(&out)
		if len(out.Nodes) != len(want) {
			t.Fatalf("nodes answered %d entries for %d ids", len(out.Nodes), len(ids))
		}
		for i := range want {
			if !equalRef(out.Nodes[i], want[i]) {
				t.Errorf("nodes[%d] (%s) = %+v, want %+v", i, ids[i], out.Nodes[i], want[i])
			}
		}
	})
	t.Run("nodes of nothing", func(t *testing.T) {
		var out struct{ Nodes []*nodeRef }
		a.GraphQL(t, `{ nodes(ids: []) { id } }`, nil).OK(&out)
		if out.Nodes == nil || len(out.Nodes) != 0 {
			t.Fatalf("nodes(ids: []) = %v, want []", out.Nodes)
		}
	})
}

func equalRef(got, want *nodeRef) bool {
	if got == nil || want == nil {
		return got == want
	}
	return *got == *want
}

// auditRecordID returns the id of an item's newest audit record of action.
func auditRecordID(t *testing.T, c *loupetest.Client, itemID, action string) string {
	t.Helper()
	var out struct {
		ItemAnalytics struct {
			Hits []struct{ ID string } `json:"hits"`
		} `json:"itemAnalytics"`
	}
	c.GraphQL(t, `query($id: ID, $a: AuditAction) { itemAnalytics(filter: {itemId: $id, actionType: $a}) { hits { id } } }`,
		map[string]any{"id": itemID, "a": action}).OK(&out)
	if len(out.ItemAnalytics.Hits) == 0 {
		t.Fatalf("no %s audit record for %s", action, itemID)
	}
	return out.ItemAnalytics.Hits[0].ID
}

type auditHit struct {
	ID         string `json:"id"`
	ItemID     string `json:"itemId"`
	TenantID   string `json:"tenantId"`
	ActionType string `json:"actionType"`
	ExecutedBy string `json:"executedBy"`
	ExecutedOn string `json:"executedOn"`
	Email      string `json:"email"`
	ItemTitle  string `json:"itemTitle"`
}

type auditResult struct {
	ItemAnalytics struct {
		Total int        `json:"total"`
		Hits  []auditHit `json:"hits"`
	} `json:"itemAnalytics"`
}

const analyticsQuery = `query($filter: AuditFilter, $from: Int, $size: Int) {
  itemAnalytics(filter: $filter, from: $from, size: $size) {
    total
    hits { id itemId tenantId actionType executedBy executedOn email itemTitle }
  }
}`

// pause makes sure the clock moves on, so that a time taken between two
// writes falls strictly between their audit timestamps.
func pause() time.Time {
	time.Sleep(3 * time.Millisecond)
	at := time.Now().UTC()
	time.Sleep(3 * time.Millisecond)
	return at
}

func TestItemAnalyticsFiltersAndPages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	editor := a.User(t, "editor@a.test", []string{"news"}, false)

	start := pause()
	x := createItem(t, a, map[string]any{"title": "X", "itemType": "video"}).ID
	y := createItem(t, a, map[string]any{"title": "Y", "itemType": "video"}).ID
	mid := pause()
	mutateID(t, a, "deleteItem", x, "id").OK(nil)
	mutateID(t, a, "undeleteItem", x, "id").OK(nil)
	mutateID(t, a, "toggleArchive", y, "type").OK(nil)
	z := createItem(t, editor, map[string]any{"title": "Z", "itemType": "image"}).ID
	end := pause()
	createItem(t, b, map[string]any{"title": "B's", "itemType": "video"})

	type rec struct{ action, item string }
	// Everything tenant a did, newest first.
	all := []rec{{"create", z}, {"archiveInitiated", y}, {"undelete", x}, {"delete", x}, {"create", y}, {"create", x}}
	ts := func(at time.Time) string { return at.Format(time.RFC3339Nano) }

	cases := []struct {
		name   string
		filter map[string]any
		want   []rec
	}{
		{"no filter", nil, all},
		{"itemId", map[string]any{"itemId": x}, []rec{{"undelete", x}, {"delete", x}, {"create", x}}},
		{"itemId missing", map[string]any{"itemId": missingID}, nil},
		{"itemId malformed", map[string]any{"itemId": "nope"}, nil},
		{"actionType create", map[string]any{"actionType": "create"}, []rec{{"create", z}, {"create", y}, {"create", x}}},
		{"actionType archiveInitiated", map[string]any{"actionType": "archiveInitiated"}, []rec{{"archiveInitiated", y}}},
		{"actionType nobody did", map[string]any{"actionType": "unarchiveInitiated"}, nil},
		{"itemId and actionType", map[string]any{"itemId": x, "actionType": "delete"}, []rec{{"delete", x}}},
		{"executedBy editor", map[string]any{"executedBy": editor.UserID}, []rec{{"create", z}}},
		{"executedBy admin", map[string]any{"executedBy": a.UserID}, all[1:]},
		{"since start", map[string]any{"since": ts(start)}, all},
		{"since mid", map[string]any{"since": ts(mid)}, all[:4]},
		{"until mid", map[string]any{"until": ts(mid)}, all[4:]},
		{"since start until mid", map[string]any{"since": ts(start), "until": ts(mid)}, all[4:]},
		{"since mid until end", map[string]any{"since": ts(mid), "until": ts(end)}, all[:4]},
		{"since end", map[string]any{"since": ts(end)}, nil},
		{"since mid with an offset", map[string]any{"since": mid.In(time.FixedZone("x", 2*3600)).Format(time.RFC3339Nano)}, all[:4]},
		{"since mid, create only", map[string]any{"since": ts(mid), "actionType": "create"}, []rec{{"create", z}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out auditResult
			a.GraphQL(t, analyticsQuery, map[string]any{"filter": c.filter}).OK(&out)
			got := make([]rec, len(out.ItemAnalytics.Hits))
			for i, h := range out.ItemAnalytics.Hits {
				got[i] = rec{h.ActionType, h.ItemID}
				if h.TenantID != a.TenantID || h.ID == "" {
					t.Fatalf("hit %+v is not tenant a's", h)
				}
			}
			if !slices.Equal(got, c.want) || out.ItemAnalytics.Total != len(c.want) {
				t.Fatalf("hits %v (total %d), want %v", got, out.ItemAnalytics.Total, c.want)
			}
		})
	}

	t.Run("hit fields", func(t *testing.T) {
		var out auditResult
		a.GraphQL(t, analyticsQuery, map[string]any{"filter": map[string]any{"itemId": z}}).OK(&out)
		h := out.ItemAnalytics.Hits[0]
		on, err := time.Parse(time.RFC3339, h.ExecutedOn)
		if h.ExecutedBy != editor.UserID || h.Email != "editor@a.test" || h.ItemTitle != "Z" || err != nil ||
			on.Before(mid.Truncate(time.Millisecond)) || on.After(end) {
			t.Fatalf("hit = %+v", h)
		}
	})

	t.Run("from and size page", func(t *testing.T) {
		for _, p := range []struct{ from, size, lo, hi int }{
			{0, 2, 0, 2}, {2, 2, 2, 4}, {4, 2, 4, 6}, {5, 50, 5, 6}, {6, 2, 6, 6}, {100, 1, 6, 6}, {0, 1000, 0, 6},
		} {
			var out auditResult
			a.GraphQL(t, analyticsQuery, map[string]any{"from": p.from, "size": p.size}).OK(&out)
			var got []rec
			for _, h := range out.ItemAnalytics.Hits {
				got = append(got, rec{h.ActionType, h.ItemID})
			}
			if want := all[p.lo:p.hi]; !slices.Equal(got, want) || out.ItemAnalytics.Total != len(all) {
				t.Fatalf("from %d size %d: hits %v (total %d), want %v (total %d)", p.from, p.size, got, out.ItemAnalytics.Total, want, len(all))
			}
		}
	})

	t.Run("bad paging and filters", func(t *testing.T) {
		for _, c := range []struct {
			name    string
			vars    map[string]any
			code    string
			message string
		}{
			{"size 0", map[string]any{"size": 0}, "BAD_USER_INPUT", "size must be between 1 and 1000"},
			{"size 1001", map[string]any{"size": 1001}, "BAD_USER_INPUT", "size must be between 1 and 1000"},
			{"from -1", map[string]any{"from": -1}, "BAD_USER_INPUT", "from must not be negative"},
			{"since not before until", map[string]any{"filter": map[string]any{"since": ts(mid), "until": ts(mid)}},
				"BAD_USER_INPUT", "since must be before until"},
			{"since not a time", map[string]any{"filter": map[string]any{"since": "yesterday"}},
				"BAD_USER_INPUT", "filter.since: must be an RFC 3339 timestamp such as 2026-01-31T12:00:00Z"},
			// AuditAction is an enum of the schema: the value is refused
			// while the variables are checked, before any resolver runs.
			{"unknown actionType", map[string]any{"filter": map[string]any{"actionType": "rename"}},
				"GRAPHQL_VALIDATION_FAILED", "rename is not a valid AuditAction"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := a.GraphQL(t, analyticsQuery, c.vars)
				if msg := wantError(t, r, c.code, 400); msg != c.message {
					t.Fatalf("message %q, want %q", msg, c.message)
				}
				// null when a resolver refused it, absent when the
				// variables were (docs/graphql-over-http.md).
				if len(r.Data) != 0 && string(r.Data) != "null" {
					t.Fatalf("data = %s, want none", r.Data)
				}
			})
		}
	})

	t.Run("another tenant sees none of it", func(t *testing.T) {
		var out auditResult
		b.GraphQL(t, analyticsQuery, map[string]any{"filter": map[string]any{"itemId": x}}).OK(&out)
		if out.ItemAnalytics.Total != 0 || len(out.ItemAnalytics.Hits) != 0 {
			t.Fatalf("tenant b sees %+v", out.ItemAnalytics)
		}
		b.GraphQL(t, analyticsQuery, nil).OK(&out)
		if out.ItemAnalytics.Total != 1 || out.ItemAnalytics.Hits[0].TenantID != b.TenantID {
			t.Fatalf("tenant b's own records: %+v", out.ItemAnalytics)
		}
	})
}

func TestViewerIsTheCaller(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "editor@a.test", []string{"news", "archive"}, false)
	b := api.Tenant(t, "b")

	type viewer struct {
		ID       string   `json:"id"`
		Email    string   `json:"email"`
		TenantID string   `json:"tenantId"`
		IsAdmin  bool     `json:"isAdmin"`
		Groups   []string `json:"groups"`
	}
	cases := []struct {
		name   string
		client *loupetest.Client
		want   viewer
	}{
		{"tenant admin", a, viewer{a.UserID, "admin@a.test", a.TenantID, true, []string{}}},
		{"user with groups", editor, viewer{editor.UserID, "editor@a.test", a.TenantID, false, []string{"archive", "news"}}},
		{"another tenant's admin", b, viewer{b.UserID, "admin@b.test", b.TenantID, true, []string{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out struct{ Viewer viewer }
			c.client.GraphQL(t, `{ viewer { id email tenantId isAdmin groups } }`, nil).OK(&out)
			got := out.Viewer
			if got.ID != c.want.ID || got.Email != c.want.Email || got.TenantID != c.want.TenantID ||
				got.IsAdmin != c.want.IsAdmin || got.Groups == nil || !slices.Equal(got.Groups, c.want.Groups) {
				t.Fatalf("viewer = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestGraphQLWithoutAValidKeyIsUnauthenticated(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	// A well-formed key the server never issued.
	unknown := "loupe." + strings.Repeat("ab", 16) + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	// Tenant a's key id with another secret.
	wrongSecret := a.Key[:strings.LastIndex(a.Key, ".")+1] + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	items := api.Count(t, `SELECT count(*) FROM items`)

	cases := []struct {
		name   string
		client *loupetest.Client
	}{
		{"no key", api.Anonymous()},
		{"malformed key", api.WithKey("hello")},
		{"unknown key", api.WithKey(unknown)},
		{"wrong secret", api.WithKey(wrongSecret)},
	}
	for _, c := range cases {
		for _, q := range []string{
			`{ viewer { id } }`,
			`mutation { createItem(input: {title: "x", itemType: "video"}) { item { id } } }`,
		} {
			t.Run(c.name, func(t *testing.T) {
				r := c.client.Post(t, "/graphql", map[string]any{"query": q}).Status(http.StatusUnauthorized)
				var body struct {
					Data   json.RawMessage `json:"data"`
					Errors []struct {
						Message    string         `json:"message"`
						Extensions map[string]any `json:"extensions"`
					} `json:"errors"`
				}
				r.JSON(&body)
				if len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "UNAUTHENTICATED" ||
					body.Errors[0].Extensions["statusCode"] != 401.0 || body.Errors[0].Message != loupe.MsgUnauthenticated ||
					body.Data != nil { // no data entry: nothing ran
					t.Fatalf("answer: %s", r.Body)
				}
			})
		}
	}
	if got := api.Count(t, `SELECT count(*) FROM items`); got != items {
		t.Fatalf("items: %d after unauthenticated mutations, want %d", got, items)
	}
}
