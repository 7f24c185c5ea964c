package rest_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of spec 2.1, group by group.
var itemRecordKeys = strings.Fields(`
id title originalFileName createdBy createdOn modifiedOn mediaCreatedOn itemType mediaType mediaSize frameCount
metadata metadataVersion technicalMetadata geoLocation customIcons
folderParents hasRelations hasArchiveRelation ancestryLink attachments
itemState transcodingState transcodingBy transcodingService progressInfo transcriptionState transcriptionProgress
transcriptionBy transcriptionService transcriptionChannels transcriptionEnabled
translationBy translationEnabled translationLanguage transcriptLastUpdated transcriptOffsetMs languageCode
celebrityDetectionEnabled labelDetectionEnabled personDetectionEnabled textDetectionEnabled createUnknownPersons detectedPersons
proxy proxySize hasProxy highRes hasExternalHighres editProxyFormat webProxyLocation proxyAudioTrackUrls thumbnail
thumbnailInfo thumbnailStrip generatedContentLocation sourceFileLocation
vttUrl srtUrl translationVttUrl translationSrtUrl timedTranscriptUrl timedTranslatedTranscriptUrl
ingestDestinationPath ingestSkipProcessing ingestSourceFullPath ingestSourceKey ingestSourceObjBucket
ingestSourceStorageId isExternalUpload uploadLockOwnerInstanceId uploadProgressInfo uploadRequestedAt`)

// The keys of spec 2.2.
var itemCreateKeys = strings.Fields(`id folderParents celebrityDetectionEnabled labelDetectionEnabled
transcriptionEnabled itemType metadata metadataVersion createdBy languageCode`)

func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sameKeys(t *testing.T, what string, got map[string]any, want []string) {
	t.Helper()
	w := slices.Clone(want)
	sort.Strings(w)
	if g := keysOf(got); !slices.Equal(g, w) {
		t.Fatalf("%s keys:\n got %v\nwant %v", what, g, w)
	}
}

func TestCreateItemAnswersTheCreateRecord(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	got := a.Post(t, "/api/v1/items", map[string]any{
		"title":                "Interview",
		"itemType":             "video",
		"metadata":             map[string]any{"formId": "default", "formData": map[string]any{"default_description": "raw"}},
		"transcriptionEnabled": true,
		"languageCode":         "de-DE",
		"externalId":           "ext-1",
	}).Status(http.StatusOK).Object()

	sameKeys(t, "create record", got, itemCreateKeys)
	if got["itemType"] != "video" || got["createdBy"] != a.UserID || got["languageCode"] != "de-DE" ||
		got["transcriptionEnabled"] != true || got["labelDetectionEnabled"] != false || got["metadataVersion"] != 1.0 {
		t.Fatalf("create record = %v", got)
	}
	md := got["metadata"].(map[string]any)
	fd := md["formData"].(map[string]any)
	if md["formId"] != "default" || fd["default_title"] != "Interview" || fd["default_description"] != "raw" {
		t.Fatalf("metadata = %v", md)
	}
	if fp := got["folderParents"].([]any); len(fp) != 0 {
		t.Fatalf("folderParents = %v", fp)
	}
}

// A create's writes are one statement (the item, its first version, its
// links, its event and its audit record). Its form is read once per node
// (the node's form cache, store/definitions_form_cache.go): the first
// create of a form costs two statements, every next one without folders
// one, and no transaction; with folders one more (reading them). What it
// writes is what the reads of each part answer.
func TestCreateItemIsOneStatement(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	api.Statements.Reset()
	a.Post(t, "/api/v1/items", map[string]any{"title": "First", "itemType": "video"}).Status(http.StatusOK)
	if n := api.Statements.Count(); n != 2 {
		t.Fatalf("a create of a form not yet read cost %d statements, want 2 (the form, the write)", n)
	}
	api.Statements.Reset()
	lone := a.Post(t, "/api/v1/items", map[string]any{"title": "Lone", "itemType": "video",
		"metadata": map[string]any{"formData": map[string]any{"default_description": "raw"}}}).Status(http.StatusOK).Object()
	if n := api.Statements.Count(); n != 1 {
		t.Fatalf("a create without folders, its form cached, cost %d statements, want 1", n)
	}
	// Checked against the cached form as against the stored one: the
	// default title filled in, the description kept.
	fd := lone["metadata"].(map[string]any)["formData"].(map[string]any)
	if fd["default_title"] != "Lone" || fd["default_description"] != "raw" {
		t.Fatalf("formData = %v", fd)
	}
	reel := a.CreateItem(t, map[string]any{"title": "Reel", "itemType": "folder"})
	rushes := a.CreateItem(t, map[string]any{"title": "Rushes", "itemType": "folder"})
	api.Statements.Reset()
	id := a.Post(t, "/api/v1/items", map[string]any{"title": "Take 3", "itemType": "audio",
		"folderParents": []string{rushes, reel}}).Status(http.StatusOK).Object()["id"].(string)
	if n := api.Statements.Count(); n != 2 {
		t.Fatalf("a create in two folders cost %d statements, want 2 (the folders, the write)", n)
	}
	item := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()
	if fp := item["folderParents"].([]any); len(fp) != 2 || fp[0] != rushes || fp[1] != reel {
		t.Fatalf("folderParents = %v, want [%s %s]", fp, rushes, reel)
	}
	content := a.Get(t, "/api/v1/folders/"+reel+"/content").Status(http.StatusOK).Object()
	if content["total"] != 1.0 {
		t.Fatalf("folder content = %v", content)
	}
	for _, c := range []struct {
		what  string
		query string
		want  int
	}{
		{"links named and typed", `SELECT count(*) FROM item_folders WHERE tenant_id = $1 AND item_id = $2
  AND child_name = 'Take 3' AND child_type = 'audio' AND NOT child_deleted`, 2},
		{"first version", `SELECT count(*) FROM item_versions WHERE tenant_id = $1 AND item_id = $2 AND name = 'Version 1'`, 1},
		{"create audit record", `SELECT count(*) FROM audit_records WHERE tenant_id = $1 AND item_id = $2
  AND action_type = 'create' AND item_title = 'Take 3' AND mdf_diff IS NOT NULL`, 1},
		{"itemCreation event", `SELECT count(*) FROM events WHERE tenant_id = $1 AND item_id = $2
  AND type = 'itemCreation' AND jsonb_array_length(data->'folderIds') = 2`, 1},
		{"folder counts", `SELECT count(*) FROM folder_stats WHERE tenant_id = $1 AND live_children = 1
  AND folder_id IN (SELECT folder_id FROM item_folders WHERE tenant_id = $1 AND item_id = $2)`, 2},
	} {
		if n := api.Count(t, c.query, a.TenantID, id); n != c.want {
			t.Errorf("%s: %d rows, want %d", c.what, n, c.want)
		}
	}
}

func TestGetItemAnswersTheItemRecord(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	folder := a.CreateItem(t, map[string]any{"title": "Projects", "itemType": "folder"})
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video", "originalFileName": "clip.mov",
		"folderParents": []string{folder}})

	for _, p := range []string{"/api/v1/items/" + id} {
		got := a.Get(t, p).Status(http.StatusOK).Object()
		sameKeys(t, "item record", got, itemRecordKeys)
		if got["id"] != id || got["title"] != "Clip" || got["originalFileName"] != "clip.mov" ||
			got["transcodingState"] != "none" || got["hasArchiveRelation"] != false ||
			got["ancestryLink"] != "/api/v1/items/"+id+"/ancestry" {
			t.Fatalf("item record = %v", got)
		}
		if fp := got["folderParents"].([]any); len(fp) != 1 || fp[0] != folder {
			t.Fatalf("folderParents = %v, want [%s]", fp, folder)
		}
		icons := got["customIcons"].(map[string]any)
		if len(icons) != 8 || icons["pos1"] != nil {
			t.Fatalf("customIcons = %v", icons)
		}
		for _, k := range []string{"createdOn", "modifiedOn"} {
			if s, _ := got[k].(string); !strings.HasSuffix(s, "Z") || len(s) != len("2026-01-02T03:04:05.000Z") {
				t.Fatalf("%s = %v, want an RFC 3339 UTC timestamp with milliseconds", k, got[k])
			}
		}
	}
}

func TestCreateItemRejectsBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	foreignFolder := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "folder"})
	plainItem := a.CreateItem(t, map[string]any{"title": "not a folder", "itemType": "video"})
	a.CreateItem(t, map[string]any{"title": "taken", "itemType": "video", "externalId": "dup"})
	items := api.Count(t, `SELECT count(*) FROM items`)
	audits := api.Count(t, `SELECT count(*) FROM audit_records`)

	cases := []struct {
		name    string
		body    any
		status  int
		message string
	}{
		{"unparsable", `{"title": "x"`, 400, "The server could not understand the request due to invalid syntax."},
		{"not an object", `["x"]`, 400, "the request body must be a JSON object"},
		{"no itemType", map[string]any{"title": "x"}, 400, ""},
		{"unknown key", map[string]any{"title": "x", "itemType": "video", "colour": "red"}, 400, "colour: unknown field"},
		{"bad itemType", map[string]any{"title": "x", "itemType": "Video Clip"}, 400, ""},
		{"no title at all", map[string]any{"itemType": "video"}, 400, "title is required (or originalFileName, or metadata.formData.default_title)"},
		{"formData not an object", map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formData": []int{1}}}, 400, "metadata.formData must be an object"},
		{"bad language", map[string]any{"title": "x", "itemType": "video", "languageCode": "english!"}, 400, ""},
		{"bad timestamp", map[string]any{"title": "x", "itemType": "video", "mediaCreatedOn": "yesterday"}, 400, ""},
		{"unknown folder", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{"01a20242-9dca-771b-bd4e-ca31c13a56ec"}}, 400, "folder 01a20242-9dca-771b-bd4e-ca31c13a56ec does not exist"},
		{"folder of another tenant", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{foreignFolder}}, 400, "folder " + foreignFolder + " does not exist"},
		{"parent is no folder", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{plainItem}}, 400, "folder " + plainItem + " does not exist"},
		{"parent not an id", map[string]any{"title": "x", "itemType": "video", "folderParents": []string{"nope"}}, 400, "folder nope does not exist"},
		{"duplicate externalId", map[string]any{"title": "x", "itemType": "video", "externalId": "dup"}, 409, `externalId "dup" is already used by another item`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Post(t, "/api/v1/items", c.body).Envelope(c.status, c.message)
		})
	}
	if got := api.Count(t, `SELECT count(*) FROM items`); got != items {
		t.Errorf("items: %d after bad requests, want %d", got, items)
	}
	if got := api.Count(t, `SELECT count(*) FROM audit_records`); got != audits {
		t.Errorf("audit records: %d after bad requests, want %d", got, audits)
	}
}

func TestDeleteThenUndelete(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	if got := a.Delete(t, "/api/v1/items/"+id).Status(200).Object(); got["id"] != id || got["versionState"] != "IN_RECYCLE_BIN" {
		t.Fatalf("delete answered %v", got)
	}
	a.Get(t, "/api/v1/items/"+id).Envelope(404, "The server can not find requested resource.")
	a.Delete(t, "/api/v1/items/"+id).Envelope(404, "The server can not find requested resource.")
	if got := a.Post(t, "/api/v1/items/"+id+"/undelete", nil).Status(200).Object(); got["versionState"] != "EXISTS" {
		t.Fatalf("undelete answered %v", got)
	}
	a.Get(t, "/api/v1/items/"+id).Status(200)
	// A live item is not in the recycle bin.
	a.Post(t, "/api/v1/items/"+id+"/undelete", nil).Envelope(404, "The server can not find requested resource.")

	if got, want := auditActions(t, a, id), []string{"undelete", "delete", "create"}; !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}
}

func TestArchiveToggles(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	got := a.Put(t, "/api/v1/items/"+id+"/archive", nil).Status(200).Object()
	payload := got["payload"].(map[string]any)
	if got["type"] != "archive" || payload["folderId"] != a.ArchiveFolderID || payload["folderName"] != "Archive" {
		t.Fatalf("archive answered %v", got)
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["hasArchiveRelation"] != true {
		t.Fatalf("archived item: hasArchiveRelation = %v", it["hasArchiveRelation"])
	}
	if got := a.Put(t, "/api/v1/items/"+id+"/archive", nil).Status(200).Object(); got["type"] != "unarchive" {
		t.Fatalf("second toggle answered %v", got)
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["hasArchiveRelation"] != false {
		t.Fatalf("unarchived item: hasArchiveRelation = %v", it["hasArchiveRelation"])
	}
	if got, want := auditActions(t, a, id), []string{"unarchiveInitiated", "archiveInitiated", "create"}; !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}
	a.Put(t, "/api/v1/items/01a20242-9dca-771b-bd4e-ca31c13a56ec/archive", nil).Envelope(404, "The server can not find requested resource.")
	a.Delete(t, "/api/v1/items/"+a.ArchiveFolderID).Envelope(400, "the archive folder cannot be deleted")
}

func TestAnotherTenantsItemIsMissing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Secret", "itemType": "video"})
	deleted := a.CreateItem(t, map[string]any{"title": "Binned", "itemType": "video"})
	a.Delete(t, "/api/v1/items/"+deleted).Status(200)
	const missing = "01a20242-9dca-771b-bd4e-ca31c13a56ec"

	for _, target := range []string{id, missing, "not-a-uuid"} {
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/v1/items/" + target},
			{"DELETE", "/api/v1/items/" + target},
			{"PUT", "/api/v1/items/" + target + "/archive"},
		} {
			b.Do(t, r.method, r.path, nil).Envelope(404, "The server can not find requested resource.")
		}
	}
	b.Post(t, "/api/v1/items/"+deleted+"/undelete", nil).Envelope(404, "The server can not find requested resource.")

	// B's audit search sees none of A's records.
	var res struct {
		Total int              `json:"total"`
		Hits  []map[string]any `json:"hits"`
	}
	b.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?itemId="+id).Status(200).JSON(&res)
	if res.Total != 0 || len(res.Hits) != 0 {
		t.Fatalf("tenant b sees a's audit records: %+v", res)
	}
	// And A's item is untouched.
	a.Get(t, "/api/v1/items/"+id).Status(200)
	if got, want := auditActions(t, a, id), []string{"create"}; !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}
}

// auditActions lists the action types recorded for an item, newest first.
func auditActions(t *testing.T, c *loupetest.Client, itemID string) []string {
	t.Helper()
	var res struct {
		Hits []struct {
			ActionType string `json:"actionType"`
		} `json:"hits"`
	}
	c.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?itemId="+itemID).Status(200).JSON(&res)
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ActionType
	}
	return out
}
