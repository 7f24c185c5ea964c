package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of spec 2.17.
var personKeys = strings.Fields(`id createdOn itemType name description imageIds`)

func TestCreatePersonAnswersThePersonRecord(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	img1 := a.CreateItem(t, map[string]any{"title": "Portrait", "itemType": "image"})
	img2 := a.CreateItem(t, map[string]any{"title": "Still", "itemType": "video"})

	cases := []struct {
		name                string
		body                map[string]any
		wantName, wantDesc  string
		wantImages          []any
		wantFormDescription any
	}{
		{"all fields", map[string]any{"name": "  Ada Lovelace ", "description": "Mathematician",
			"imageIds": []string{img2, strings.ToUpper(img1)}},
			"Ada Lovelace", "Mathematician", []any{img2, img1}, "Mathematician"},
		{"name only", map[string]any{"name": "Grace Hopper"}, "Grace Hopper", "", []any{}, nil},
		{"empty image list", map[string]any{"name": "Alan", "imageIds": []string{}, "description": ""},
			"Alan", "", []any{}, nil},
		{"longest name", map[string]any{"name": strings.Repeat("é", 256)}, strings.Repeat("é", 256), "", []any{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := a.Post(t, "/api/v1/persons", c.body).Status(http.StatusOK).Object()
			sameKeys(t, "person", got, personKeys)
			id, _ := got["id"].(string)
			created, _ := got["createdOn"].(string)
			if len(id) != 36 || !strings.HasSuffix(created, "Z") || got["itemType"] != "person" ||
				got["name"] != c.wantName || got["description"] != c.wantDesc {
				t.Fatalf("person = %v", got)
			}
			sameJSON(t, "imageIds", got["imageIds"], c.wantImages)

			// The person is an item: the item record answers it.
			it := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()
			sameKeys(t, "item record", it, itemRecordKeys)
			fd := it["metadata"].(map[string]any)["formData"].(map[string]any)
			if it["itemType"] != "person" || it["title"] != c.wantName || it["createdOn"] != created ||
				it["createdBy"] != a.UserID || fd["default_title"] != c.wantName || fd["default_description"] != c.wantFormDescription {
				t.Fatalf("item record of the person = %v", it)
			}

			// Created like any item: one create record, in the same transaction.
			var res struct {
				Total int `json:"total"`
				Hits  []struct {
					ItemID, ActionType, ExecutedBy, ItemTitle string
					MdfDiff                                   map[string]any
				} `json:"hits"`
			}
			a.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?itemId="+id).Status(http.StatusOK).JSON(&res)
			if res.Total != 1 || len(res.Hits) != 1 || res.Hits[0].ActionType != "create" || res.Hits[0].ItemID != id ||
				res.Hits[0].ExecutedBy != a.UserID || res.Hits[0].ItemTitle != c.wantName || res.Hits[0].MdfDiff["newMdfId"] != "default" {
				t.Fatalf("audit of the person: %+v", res)
			}
		})
	}
}

func TestCreatePersonRejectsBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "image"})
	image := a.CreateItem(t, map[string]any{"title": "Portrait", "itemType": "image"})
	folder := a.CreateItem(t, map[string]any{"title": "Folder", "itemType": "folder"})
	binned := a.CreateItem(t, map[string]any{"title": "Old", "itemType": "image"})
	a.Delete(t, "/api/v1/items/"+binned).Status(http.StatusOK)
	person, _ := a.Post(t, "/api/v1/persons", map[string]any{"name": "P"}).Status(http.StatusOK).Object()["id"].(string)
	const missing = "0190a0a0-0000-7000-8000-000000000000"
	tooMany := make([]string, 101)
	for i := range tooMany {
		tooMany[i] = image
	}

	count := func() [3]int {
		return [3]int{api.Count(t, `SELECT count(*) FROM items`), api.Count(t, `SELECT count(*) FROM audit_records`),
			api.Count(t, `SELECT count(*) FROM person_images`)}
	}
	before := count()
	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"no name", map[string]any{"description": "x"}, "name: must be defined"},
		{"empty name", map[string]any{"name": ""}, "name is required"},
		{"blank name", map[string]any{"name": "   "}, "name is required"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 257)}, "name must be 1 to 256 characters"},
		{"name not a string", map[string]any{"name": []any{"x"}}, ""},
		// Not turned into "5" (graph/scalar reads String strictly).
		{"name a number", map[string]any{"name": 5}, "name: must be a string"},
		{"name a boolean", map[string]any{"name": true}, "name: cannot use bool as String"},
		{"description a number", map[string]any{"name": "P", "description": 1.5}, "description: must be a string"},
		{"description too long", map[string]any{"name": "P", "description": strings.Repeat("d", 10001)},
			"description is longer than 10000 characters"},
		{"image of another tenant", map[string]any{"name": "P", "imageIds": []string{image, foreign}},
			"imageIds: item " + foreign + " does not exist"},
		{"missing image", map[string]any{"name": "P", "imageIds": []string{missing}},
			"imageIds: item " + missing + " does not exist"},
		{"image id not an id", map[string]any{"name": "P", "imageIds": []string{"nope"}},
			"imageIds: item nope does not exist"},
		{"image in the recycle bin", map[string]any{"name": "P", "imageIds": []string{binned}},
			"imageIds: item " + binned + " does not exist"},
		{"folder as image", map[string]any{"name": "P", "imageIds": []string{folder}},
			"imageIds: item " + folder + " is a folder, not an image"},
		{"person as image", map[string]any{"name": "P", "imageIds": []string{person}},
			"imageIds: item " + person + " is a person, not an image"},
		{"image twice", map[string]any{"name": "P", "imageIds": []string{image, strings.ToUpper(image)}},
			"imageIds lists " + image + " twice"},
		{"too many images", map[string]any{"name": "P", "imageIds": tooMany}, "imageIds: a person has at most 100 images"},
		{"unknown key", map[string]any{"name": "P", "age": 3}, "age: unknown field"},
		{"body an array", []any{}, "the request body must be a JSON object"},
		{"body not JSON", "{", "The server could not understand the request due to invalid syntax."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := a.Post(t, "/api/v1/persons", c.body).Envelope(http.StatusBadRequest, c.message)
			if c.message == "" && !strings.HasPrefix(env["message"].(string), "name: ") {
				t.Fatalf("message %q does not name the field", env["message"])
			}
			if got := count(); got != before {
				t.Fatalf("items, audit records, person images = %v, want %v", got, before)
			}
		})
	}
}
