package resolvers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// fileTestPath is a signed link as a path of the test server.
func fileTestPath(t *testing.T, api *loupetest.API, link string) string {
	t.Helper()
	if !strings.HasPrefix(link, api.URL+blob.PathPrefix) {
		t.Fatalf("link %q is not under %s%s", link, api.URL, blob.PathPrefix)
	}
	return strings.TrimPrefix(link, api.URL)
}

func putFile(t *testing.T, api *loupetest.API, link, content string) {
	t.Helper()
	api.Anonymous().Do(t, "PUT", fileTestPath(t, api, link), []byte(content)).Status(http.StatusOK)
}

func getFile(t *testing.T, api *loupetest.API, link string) string {
	t.Helper()
	return string(api.Anonymous().Get(t, fileTestPath(t, api, link)).Status(http.StatusOK).Body)
}

func fileStored(t *testing.T, api *loupetest.API, link string) bool {
	t.Helper()
	key := strings.TrimPrefix(strings.SplitN(fileTestPath(t, api, link), "?", 2)[0], blob.PathPrefix)
	rc, _, _, err := api.Files.Open(context.Background(), key)
	if errors.Is(err, blob.ErrNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	return true
}

type gqlAttachment struct {
	FileName    string `json:"fileName"`
	Description string `json:"description"`
	DownloadURL string `json:"downloadUrl"`
	Type        string `json:"type"`
	Role        string `json:"role"`
	Language    string `json:"language"`
	UserID      string `json:"userId"`
	ModifiedOn  string `json:"modifiedOn"`
}

const attachmentFields = `fileName description downloadUrl type role language userId modifiedOn`

func TestGraphQLAttachments(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID

	var created struct {
		CreateAttachment struct {
			UploadURL  string        `json:"uploadUrl"`
			Attachment gqlAttachment `json:"attachment"`
		} `json:"createAttachment"`
	}
	a.GraphQL(t, `mutation($in: CreateAttachmentInput!) { createAttachment(input: $in) { uploadUrl attachment { `+attachmentFields+` } } }`,
		map[string]any{"in": map[string]any{"itemId": id, "fileName": "notes.txt", "type": "file", "role": "file",
			"language": "en", "description": "Notes"}}).OK(&created)
	att := created.CreateAttachment.Attachment
	if att.FileName != "notes.txt" || att.Type != "file" || att.Language != "en" || att.Description != "Notes" || att.UserID != a.UserID {
		t.Fatalf("createAttachment answered %+v", att)
	}
	putFile(t, api, created.CreateAttachment.UploadURL, "some notes")
	if got := getFile(t, api, att.DownloadURL); got != "some notes" {
		t.Fatalf("downloadUrl serves %q", got)
	}

	var item struct {
		Item struct {
			All []gqlAttachment `json:"all"`
			One []gqlAttachment `json:"one"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { all: attachments { fileName } one: attachments(fileName: "notes.txt") { fileName } } }`,
		map[string]any{"id": id}).OK(&item)
	if len(item.Item.All) != 1 || len(item.Item.One) != 1 || item.Item.One[0].FileName != "notes.txt" {
		t.Fatalf("item attachments = %+v", item.Item)
	}
	msg := a.GraphQL(t, `query($id: ID!) { item(id: $id) { attachments(fileName: "nope") { fileName } } }`,
		map[string]any{"id": id}).ErrorCode("NOT_FOUND")
	if msg != "Could not find given attachment in database" {
		t.Fatalf("missing attachment: %q", msg)
	}

	var pre struct {
		AttachmentsPrecheck struct {
			ExistingFileNames []string `json:"existingFileNames"`
		} `json:"attachmentsPrecheck"`
	}
	a.GraphQL(t, `query($id: ID!) { attachmentsPrecheck(itemId: $id, fileNames: ["x", "notes.txt"]) { existingFileNames } }`,
		map[string]any{"id": id}).OK(&pre)
	if fmt.Sprint(pre.AttachmentsPrecheck.ExistingFileNames) != "[notes.txt]" {
		t.Fatalf("precheck = %v", pre.AttachmentsPrecheck.ExistingFileNames)
	}

	var updated struct {
		UpdateAttachment gqlAttachment `json:"updateAttachment"`
	}
	a.GraphQL(t, `mutation($in: UpdateAttachmentInput!) { updateAttachment(input: $in) { `+attachmentFields+` } }`,
		map[string]any{"in": map[string]any{"itemId": id, "fileName": "notes.txt", "newFileName": "notes-v2.txt", "type": "subtitle"}}).OK(&updated)
	if u := updated.UpdateAttachment; u.FileName != "notes-v2.txt" || u.Type != "subtitle" || u.Description != "Notes" || getFile(t, api, u.DownloadURL) != "some notes" {
		t.Fatalf("updateAttachment answered %+v", u)
	}

	// Refusals.
	cases := []struct {
		name, query string
		vars        map[string]any
		code, msg   string
	}{
		{"create on another tenant's item", `mutation($in: CreateAttachmentInput!) { createAttachment(input: $in) { uploadUrl } }`,
			map[string]any{"in": map[string]any{"itemId": id, "fileName": "x", "type": "file", "role": "file"}}, "NOT_FOUND", "Could not find given item in database"},
		{"delete on another tenant's item", `mutation { deleteAttachment(input: {itemId: "` + id + `", fileName: "notes-v2.txt"}) { fileName } }`,
			nil, "NOT_FOUND", "Could not find given item in database"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := b.GraphQL(t, c.query, c.vars).ErrorCode(c.code); got != c.msg {
				t.Fatalf("message %q, want %q", got, c.msg)
			}
		})
	}
	if r := a.GraphQL(t, `mutation { createAttachment(input: {itemId: "`+id+`", fileName: "x", type: movie, role: file}) { uploadUrl } }`, nil); len(r.Errors) == 0 {
		t.Fatal("a bad attachment type was taken")
	}

	// Delete removes the row and the file.
	var deleted struct {
		DeleteAttachment struct {
			FileName string `json:"fileName"`
		} `json:"deleteAttachment"`
	}
	a.GraphQL(t, `mutation($id: ID!) { deleteAttachment(input: {itemId: $id, fileName: "notes-v2.txt"}) { fileName } }`,
		map[string]any{"id": id}).OK(&deleted)
	if deleted.DeleteAttachment.FileName != "notes-v2.txt" {
		t.Fatalf("deleteAttachment answered %+v", deleted)
	}
	if n := api.Count(t, `SELECT count(*) FROM attachments`); n != 0 {
		t.Fatalf("%d attachment rows after delete", n)
	}
	if fileStored(t, api, att.DownloadURL) {
		t.Fatal("the deleted attachment's file is still stored")
	}
	msg = a.GraphQL(t, `mutation($id: ID!) { deleteAttachment(input: {itemId: $id, fileName: "notes-v2.txt"}) { fileName } }`,
		map[string]any{"id": id}).ErrorCode("NOT_FOUND")
	if msg != "Could not find given attachment in database" {
		t.Fatalf("second delete: %q", msg)
	}
}

func TestGraphQLThumbnails(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID

	for _, ms := range []int{0, 2000, 4000} {
		var out struct {
			CreateThumbnail struct {
				UploadURL string `json:"uploadUrl"`
				Thumbnail struct {
					Position   float64 `json:"position"`
					PositionMs int     `json:"positionMs"`
					Width      *int    `json:"width"`
				} `json:"thumbnail"`
			} `json:"createThumbnail"`
		}
		a.GraphQL(t, `mutation($in: CreateThumbnailInput!) { createThumbnail(input: $in) { uploadUrl thumbnail { position positionMs width } } }`,
			map[string]any{"in": map[string]any{"itemId": id, "positionMs": ms}}).OK(&out)
		th := out.CreateThumbnail.Thumbnail
		if th.PositionMs != ms || th.Position != float64(ms)/1000 || th.Width != nil {
			t.Fatalf("createThumbnail at %d answered %+v", ms, th)
		}
		putFile(t, api, out.CreateThumbnail.UploadURL, fmt.Sprint("thumb ", ms))
	}

	var out struct {
		Item struct {
			Thumbnails struct {
				Thumbnails []struct {
					PositionMs int    `json:"positionMs"`
					URL        string `json:"url"`
				} `json:"thumbnails"`
				NextIndex *int `json:"nextIndex"`
			} `json:"thumbnails"`
		} `json:"item"`
		ThumbnailAt struct {
			PositionMs int    `json:"positionMs"`
			URL        string `json:"url"`
		} `json:"thumbnailAt"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { thumbnails(index: 1, size: 1) { thumbnails { positionMs url } nextIndex } }
		thumbnailAt(itemId: $id, position: "3.1") { positionMs url } }`, map[string]any{"id": id}).OK(&out)
	page := out.Item.Thumbnails
	if len(page.Thumbnails) != 1 || page.Thumbnails[0].PositionMs != 2000 || page.NextIndex == nil || *page.NextIndex != 2 {
		t.Fatalf("thumbnails(index: 1, size: 1) = %+v", page)
	}
	if got := getFile(t, api, page.Thumbnails[0].URL); got != "thumb 2000" {
		t.Fatalf("thumbnail url serves %q", got)
	}
	if out.ThumbnailAt.PositionMs != 4000 || getFile(t, api, out.ThumbnailAt.URL) != "thumb 4000" {
		t.Fatalf("thumbnailAt 3.1 = %+v", out.ThumbnailAt)
	}

	cases := []struct {
		name   string
		client *loupetest.Client
		query  string
		code   string
	}{
		{"negative position", a, `mutation { createThumbnail(input: {itemId: "` + id + `", positionMs: -1}) { uploadUrl } }`, "BAD_USER_INPUT"},
		{"zero width", a, `mutation { createThumbnail(input: {itemId: "` + id + `", positionMs: 1, width: 0}) { uploadUrl } }`, "BAD_USER_INPUT"},
		{"another tenant's item", b, `mutation { createThumbnail(input: {itemId: "` + id + `", positionMs: 1}) { uploadUrl } }`, "NOT_FOUND"},
		{"missing item", a, `mutation { createThumbnail(input: {itemId: "` + missingID + `", positionMs: 1}) { uploadUrl } }`, "NOT_FOUND"},
		{"bad position", a, `{ thumbnailAt(itemId: "` + id + `", position: "soon") { positionMs } }`, "BAD_USER_INPUT"},
		{"thumbnailAt of another tenant's item", b, `{ thumbnailAt(itemId: "` + id + `", position: "1") { positionMs } }`, "NOT_FOUND"},
		{"page too large", a, `{ item(id: "` + id + `") { thumbnails(size: 201) { nextIndex } } }`, "BAD_USER_INPUT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.client.GraphQL(t, c.query, nil).ErrorCode(c.code)
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM thumbnails`); n != 3 {
		t.Fatalf("%d thumbnails after refused writes, want 3", n)
	}
}

func TestGraphQLTranscript(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := createItem(t, a, map[string]any{"title": "Interview", "itemType": "video", "languageCode": "de-DE"}).ID

	const query = `query($id: ID!) { item(id: $id) { transcriptLastUpdated timedTranscriptUrl
		transcript { languageCode updatedOn url timedTranscript { content startTime endTime } }
		en: transcript(languageCode: "en-US") { languageCode } } }`
	type transcriptItem struct {
		Item struct {
			TranscriptLastUpdated *string `json:"transcriptLastUpdated"`
			TimedTranscriptURL    *string `json:"timedTranscriptUrl"`
			Transcript            *struct {
				LanguageCode    string `json:"languageCode"`
				UpdatedOn       string `json:"updatedOn"`
				URL             string `json:"url"`
				TimedTranscript []struct {
					Content   string `json:"content"`
					StartTime int    `json:"startTime"`
					EndTime   int    `json:"endTime"`
				} `json:"timedTranscript"`
			} `json:"transcript"`
			En *struct{ LanguageCode string } `json:"en"`
		} `json:"item"`
	}
	var before transcriptItem
	a.GraphQL(t, query, map[string]any{"id": id}).OK(&before)
	if before.Item.Transcript != nil || before.Item.TimedTranscriptURL != nil || before.Item.TranscriptLastUpdated != nil || before.Item.En != nil {
		t.Fatalf("before any transcript: %+v", before.Item)
	}

	var upd struct {
		UpdateTranscript struct {
			ItemID                string `json:"itemId"`
			LanguageCode          string `json:"languageCode"`
			TranscriptLastUpdated string `json:"transcriptLastUpdated"`
			TimedTranscriptURL    string `json:"timedTranscriptUrl"`
		} `json:"updateTranscript"`
	}
	a.GraphQL(t, `mutation($in: UpdateTranscriptInput!) { updateTranscript(input: $in) { itemId languageCode transcriptLastUpdated timedTranscriptUrl } }`,
		map[string]any{"in": map[string]any{"itemId": id, "languageCode": "de-DE", "timedTranscript": []any{
			map[string]any{"content": "Guten Tag.", "startTime": 100, "endTime": 900},
		}}}).OK(&upd)
	if upd.UpdateTranscript.ItemID != id || upd.UpdateTranscript.LanguageCode != "de-DE" {
		t.Fatalf("updateTranscript answered %+v", upd)
	}

	var after transcriptItem
	a.GraphQL(t, query, map[string]any{"id": id}).OK(&after)
	it := after.Item
	if it.TranscriptLastUpdated == nil || *it.TranscriptLastUpdated != upd.UpdateTranscript.TranscriptLastUpdated ||
		it.Transcript == nil || it.Transcript.LanguageCode != "de-DE" || it.Transcript.UpdatedOn != upd.UpdateTranscript.TranscriptLastUpdated ||
		len(it.Transcript.TimedTranscript) != 1 || it.Transcript.TimedTranscript[0].Content != "Guten Tag." ||
		it.Transcript.TimedTranscript[0].StartTime != 100 || it.Transcript.TimedTranscript[0].EndTime != 900 || it.En != nil {
		t.Fatalf("after updateTranscript: %+v", it)
	}
	// The file is the bare array of segments (the language is the item's).
	const file = `[{"content":"Guten Tag.","startTime":100,"endTime":900}]`
	if it.TimedTranscriptURL == nil || getFile(t, api, *it.TimedTranscriptURL) != file || getFile(t, api, it.Transcript.URL) != file {
		t.Fatalf("transcript links do not serve it: %v %v", it.TimedTranscriptURL, it.Transcript.URL)
	}

	msg := a.GraphQL(t, `mutation($in: UpdateTranscriptInput!) { updateTranscript(input: $in) { itemId } }`,
		map[string]any{"in": map[string]any{"itemId": id, "languageCode": "de-DE", "timedTranscript": []any{
			map[string]any{"content": "x", "startTime": 9, "endTime": 1},
		}}}).ErrorCode("BAD_USER_INPUT")
	if msg != "The server could not understand the request due to invalid syntax." {
		t.Fatalf("invalid transcript: %q", msg)
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { transcript(languageCode: "klingon") { url } } }`, map[string]any{"id": id}).ErrorCode("BAD_USER_INPUT")
}

// An item page that shows attachments and the transcript link costs the same
// statements whether its items have files or not, and whatever its size.
func TestItemPagesWithFilesCostTheSameStatements(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var ids []string
	for i := range 12 {
		id := createItem(t, a, map[string]any{"title": fmt.Sprint("Clip ", i), "itemType": "video"}).ID
		ids = append(ids, id)
		if i%2 == 1 {
			continue // half the items have no files at all
		}
		for _, name := range []string{"poster.jpg", "subs.vtt"} {
			a.GraphQL(t, `mutation($in: CreateAttachmentInput!) { createAttachment(input: $in) { uploadUrl } }`,
				map[string]any{"in": map[string]any{"itemId": id, "fileName": name, "type": "file", "role": "file"}}).OK(nil)
		}
		a.GraphQL(t, `mutation($in: CreateThumbnailInput!) { createThumbnail(input: $in) { uploadUrl } }`,
			map[string]any{"in": map[string]any{"itemId": id, "positionMs": 0}}).OK(nil)
		a.GraphQL(t, `mutation($in: UpdateTranscriptInput!) { updateTranscript(input: $in) { itemId } }`,
			map[string]any{"in": map[string]any{"itemId": id, "languageCode": "en-US", "timedTranscript": []any{
				map[string]any{"content": "Hello.", "startTime": 0, "endTime": 500},
			}}}).OK(nil)
	}

	const query = `query($first: Int) { items(first: $first, filter: {itemType: "video"}) { nodes {
		id attachments { fileName downloadUrl } transcriptLastUpdated timedTranscriptUrl } } }`
	counts := map[int][]int64{}
	for range 3 {
		for _, n := range []int{1, 4, 12} {
			var out struct {
				Items struct {
					Nodes []struct {
						ID                 string  `json:"id"`
						Attachments        []any   `json:"attachments"`
						TimedTranscriptURL *string `json:"timedTranscriptUrl"`
					} `json:"nodes"`
				} `json:"items"`
			}
			api.Statements.Reset()
			r := a.GraphQL(t, query, map[string]any{"first": n})
			counts[n] = append(counts[n], api.Statements.Count())
			r.OK(&out)
			withFiles := 0
			for _, it := range out.Items.Nodes {
				if len(it.Attachments) == 2 && it.TimedTranscriptURL != nil {
					withFiles++
				}
			}
			if len(out.Items.Nodes) != n || withFiles != (n+1)/2 && withFiles != n/2 {
				t.Fatalf("first %d: %d nodes, %d with files", n, len(out.Items.Nodes), withFiles)
			}
		}
	}
	t.Logf("statements of items(first: N) with attachments and transcript links: %v", counts)
	// page + attachments, whatever the page size; a page whose items have
	// no attachments (has_attachments) spares the last (the key is cached).
	for _, runs := range counts {
		for _, c := range runs {
			if c > 2 {
				t.Fatalf("statements per page size: %v; want at most 2 whatever the size", counts)
			}
		}
	}
	if counts[4][0] != counts[12][0] {
		t.Fatalf("statements per page size: %v; want the same for 4 and 12 items", counts)
	}

	// Thumbnail pages and transcripts (default language, and one named)
	// of a page of items: one statement each, whatever the page size —
	// their resolvers hint every item's key before the first loads.
	const nested = `query($first: Int) { items(first: $first, filter: {itemType: "video"}) { nodes {
		id thumbnails(size: 2) { thumbnails { positionMs } } transcript { languageCode }
		en: transcript(languageCode: "en-US") { languageCode } } } }`
	nestedCounts := map[int]int64{}
	for _, n := range []int{4, 12} {
		var out struct {
			Items struct {
				Nodes []struct {
					Thumbnails struct{ Thumbnails []any }
					En         *struct{ LanguageCode string }
				}
			}
		}
		api.Statements.Reset()
		r := a.GraphQL(t, nested, map[string]any{"first": n})
		nestedCounts[n] = api.Statements.Count()
		r.OK(&out)
		withFiles := 0
		for _, it := range out.Items.Nodes {
			if len(it.Thumbnails.Thumbnails) == 1 && it.En != nil && it.En.LanguageCode == "en-US" {
				withFiles++
			}
		}
		if withFiles != n/2 {
			t.Fatalf("first %d: %d items with a thumbnail and a transcript, want %d", n, withFiles, n/2)
		}
	}
	t.Logf("statements of items(first: N) with thumbnails and transcripts: %v", nestedCounts)
	if nestedCounts[4] != nestedCounts[12] || nestedCounts[12] > 4 {
		t.Fatalf("statements per page size: %v; want the same for 4 and 12 items, at most 4 "+
			"(page, thumbnails, transcripts in each language)", nestedCounts)
	}

	// The REST item record: an item with files costs one statement more
	// (its attachments) than one without, and thumbnails and transcript
	// links cost none.
	rest := func(id string) int64 {
		api.Statements.Reset()
		a.Get(t, "/api/v1/items/"+id).Status(200)
		return api.Statements.Count()
	}
	if with, without := rest(ids[0]), rest(ids[1]); with != without+1 || without != 1 {
		t.Fatalf("GET item with attachments, thumbnails and a transcript: %d statements; without: %d; want 2 and 1", with, without)
	}
}
