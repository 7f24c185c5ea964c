package resolvers_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/rest"
)

// Item.record (records_gen.go, generated from the ItemRecord fragment of
// rest/operations/items.graphql) must answer exactly what the fragment's
// fields answer — the
// same keys in the same order with the same values — for items in every
// state: bare, and with every field set; with form data by id and by label;
// for an admin and for a user who cannot see one of the item's folders.
func TestItemRecordAnswersWhatItsFieldsAnswer(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	bare, full, open := recordItems(t, api, a)
	viewer := a.User(t, "viewer@a.test", nil, false)

	query := `query($id: ID!, $readable: Boolean = false) {
	  fields: item(id: $id) { ...ItemRecord }
	  record: item(id: $id) { record(readableFields: $readable) } }
	` + fragment(t, rest.Document, "ItemRecord")
	cases := []struct {
		name     string
		client   *loupetest.Client
		id       string
		readable bool
	}{
		{"bare", a, bare, false},
		{"everything set", a, full, false},
		{"everything set, readable form data", a, full, true},
		{"a folder", a, open, false},
		{"a viewer missing a folder", viewer, full, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out struct {
				Fields json.RawMessage
				Record struct{ Record json.RawMessage }
			}
			c.client.GraphQL(t, query, map[string]any{"id": c.id, "readable": c.readable}).OK(&out)
			if got, want := keys(t, out.Record.Record), keys(t, out.Fields); !reflect.DeepEqual(got, want) {
				t.Fatalf("record keys\n %v\nfields\n %v", got, want)
			}
			if got, want := decoded(t, out.Record.Record), decoded(t, out.Fields); !reflect.DeepEqual(got, want) {
				t.Fatalf("record\n %s\nfields\n %s", out.Record.Record, out.Fields)
			}
		})
	}
	// Every field was set on the full item: no key of the comparison was
	// null on both sides only.
	var out struct {
		Item struct{ Record map[string]any }
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { record } }`, map[string]any{"id": full}).OK(&out)
	for k, v := range out.Item.Record {
		if v == nil {
			t.Errorf("the full item's %s is null: the test does not cover it", k)
		}
	}
}

// FolderContent.record (records_gen.go, generated from the
// FolderContentRecord fragment of records.graphql) answers what the
// fragment's fields answer: for an admin and for a user who cannot see a
// subfolder nor one of an item's other folders, on a first page (with a
// nextToken), a continued one and the last one.
func TestFolderContentRecordAnswersWhatItsFieldsAnswer(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	reel := createItem(t, a, map[string]any{"title": "Reel", "itemType": "folder"}).ID
	closed := createItem(t, a, map[string]any{"title": "Closed", "itemType": "folder", "folderParents": []string{reel}}).ID
	a.Post(t, "/api/v1/folders/"+closed, map[string]any{"visibleTo": map[string]any{"level": "selected_groups",
		"groups": []string{a.TenantID + ":nobody"}}}).Status(200)
	createItem(t, a, map[string]any{"title": "Open sub", "itemType": "folder", "folderParents": []string{reel}})
	for i, title := range []string{"Clip <a>", "Clip & b", "Clip ü"} {
		parents := []string{reel}
		if i == 1 {
			parents = append(parents, closed)
		}
		createItem(t, a, map[string]any{"title": title, "itemType": "video", "folderParents": parents})
	}
	viewer := a.User(t, "viewer@a.test", nil, false)
	records, err := os.ReadFile("records.graphql")
	if err != nil {
		t.Fatal(err)
	}
	query := `query($f: ID!, $after: String, $sort: FolderContentSort) {
	  fields: folderContent(folderId: $f, size: 2, after: $after, sort: $sort) { ...FolderContentRecord }
	  record: folderContent(folderId: $f, size: 2, after: $after, sort: $sort) { record } }
	` + fragment(t, string(records), "FolderContentRecord")
	for _, c := range []struct {
		name   string
		client *loupetest.Client
		sort   string
	}{{"admin", a, "name"}, {"viewer", viewer, "name"}, {"admin by creation", a, "createdOn"}} {
		t.Run(c.name, func(t *testing.T) {
			after, pages := "", 0
			for {
				var out struct {
					Fields json.RawMessage
					Record struct{ Record json.RawMessage }
				}
				vars := map[string]any{"f": reel, "sort": c.sort}
				if after != "" {
					vars["after"] = after
				}
				c.client.GraphQL(t, query, vars).OK(&out)
				if got, want := keys(t, out.Record.Record), keys(t, out.Fields); !reflect.DeepEqual(got, want) {
					t.Fatalf("record keys %v, fields %v", got, want)
				}
				if got, want := decoded(t, out.Record.Record), decoded(t, out.Fields); !reflect.DeepEqual(got, want) {
					t.Fatalf("page %d: record\n %s\nfields\n %s", pages, out.Record.Record, out.Fields)
				}
				pages++
				var page struct{ NextToken *string }
				if err := json.Unmarshal(out.Fields, &page); err != nil {
					t.Fatal(err)
				}
				if page.NextToken == nil {
					break
				}
				after = *page.NextToken
			}
			if pages < 2 {
				t.Fatalf("%d pages: the test wants a continued page", pages)
			}
		})
	}
}

// recordItems makes items in every state for the record tests: bare; full,
// with every field set, archived, in an open and a closed folder; and the
// open folder.
func recordItems(t *testing.T, api *loupetest.API, a *loupetest.Client) (bare, full, open string) {
	t.Helper()
	open = createItem(t, a, map[string]any{"title": "Open", "itemType": "folder"}).ID
	closed := createItem(t, a, map[string]any{"title": "Closed", "itemType": "folder"}).ID
	a.Post(t, "/api/v1/folders/"+closed, map[string]any{"visibleTo": map[string]any{"level": "selected_groups",
		"groups": []string{a.TenantID + ":nobody"}}}).Status(200)

	bare = createItem(t, a, map[string]any{"title": "Bare", "itemType": "image"}).ID
	full = createItem(t, a, map[string]any{"title": `Full <"&"> ünïcode`, "itemType": "video", "folderParents": []string{open, closed},
		"metadata": map[string]any{"formData": map[string]any{"default_description": "A <b>clip</b>", "custom_key": []any{1, 2.5, "x"}}}}).ID
	a.Put(t, "/api/v1/items/"+full+"/archive", nil).Status(200)
	for _, name := range []string{"poster.jpg", "subs & more.vtt"} {
		if _, err := api.DB.Exec(`INSERT INTO attachments (tenant_id, item_id, file_name, type, role, user_id, blob_key, description)
			VALUES ($1, $2, $3, 'file', 'file', $4, $5, 'about ' || $3)`, a.TenantID, full, name, a.UserID, full+"/"+name); err != nil {
			t.Fatal(err)
		}
	}
	media := map[string]any{"timedTranscriptKeys": map[string]string{"en": full + "/transcript.json"}}
	for _, k := range []string{"itemState", "transcodingBy", "transcodingService", "transcriptionState", "transcriptionBy",
		"transcriptionService", "translationBy", "translationLanguage", "proxy", "highRes", "editProxyFormat", "webProxyLocation",
		"thumbnail", "thumbnailStrip", "generatedContentLocation", "sourceFileLocation", "vttUrl", "srtUrl", "translationVttUrl",
		"translationSrtUrl", "timedTranslatedTranscriptUrl", "ingestDestinationPath", "ingestSourceFullPath", "ingestSourceKey",
		"ingestSourceObjBucket", "ingestSourceStorageId"} {
		media[k] = k + " value"
	}
	for _, k := range []string{"progressInfo", "transcriptionChannels", "detectedPersons", "proxyAudioTrackUrls", "thumbnailInfo", "uploadProgressInfo"} {
		media[k] = map[string]any{"of": k, "n": []any{1, 2}}
	}
	media["transcriptionProgress"], media["transcriptOffsetMs"], media["proxySize"] = 42.5, 1500, 123456789
	media["hasExternalHighres"], media["isExternalUpload"], media["ingestSkipProcessing"] = true, true, false
	media["uploadRequestedAt"] = "2026-03-04T05:06:07.891234Z"
	if _, err := api.DB.Exec(`UPDATE items SET media = $3, media_created_on = '2025-01-02T03:04:05.678+02:00', media_type = 'video/mp4',
		media_size = 9876543210, frame_count = 2500, technical_metadata = '{"codec": "h264", "fps": 25}', geo_location = '{"lat": 1.5}',
		custom_icons = '{"pos1": "star", "pos3": {"icon": "flag"}}', transcript_last_updated = now(), language_code = 'en',
		upload_lock_owner = 'instance-1', upload_locked_on = now(), transcription_enabled = true, create_unknown_persons = true
		WHERE tenant_id = $1 AND id = $2`, a.TenantID, full, jsonOf(t, media)); err != nil {
		t.Fatal(err)
	}
	return bare, full, open
}

// fragment is the text of fragment name in doc, through the brace closing
// it at the start of a line.
func fragment(t *testing.T, doc, name string) string {
	t.Helper()
	i := strings.Index(doc, "fragment "+name+" on ")
	if i < 0 {
		t.Fatalf("no fragment %s", name)
	}
	frag := doc[i:]
	end := strings.Index(frag, "\n}\n")
	if end < 0 {
		t.Fatalf("fragment %s: no closing brace at the start of a line", name)
	}
	return frag[:end+3]
}

func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// decoded decodes an answer for comparison, signed links without their
// expiry and signature: the two sides of a comparison may be signed in
// different seconds.
func decoded(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	raw = signedLink.ReplaceAll(raw, []byte("${1}…"))
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
