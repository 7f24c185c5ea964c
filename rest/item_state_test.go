package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const notFound = "The server can not find requested resource."

func TestVersions(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	var latest struct {
		ID string `json:"id"`
	}
	a.Get(t, "/api/v1/items/"+id+"/version").Status(200).JSON(&latest)
	type version struct {
		ID               string `json:"id"`
		VersionCreatedOn string `json:"versionCreatedOn"`
		VersionState     string `json:"versionState"`
		Name             string `json:"name"`
	}
	var hist struct {
		Versions []version `json:"versions"`
	}
	a.Get(t, "/api/v1/items/"+id+"/versionsHistory").Status(200).JSON(&hist)
	if len(hist.Versions) != 1 || hist.Versions[0].ID != latest.ID || hist.Versions[0].VersionState != "EXISTS" ||
		hist.Versions[0].Name != "Version 1" || !strings.HasSuffix(hist.Versions[0].VersionCreatedOn, "Z") {
		t.Fatalf("history = %+v, latest %s", hist.Versions, latest.ID)
	}
	a.Put(t, "/api/v1/items/"+id+"/versionsHistory", map[string]any{"versionId": latest.ID, "name": "Director's cut"}).
		Status(200).JSON(&hist)
	if hist.Versions[0].Name != "Director's cut" {
		t.Fatalf("after rename: %+v", hist.Versions)
	}
	a.Put(t, "/api/v1/items/"+id+"/versionsHistory", map[string]any{"versionId": latest.ID, "name": "  "}).
		Envelope(400, "name must be 1 to 256 characters")
	a.Put(t, "/api/v1/items/"+id+"/versionsHistory", map[string]any{"versionId": "01a20242-9dca-771b-bd4e-ca31c13a56ec", "name": "x"}).
		Envelope(404, notFound)
	a.Put(t, "/api/v1/items/"+id+"/versionsHistory", map[string]any{"name": "x"}).Envelope(400, "")

	b := api.Tenant(t, "b")
	b.Get(t, "/api/v1/items/"+id+"/version").Envelope(404, notFound)
	b.Get(t, "/api/v1/items/"+id+"/versionsHistory").Envelope(404, notFound)
	b.Put(t, "/api/v1/items/"+id+"/versionsHistory", map[string]any{"versionId": latest.ID, "name": "theirs"}).Envelope(404, notFound)
	a.Get(t, "/api/v1/items/"+id+"/versionsHistory").JSON(&hist)
	if hist.Versions[0].Name != "Director's cut" {
		t.Fatalf("another tenant renamed the version: %+v", hist.Versions)
	}
}

func TestUploadLock(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	path := "/api/v1/items/" + id + "/upload"
	locked := func() any { return a.Get(t, path).Status(200).Object()["isUploadLocked"] }

	if locked() != false {
		t.Fatal("a new item is upload-locked")
	}
	a.GraphQL(t, `mutation($id: ID!) { lockUpload(input: {id: $id, ownerInstanceId: "uploader-7"}) { isUploadLocked } }`,
		map[string]any{"id": id}).OK(nil)
	if locked() != true {
		t.Fatal("lockUpload did not lock")
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["uploadLockOwnerInstanceId"] != "uploader-7" {
		t.Fatalf("uploadLockOwnerInstanceId = %v", it["uploadLockOwnerInstanceId"])
	}
	api.Tenant(t, "b").Delete(t, path).Envelope(404, notFound)
	if locked() != true {
		t.Fatal("another tenant released the lock")
	}
	if got := a.Delete(t, path).Status(200).Object(); got["isUploadLocked"] != false {
		t.Fatalf("DELETE answered %v", got)
	}
	if locked() != false {
		t.Fatal("DELETE did not release the lock")
	}
	a.Delete(t, "/api/v1/items/01a20242-9dca-771b-bd4e-ca31c13a56ec/upload").Envelope(404, notFound)
	a.Get(t, "/api/v1/items/01a20242-9dca-771b-bd4e-ca31c13a56ec/upload").Envelope(404, notFound)
}

func TestMediaUsageAndLocation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	var usage struct {
		ItemID     string `json:"itemId"`
		MediaUsage struct {
			LastUsedOn       string `json:"lastUsedOn"`
			LastUsedWorkflow string `json:"lastUsedWorkflow"`
		} `json:"mediaUsage"`
	}
	before := time.Now().UTC().Add(-time.Second)
	a.Post(t, "/api/v1/items/"+id+"/mediaUsage", map[string]any{"lastUsedWorkflow": "news-edit"}).Status(200).JSON(&usage)
	used, err := time.Parse(time.RFC3339, usage.MediaUsage.LastUsedOn)
	if usage.ItemID != id || usage.MediaUsage.LastUsedWorkflow != "news-edit" || err != nil || used.Before(before) {
		t.Fatalf("media usage = %+v (%v)", usage, err)
	}
	a.Post(t, "/api/v1/items/"+id+"/mediaUsage", map[string]any{"lastUsedWorkflow": "archive", "lastUsedOn": "2026-01-02T03:04:05Z"}).
		Status(200).JSON(&usage)
	if usage.MediaUsage.LastUsedOn != "2026-01-02T03:04:05.000Z" {
		t.Fatalf("lastUsedOn = %s", usage.MediaUsage.LastUsedOn)
	}
	var g struct {
		Item struct {
			MediaUsage struct{ LastUsedWorkflow string } `json:"mediaUsage"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaUsage { lastUsedWorkflow } } }`, map[string]any{"id": id}).OK(&g)
	if g.Item.MediaUsage.LastUsedWorkflow != "archive" {
		t.Fatalf("GraphQL mediaUsage = %+v", g.Item.MediaUsage)
	}
	a.Post(t, "/api/v1/items/"+id+"/mediaUsage", map[string]any{"lastUsedWorkflow": " "}).
		Envelope(400, "lastUsedWorkflow must be 1 to 256 characters")
	api.Tenant(t, "b").Post(t, "/api/v1/items/"+id+"/mediaUsage", map[string]any{"lastUsedWorkflow": "x"}).Envelope(404, notFound)

	// migrateMediaLocation moves real files: media_migration_test.go. An
	// item without an original, another tenant's item, a bad location.
	// The spec's only condition is that the item exists: one without media
	// has nothing to move, and is told so.
	sameJSON(t, "migrate without media", a.Post(t, "/api/v1/items/"+id+"/migrateMediaLocation", map[string]any{}).
		Status(200).Object(), map[string]any{"message": "The item has no media: there is nothing to migrate.", "statusCode": 200})
	a.Post(t, "/api/v1/items/"+id+"/migrateMediaLocation", map[string]any{"storageLocationId": 5}).Status(400)
	api.Tenant(t, "c").Post(t, "/api/v1/items/"+id+"/migrateMediaLocation", map[string]any{}).Envelope(404, notFound)
}

func TestItemsByExternalID(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	x := a.CreateItem(t, map[string]any{"title": "X", "itemType": "video", "externalId": "ext-x"})
	binned := a.CreateItem(t, map[string]any{"title": "B", "itemType": "video", "externalId": "ext-binned"})
	a.Delete(t, "/api/v1/items/"+binned).Status(200)
	b.CreateItem(t, map[string]any{"title": "Theirs", "itemType": "video", "externalId": "ext-b"})

	var res struct {
		Items []struct {
			Status     string  `json:"status"`
			ItemID     *string `json:"itemId"`
			ExternalID string  `json:"externalId"`
		} `json:"items"`
	}
	a.Get(t, "/api/v1/itemsByExternalId?externalIds=ext-missing,ext-x&externalId=ext-b&externalId=ext-binned").Status(200).JSON(&res)
	if len(res.Items) != 4 {
		t.Fatalf("%d results, want 4: %+v", len(res.Items), res.Items)
	}
	want := []struct {
		ext, status string
		id          *string
	}{{"ext-missing", "notFound", nil}, {"ext-x", "success", &x}, {"ext-b", "notFound", nil}, {"ext-binned", "notFound", nil}}
	for i, w := range want {
		got := res.Items[i]
		if got.ExternalID != w.ext || got.Status != w.status || (w.id == nil) != (got.ItemID == nil) || (w.id != nil && *got.ItemID != *w.id) {
			t.Fatalf("result %d = %+v, want %+v", i, got, w)
		}
	}
	a.Get(t, "/api/v1/itemsByExternalId").Envelope(400, "query parameter externalIds is required")
	a.Get(t, "/api/v1/itemsByExternalId?externalIds="+strings.Repeat("e,", 101)+"e").Envelope(400, "give 1 to 100 external ids")
}

func TestAncestry(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := a.CreateItem(t, map[string]any{"title": "Projects", "itemType": "folder"})
	mid := a.CreateItem(t, map[string]any{"title": "2026", "itemType": "folder", "folderParents": []string{top}})
	leaf := a.CreateItem(t, map[string]any{"title": "Promo", "itemType": "folder", "folderParents": []string{mid}})
	other := a.CreateItem(t, map[string]any{"title": "Inbox", "itemType": "folder"})
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{leaf, other}})
	loose := a.CreateItem(t, map[string]any{"title": "Loose", "itemType": "video"})

	type step struct{ ID, Name string }
	var paths [][]step
	a.Get(t, "/api/v1/items/"+id+"/ancestry").Status(200).JSON(&paths)
	if len(paths) != 2 || len(paths[0]) != 3 || len(paths[1]) != 1 {
		t.Fatalf("ancestry = %+v", paths)
	}
	if paths[0][0] != (step{top, "Projects"}) || paths[0][1] != (step{mid, "2026"}) || paths[0][2] != (step{leaf, "Promo"}) ||
		paths[1][0] != (step{other, "Inbox"}) {
		t.Fatalf("ancestry = %+v", paths)
	}
	a.Get(t, "/api/v1/items/"+loose+"/ancestry").Status(200).JSON(&paths)
	if len(paths) != 0 {
		t.Fatalf("loose item ancestry = %+v", paths)
	}
	// A deleted folder drops out of the paths.
	a.Delete(t, "/api/v1/items/"+other).Status(200)
	a.Get(t, "/api/v1/items/"+id+"/ancestry").Status(200).JSON(&paths)
	if len(paths) != 1 || len(paths[0]) != 3 {
		t.Fatalf("ancestry after deleting a folder = %+v", paths)
	}
	api.Tenant(t, "b").Get(t, "/api/v1/items/"+id+"/ancestry").Envelope(404, notFound)
}
