package resolvers_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const settingsFields = `bookmarks bookmarksFolders defaultFilters dismissedNotifications lastSeenChangelogId
showRenameSubclipDialog showSequenceParts language theme subtitlePreference showPopups pinnedItems workFolderId`

func jsonEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
}

func TestGraphQLUserSettings(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	other := a.User(t, "other@a.test", nil, false)
	folder := createItem(t, a, map[string]any{"title": "Work", "itemType": "folder"}).ID

	var read struct {
		Viewer struct {
			Settings json.RawMessage `json:"settings"`
		} `json:"viewer"`
	}
	a.GraphQL(t, `{ viewer { settings { `+settingsFields+` } } }`, nil).OK(&read)
	jsonEqual(t, "defaults", read.Viewer.Settings, `{"bookmarks":[],"bookmarksFolders":[],"defaultFilters":[],
		"dismissedNotifications":{},"lastSeenChangelogId":"","showRenameSubclipDialog":true,"showSequenceParts":false,
		"language":"en","theme":"light","subtitlePreference":"off","showPopups":true,"pinnedItems":[],"workFolderId":""}`)

	const update = `mutation($in: JSON!) { updateUserSettings(input: $in) { ` + settingsFields + ` } }`
	var out struct {
		UpdateUserSettings json.RawMessage `json:"updateUserSettings"`
	}
	a.GraphQL(t, update, map[string]any{"in": map[string]any{"theme": "dark",
		"dismissedNotifications": map[string]any{"a": true}}}).OK(nil)
	a.GraphQL(t, update, map[string]any{"in": map[string]any{"workFolderId": folder, "pinnedItems": []any{"x"},
		"dismissedNotifications": map[string]any{"b": true}}}).OK(&out)
	jsonEqual(t, "merged", out.UpdateUserSettings, `{"bookmarks":[],"bookmarksFolders":[],"defaultFilters":[],
		"dismissedNotifications":{"a":true,"b":true},"lastSeenChangelogId":"","showRenameSubclipDialog":true,
		"showSequenceParts":false,"language":"en","theme":"dark","subtitlePreference":"off","showPopups":true,
		"pinnedItems":["x"],"workFolderId":"`+folder+`"}`)

	for _, c := range []struct {
		name    string
		in      any
		message string
	}{
		{"unknown key", map[string]any{"colour": "red"}, `unknown setting "colour"`},
		{"wrong type", map[string]any{"showPopups": 1}, "setting showPopups must be a boolean"},
		{"not an object", []any{1}, "user settings must be a JSON object"},
		{"not an object either", "dark", "user settings must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := a.GraphQL(t, update, map[string]any{"in": c.in})
			if msg := r.ErrorCode("BAD_USER_INPUT"); msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
		})
	}

	// Another user of the tenant keeps the defaults.
	other.GraphQL(t, `{ viewer { settings { theme dismissedNotifications workFolderId } } }`, nil).OK(&read)
	jsonEqual(t, "other user", read.Viewer.Settings, `{"theme":"light","dismissedNotifications":{},"workFolderId":""}`)
}

func TestGraphQLUserStatus(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var out struct {
		UserStatus struct {
			IsDeactivated *bool `json:"isDeactivated"`
		} `json:"userStatus"`
	}
	a.GraphQL(t, `{ userStatus { isDeactivated } }`, nil).OK(&out)
	if out.UserStatus.IsDeactivated == nil || *out.UserStatus.IsDeactivated {
		t.Fatalf("userStatus = %+v", out.UserStatus)
	}
}

type gqlPerson struct {
	Typename    string   `json:"__typename"`
	ID          string   `json:"id"`
	CreatedOn   string   `json:"createdOn"`
	ItemType    string   `json:"itemType"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	ImageIds    []string `json:"imageIds"`
}

const personFields = `__typename id createdOn itemType name description imageIds`

func createPerson(t *testing.T, c *loupetest.Client, input map[string]any) gqlPerson {
	t.Helper()
	var out struct {
		CreatePerson gqlPerson `json:"createPerson"`
	}
	c.GraphQL(t, `mutation($in: CreatePersonInput!) { createPerson(input: $in) { `+personFields+` } }`,
		map[string]any{"in": input}).OK(&out)
	return out.CreatePerson
}

func TestGraphQLPersons(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	img := createItem(t, a, map[string]any{"title": "Portrait", "itemType": "image"}).ID
	img2 := createItem(t, a, map[string]any{"title": "Still", "itemType": "image"}).ID
	foreign := createItem(t, b, map[string]any{"title": "B's", "itemType": "image"}).ID
	video := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	folder := createItem(t, a, map[string]any{"title": "F", "itemType": "folder"}).ID

	p := createPerson(t, a, map[string]any{"name": "Ada", "description": "Mathematician", "imageIds": []string{img, img2}})
	if p.Typename != "Person" || p.ItemType != "person" || p.Name != "Ada" || p.Description != "Mathematician" ||
		!reflect.DeepEqual(p.ImageIds, []string{img, img2}) || !strings.HasSuffix(p.CreatedOn, "Z") {
		t.Fatalf("createPerson = %+v", p)
	}

	t.Run("node answers a Person", func(t *testing.T) {
		var out struct {
			Node *gqlPerson `json:"node"`
		}
		a.GraphQL(t, `query($id: ID!) { node(id: $id) { ... on Person { `+personFields+` } } }`,
			map[string]any{"id": p.ID}).OK(&out)
		if out.Node == nil || !reflect.DeepEqual(*out.Node, p) {
			t.Fatalf("node = %+v, want %+v", out.Node, p)
		}
		// Another tenant does not see it.
		b.GraphQL(t, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": p.ID}).OK(&out)
		if out.Node != nil {
			t.Fatalf("another tenant's node = %+v", out.Node)
		}
	})

	t.Run("nodes answer each type", func(t *testing.T) {
		var out struct {
			Nodes []*struct {
				Typename string `json:"__typename"`
				ID       string `json:"id"`
			} `json:"nodes"`
		}
		ids := []string{p.ID, video, folder, foreign}
		a.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, map[string]any{"ids": ids}).OK(&out)
		want := []string{"Person", "Item", "Folder"}
		if len(out.Nodes) != 4 || out.Nodes[3] != nil {
			t.Fatalf("nodes = %+v", out.Nodes)
		}
		for i, w := range want {
			if out.Nodes[i] == nil || out.Nodes[i].Typename != w || out.Nodes[i].ID != ids[i] {
				t.Fatalf("nodes[%d] = %+v, want a %s", i, out.Nodes[i], w)
			}
		}
	})

	t.Run("an image in the recycle bin drops out", func(t *testing.T) {
		a.Delete(t, "/api/v1/items/"+img).Status(200)
		var out struct {
			Node *gqlPerson `json:"node"`
		}
		a.GraphQL(t, `query($id: ID!) { node(id: $id) { ... on Person { imageIds } } }`, map[string]any{"id": p.ID}).OK(&out)
		if out.Node == nil || !reflect.DeepEqual(out.Node.ImageIds, []string{img2}) {
			t.Fatalf("imageIds = %+v, want [%s]", out.Node, img2)
		}
	})

	t.Run("nodes of persons cost the same statements for one or many", func(t *testing.T) {
		persons := []string{p.ID}
		for range 5 {
			persons = append(persons, createPerson(t, a, map[string]any{"name": "P", "imageIds": []string{img2}}).ID)
		}
		counts := map[int]int64{}
		for _, n := range []int{1, 6} {
			ids := append(append([]string{}, persons[:n]...), video, folder)
			api.Statements.Reset()
			var out struct {
				Nodes []*gqlPerson `json:"nodes"`
			}
			a.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Person { `+personFields+` } } }`,
				map[string]any{"ids": ids}).OK(&out)
			counts[n] = api.Statements.Count()
			for i := range n {
				if out.Nodes[i] == nil || out.Nodes[i].ID != persons[i] {
					t.Fatalf("nodes[%d] = %+v", i, out.Nodes[i])
				}
			}
		}
		if counts[1] != counts[6] || counts[6] > 5 {
			t.Fatalf("statements for 1 and 6 persons: %v, want the same and at most 5", counts)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, c := range []struct {
			in      map[string]any
			message string
		}{
			{map[string]any{"name": ""}, "name is required"},
			{map[string]any{"name": "P", "imageIds": []string{foreign}}, "imageIds: item " + foreign + " does not exist"},
		} {
			r := a.GraphQL(t, `mutation($in: CreatePersonInput!) { createPerson(input: $in) { id } }`, map[string]any{"in": c.in})
			if msg := r.ErrorCode("BAD_USER_INPUT"); msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
		}
	})
}
