package resolvers_test

import (
	"fmt"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

func TestUpdateItemMetadataMutation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	it := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"})
	const m = `mutation($in: UpdateItemMetadataInput!) { updateItemMetadata(input: $in) {
		item { title metadataVersion metadata { formId formData(readableFields: true) } } } }`
	var out struct {
		UpdateItemMetadata struct {
			Item struct {
				Title           string
				MetadataVersion int
				Metadata        struct {
					FormID   string
					FormData map[string]any
				}
			}
		}
	}
	a.GraphQL(t, m, map[string]any{"in": map[string]any{"id": it.ID, "requiredMetadataVersion": 1,
		"metadataDelta": map[string]any{"formId": "default_video", "formData": map[string]any{"default_title": "Breaking"}}}}).OK(&out)
	got := out.UpdateItemMetadata.Item
	if got.Title != "Breaking" || got.MetadataVersion != 2 || got.Metadata.FormID != "default_video" || got.Metadata.FormData["Title"] != "Breaking" {
		t.Fatalf("after update: %+v", got)
	}
	r := a.GraphQL(t, m, map[string]any{"in": map[string]any{"id": it.ID, "requiredMetadataVersion": 1,
		"metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}}})
	if msg := r.ErrorCode("CONFLICT"); msg != "metadataVersion 1 is stale: the item is at version 2" {
		t.Fatalf("stale write: %q", msg)
	}
	if r.Errors[0].Extensions["statusCode"] != 409.0 {
		t.Fatalf("stale write statusCode %v", r.Errors[0].Extensions["statusCode"])
	}
	api.Tenant(t, "b").GraphQL(t, m, map[string]any{"in": map[string]any{"id": it.ID,
		"metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}}}).ErrorCode("NOT_FOUND")
}

func TestItemDetailsInGraphQL(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := createItem(t, a, map[string]any{"title": "Top", "itemType": "folder"})
	it := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{top.ID}})
	a.GraphQL(t, `mutation($id: ID!) {
		setCustomIcons(input: {itemId: $id, customIcons: {pos2: "star"}}) { customIcons { pos2 } }
		updateTimedMetadata(input: {itemId: $id, upsert: [{id: "s1", startMs: 0, endMs: 10, data: {formData: {a: 1}}}]}) { items { id } }
	}`, map[string]any{"id": it.ID}).OK(nil)

	var out struct {
		Item struct {
			CustomIcons   struct{ Pos2 string }
			TimedMetadata []struct {
				ID   string
				Data struct{ FormData map[string]any }
			}
			Version  struct{ ID, Name, VersionState string }
			Versions []struct{ ID string }
			Ancestry [][]struct{ ID, Name string }
		}
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) {
		customIcons { pos2 } timedMetadata { id data { formData } }
		version { id name versionState } versions { id } ancestry { id name } } }`, map[string]any{"id": it.ID}).OK(&out)
	got := out.Item
	if got.CustomIcons.Pos2 != "star" || len(got.TimedMetadata) != 1 || got.TimedMetadata[0].Data.FormData["a"] != 1.0 ||
		got.Version.Name != "Version 1" || got.Version.VersionState != "EXISTS" || len(got.Versions) != 1 ||
		got.Versions[0].ID != got.Version.ID || len(got.Ancestry) != 1 || got.Ancestry[0][0].Name != "Top" {
		t.Fatalf("item details = %+v", got)
	}
}

// A page of items with timed metadata, versions and ancestry costs the same
// statements whatever its size.
func TestItemDetailsPageIsBatched(t *testing.T) {
	cost := map[int]int64{}
	for _, n := range []int{3, 30} {
		api := loupetest.New(t)
		a := api.Tenant(t, "a")
		top := createItem(t, a, map[string]any{"title": "Top", "itemType": "folder"})
		sub := createItem(t, a, map[string]any{"title": "Sub", "itemType": "folder", "folderParents": []string{top.ID}})
		for i := range n {
			createItem(t, a, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video", "folderParents": []string{sub.ID}})
		}
		api.Statements.Reset()
		var out struct {
			Items struct {
				Nodes []struct {
					Ancestry [][]struct{ Name string }
				}
			}
		}
		a.GraphQL(t, fmt.Sprintf(`{ items(first: %d, filter: {itemType: "video"}) { nodes {
			timedMetadata { id } versions { id } version { id } ancestry { name } } } }`, n), nil).OK(&out)
		cost[n] = api.Statements.Count()
		if len(out.Items.Nodes) != n || len(out.Items.Nodes[0].Ancestry) != 1 || len(out.Items.Nodes[0].Ancestry[0]) != 2 {
			t.Fatalf("%d items: %+v", n, out.Items.Nodes)
		}
	}
	if cost[3] != cost[30] || cost[3] > 5 {
		t.Fatalf("statements for 3 and 30 items: %d and %d; want equal and at most 5 (auth, page, timed metadata, versions, ancestry)", cost[3], cost[30])
	}
}
