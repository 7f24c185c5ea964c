package rest_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/server"
)

// The keys of spec 2.4.
var (
	attachmentListKeys   = []string{"fileName", "description", "downloadUrl", "type", "role"}
	attachmentUpdateKeys = []string{"fileName", "type", "role", "language", "description", "userId", "modifiedOn"}
)

const (
	msgNoItem       = "Could not find given item in database"
	msgNoAttachment = "Could not find given attachment in database"
	missingID       = "01a20242-9dca-771b-bd4e-ca31c13a56ec"
)

// linkPath is a signed link as a path of the test server (the client adds
// the server's address back).
func linkPath(t *testing.T, api *loupetest.API, link string) string {
	t.Helper()
	if !strings.HasPrefix(link, api.URL+blob.PathPrefix) {
		t.Fatalf("link %q is not under %s%s", link, api.URL, blob.PathPrefix)
	}
	return strings.TrimPrefix(link, api.URL)
}

// blobKeyOf is the blob key a signed link names.
func blobKeyOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, blob.PathPrefix)
}

// upload PUTs content to a signed link without any API key: the signature
// is the credential.
func upload(t *testing.T, api *loupetest.API, link string, content []byte) {
	t.Helper()
	// As S3 answers a presigned PUT: 200, no body, the quoted MD5 as ETag.
	got := api.Anonymous().Do(t, "PUT", linkPath(t, api, link), content).Status(http.StatusOK)
	if sum := md5.Sum(content); len(got.Body) != 0 || got.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Fatalf("upload answered %q with ETag %q, want no body and the quoted MD5", got.Body, got.Header.Get("ETag"))
	}
}

// download GETs a signed link without any API key.
func download(t *testing.T, api *loupetest.API, link string) *loupetest.Response {
	t.Helper()
	return api.Anonymous().Get(t, linkPath(t, api, link))
}

func blobExists(t *testing.T, api *loupetest.API, key string) bool {
	t.Helper()
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

func createAttachment(t *testing.T, c *loupetest.Client, itemID string, body map[string]any) string {
	t.Helper()
	var link string
	c.Post(t, "/api/v1/items/"+itemID+"/attachments", body).Status(http.StatusOK).JSON(&link)
	return link
}

func listAttachments(t *testing.T, c *loupetest.Client, path string) []map[string]any {
	t.Helper()
	var list []map[string]any
	c.Get(t, path).Status(http.StatusOK).JSON(&list)
	return list
}

var png = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 300)...)

func TestAttachmentUploadFlow(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	before := a.Get(t, "/api/v1/items/"+id).Object()["modifiedOn"].(string)

	link := createAttachment(t, a, id, map[string]any{
		"fileName": "Key Art.PNG", "type": "poster", "role": "thumbnail", "description": "Key art",
	})
	key := blobKeyOf(t, link)
	if prefix := a.TenantID + "/items/" + id + "/attachments/"; !strings.HasPrefix(key, prefix) || !strings.HasSuffix(key, ".png") {
		t.Fatalf("upload link key %q, want %s<uuid>.png", key, prefix)
	}
	if q, _ := url.Parse(link); q.Query().Get("method") != "PUT" {
		t.Fatalf("upload link %s is not for PUT", link)
	}
	// Registered but not uploaded yet: the download answers 404.
	list := listAttachments(t, a, "/api/v1/items/"+id+"/attachments")
	if len(list) != 1 {
		t.Fatalf("list = %v", list)
	}
	download(t, api, list[0]["downloadUrl"].(string)).Envelope(404, "The server can not find requested resource.")

	upload(t, api, link, png)

	for _, path := range []string{"/api/v1/items/" + id + "/attachments", "/api/v1/items/" + id + "/attachments?attachment=Key%20Art.PNG"} {
		list := listAttachments(t, a, path)
		if len(list) != 1 {
			t.Fatalf("%s: %d entries, want 1: %v", path, len(list), list)
		}
		got := list[0]
		sameKeys(t, "attachment list entry", got, attachmentListKeys)
		if got["fileName"] != "Key Art.PNG" || got["type"] != "poster" || got["role"] != "thumbnail" || got["description"] != "Key art" {
			t.Fatalf("%s: entry = %v", path, got)
		}
		dl := got["downloadUrl"].(string)
		if blobKeyOf(t, dl) != key {
			t.Fatalf("downloadUrl %s does not name the uploaded blob %s", dl, key)
		}
		r := download(t, api, dl).Status(http.StatusOK)
		if !bytes.Equal(r.Body, png) || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("download: %d bytes of %s, want the %d uploaded bytes as image/png", len(r.Body), r.Header.Get("Content-Type"), len(png))
		}
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("download without nosniff: %v", r.Header)
		}
	}
	// The {id} spelling answers the same list, and the item record lists it.
	if list := listAttachments(t, a, "/api/v1/items/"+id+"/attachments"); len(list) != 1 {
		t.Fatalf("list = %v", list)
	}
	item := a.Get(t, "/api/v1/items/"+id).Object()
	if atts := item["attachments"].([]any); len(atts) != 1 || atts[0].(map[string]any)["fileName"] != "Key Art.PNG" {
		t.Fatalf("item attachments = %v", item["attachments"])
	}
	if item["modifiedOn"].(string) <= before {
		t.Fatalf("modifiedOn %v not after %v: creating an attachment changes the item", item["modifiedOn"], before)
	}
	a.Get(t, "/api/v1/items/"+id+"/attachments?attachment=other.png").Envelope(404, msgNoAttachment)
}

func TestAttachmentOfTheSameNameReplaces(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	first := createAttachment(t, a, id, map[string]any{"fileName": "subs.vtt", "type": "subtitle", "role": "subtitle",
		"language": "en", "description": "English"})
	upload(t, api, first, []byte("WEBVTT\n\nold"))

	second := createAttachment(t, a, id, map[string]any{"fileName": "subs.vtt", "type": "file", "role": "file"})
	if blobKeyOf(t, first) == blobKeyOf(t, second) {
		t.Fatalf("a replacement got the old key %s", blobKeyOf(t, first))
	}
	if blobExists(t, api, blobKeyOf(t, first)) {
		t.Fatal("the replaced file is still stored")
	}
	upload(t, api, second, []byte("WEBVTT\n\nnew"))
	list := listAttachments(t, a, "/api/v1/items/"+id+"/attachments")
	if len(list) != 1 || list[0]["type"] != "file" || list[0]["description"] != "" {
		t.Fatalf("after replacing: %v", list)
	}
	if got := download(t, api, list[0]["downloadUrl"].(string)).Status(200).Body; string(got) != "WEBVTT\n\nnew" {
		t.Fatalf("download after replacing = %q", got)
	}
	// The old upload link no longer leads anywhere the item points at.
	if n := api.Count(t, `SELECT count(*) FROM attachments WHERE item_id = $1`, id); n != 1 {
		t.Fatalf("%d attachment rows, want 1", n)
	}
}

// DELETE …/attachments with {fileName, type} removes the attachment and
// its file, as integrations of the original service delete one — and
// clear a file name before writing it again (precheck, delete, create,
// upload). The type is not compared: they send the one they are about to
// write. The answer is the deleted file name, a JSON string.
func TestDeleteAttachment(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	link := createAttachment(t, a, id, map[string]any{"fileName": "art.png", "type": "image", "role": "file"})
	upload(t, api, link, png)
	createAttachment(t, a, id, map[string]any{"fileName": "other.png", "type": "image", "role": "file"})
	before := a.Get(t, "/api/v1/items/"+id).Object()["modifiedOn"].(string)

	// Overwrite as integrations do: precheck, delete, create, upload.
	pre := a.Post(t, "/api/v1/items/"+id+"/attachments?isPrecheck=true", map[string]any{"fileName": "art.png", "type": "poster"}).Status(200).Object()
	if !equalJSON(pre["existingFileNames"], []any{"art.png"}) {
		t.Fatalf("precheck = %v", pre)
	}
	var deleted string
	a.Do(t, "DELETE", "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "art.png", "type": "poster"}).
		Status(200).JSON(&deleted)
	if deleted != "art.png" {
		t.Fatalf("delete answered %q, want the file name", deleted)
	}
	if blobExists(t, api, blobKeyOf(t, link)) {
		t.Fatal("the deleted attachment's file is still stored")
	}
	list := listAttachments(t, a, "/api/v1/items/"+id+"/attachments")
	if len(list) != 1 || list[0]["fileName"] != "other.png" {
		t.Fatalf("after delete: %v", list)
	}
	a.Get(t, "/api/v1/items/"+id+"/attachments?attachment=art.png").Envelope(404, msgNoAttachment)
	if item := a.Get(t, "/api/v1/items/"+id).Object(); item["modifiedOn"].(string) <= before {
		t.Fatalf("modifiedOn %v not after %v: deleting an attachment changes the item", item["modifiedOn"], before)
	}
	again := createAttachment(t, a, id, map[string]any{"fileName": "art.png", "type": "poster", "role": "poster"})
	upload(t, api, again, []byte("new art"))
	if got := listAttachments(t, a, "/api/v1/items/"+id+"/attachments?attachment=art.png"); len(got) != 1 || got[0]["type"] != "poster" {
		t.Fatalf("written again: %v", got)
	}
	// With forceOverwrite, the original service's client deletes with the
	// whole create payload it is about to send.
	a.Do(t, "DELETE", "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "art.png", "type": "poster",
		"role": "poster", "description": "Key art"}).Status(200).JSON(&deleted)
	if deleted != "art.png" || len(listAttachments(t, a, "/api/v1/items/"+id+"/attachments?fileName=art.png")) != 1 {
		t.Fatalf("overwrite delete answered %q", deleted)
	}
	// A key of no attachment shape is still refused, and deletes nothing.
	a.Do(t, "DELETE", "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "other.png", "role": "file",
		"shred": true}).Envelope(400, "")
	if n := api.Count(t, `SELECT count(*) FROM attachments WHERE item_id = $1 AND file_name = 'other.png'`, id); n != 1 {
		t.Fatalf("a refused delete removed the attachment (%d left)", n)
	}

	// Once gone, a second delete is the attachment 404.
	a.Do(t, "DELETE", "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "other.png"}).Status(200)
	a.Do(t, "DELETE", "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "other.png"}).Envelope(404, msgNoAttachment)

	// A reader cannot delete what they cannot write.
	reader := a.User(t, "reader@a.test", nil, false)
	folder := a.CreateItem(t, map[string]any{"title": "Closed", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+folder, map[string]any{"updatableBy": map[string]any{"level": "selected_groups",
		"groups": []string{a.TenantID + ":nobody"}}}).Status(200)
	closed := a.CreateItem(t, map[string]any{"title": "Closed clip", "itemType": "video", "folderParents": []string{folder}})
	createAttachment(t, a, closed, map[string]any{"fileName": "x.png", "type": "image", "role": "file"})
	reader.Do(t, "DELETE", "/api/v1/items/"+closed+"/attachments", map[string]any{"fileName": "x.png"}).Envelope(403, "")
	if n := api.Count(t, `SELECT count(*) FROM attachments WHERE item_id = $1`, closed); n != 1 {
		t.Fatalf("%d attachments left, want 1", n)
	}
}

func TestAttachmentsPrecheck(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "video"})
	for _, name := range []string{"a.png", "b.pdf"} {
		createAttachment(t, a, id, map[string]any{"fileName": name, "type": "file", "role": "file"})
	}
	cases := []struct {
		name string
		body any
		want []any
	}{
		{"some exist", map[string]any{"fileNames": []string{"c.txt", "b.pdf", "a.png", "b.pdf"}}, []any{"b.pdf", "a.png"}},
		{"none exist", map[string]any{"fileNames": []string{"c.txt"}}, []any{}},
		{"one name", map[string]any{"fileName": "a.png"}, []any{"a.png"}},
		{"empty list", map[string]any{"fileNames": []string{}}, []any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := a.Post(t, "/api/v1/items/"+id+"/attachments?isPrecheck=true", c.body).Status(200).Object()
			sameKeys(t, "precheck", got, []string{"existingFileNames"})
			if !equalJSON(got["existingFileNames"], c.want) {
				t.Fatalf("existingFileNames = %v, want %v", got["existingFileNames"], c.want)
			}
		})
	}
	for _, item := range []string{missingID, foreign, "not-an-id"} {
		a.Post(t, "/api/v1/items/"+item+"/attachments?isPrecheck=true", map[string]any{"fileNames": []string{"a.png"}}).
			Envelope(404, msgNoItem)
	}
	a.Post(t, "/api/v1/items/"+id+"/attachments?isPrecheck=true", map[string]any{"names": []string{"a.png"}}).Envelope(400, "")
	if n := api.Count(t, `SELECT count(*) FROM attachments`); n != 2 {
		t.Fatalf("precheck changed attachments: %d rows", n)
	}
}

func TestUpdateAttachment(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "editor@a.test", nil, false)
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	link := createAttachment(t, a, id, map[string]any{"fileName": "poster.jpg", "type": "poster", "role": "poster", "description": "old"})
	upload(t, api, link, []byte("\xff\xd8\xff\xe0 jpeg"))
	createAttachment(t, a, id, map[string]any{"fileName": "taken.jpg", "type": "image", "role": "file"})

	got := editor.Put(t, "/api/v1/items/"+id+"/attachments", map[string]any{
		"fileName": "poster.jpg", "newFileName": "poster-v2.jpg", "role": "thumbnail", "language": "de-DE", "description": "new",
	}).Status(200).Object()
	sameKeys(t, "attachment update record", got, attachmentUpdateKeys)
	if got["fileName"] != "poster-v2.jpg" || got["type"] != "poster" || got["role"] != "thumbnail" ||
		got["language"] != "de-DE" || got["description"] != "new" || got["userId"] != editor.UserID {
		t.Fatalf("update record = %v", got)
	}
	if ts, _ := got["modifiedOn"].(string); !strings.HasSuffix(ts, "Z") || len(ts) != len("2026-01-02T03:04:05.000Z") {
		t.Fatalf("modifiedOn = %v", got["modifiedOn"])
	}
	// The renamed attachment keeps its file.
	list := listAttachments(t, a, "/api/v1/items/"+id+"/attachments?attachment=poster-v2.jpg")
	if body := download(t, api, list[0]["downloadUrl"].(string)).Status(200).Body; string(body) != "\xff\xd8\xff\xe0 jpeg" {
		t.Fatalf("renamed attachment serves %q", body)
	}
	a.Get(t, "/api/v1/items/"+id+"/attachments?attachment=poster.jpg").Envelope(404, msgNoAttachment)

	// Only what is given changes.
	got = a.Put(t, "/api/v1/items/"+id+"/attachments", map[string]any{"fileName": "poster-v2.jpg", "type": "image"}).Status(200).Object()
	if got["type"] != "image" || got["role"] != "thumbnail" || got["language"] != "de-DE" || got["description"] != "new" || got["userId"] != a.UserID {
		t.Fatalf("partial update record = %v", got)
	}
}

func TestAttachmentWritesRefuseBadInputAndChangeNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "video"})
	deleted := a.CreateItem(t, map[string]any{"title": "Gone", "itemType": "video"})
	a.Delete(t, "/api/v1/items/"+deleted).Status(200)
	createAttachment(t, a, id, map[string]any{"fileName": "a.png", "type": "image", "role": "file"})
	createAttachment(t, a, id, map[string]any{"fileName": "b.png", "type": "image", "role": "file"})
	createAttachment(t, b, foreign, map[string]any{"fileName": "a.png", "type": "image", "role": "file"})

	snapshot := func() string {
		var s string
		if err := api.DB.Get(&s, `SELECT coalesce(string_agg(item_id || file_name || type || role || language || description || blob_key, ',' ORDER BY item_id, file_name), '')
			|| (SELECT string_agg(id || modified_on::text, ',' ORDER BY id) FROM items) FROM attachments`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	ok := map[string]any{"fileName": "new.png", "type": "image", "role": "file"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name    string
		method  string
		item    string
		body    any
		status  int
		message string
	}{
		{"create: unknown item", "POST", missingID, ok, 404, msgNoItem},
		{"create: item of another tenant", "POST", foreign, ok, 404, msgNoItem},
		{"create: deleted item", "POST", deleted, ok, 404, msgNoItem},
		{"create: not an item id", "POST", "nope", ok, 404, msgNoItem},
		{"create: unparsable", "POST", id, `{"fileName":`, 400, "The server could not understand the request due to invalid syntax."},
		{"create: bad type", "POST", id, with("type", "movie"), 400, ""},
		{"create: bad role", "POST", id, with("role", "cover"), 400, ""},
		{"create: no fileName", "POST", id, map[string]any{"type": "image", "role": "file"}, 400, ""},
		{"create: empty fileName", "POST", id, with("fileName", ""), 400, "fileName must be 1 to 255 characters"},
		{"create: long fileName", "POST", id, with("fileName", strings.Repeat("x", 256)), 400, "fileName must be 1 to 255 characters"},
		{"create: slash", "POST", id, with("fileName", "../etc/passwd"), 400, "fileName must not contain /"},
		{"create: control character", "POST", id, with("fileName", "a\nb.png"), 400, "fileName must not contain control characters"},
		{"create: bad language", "POST", id, with("language", "english please"), 400, ""},
		{"create: unknown key", "POST", id, with("colour", "red"), 400, ""},
		{"update: unknown item", "PUT", missingID, map[string]any{"fileName": "a.png", "type": "file"}, 404, msgNoItem},
		{"update: item of another tenant", "PUT", foreign, map[string]any{"fileName": "a.png", "type": "file"}, 404, msgNoItem},
		{"update: deleted item", "PUT", deleted, map[string]any{"fileName": "a.png"}, 404, msgNoItem},
		{"update: unknown attachment", "PUT", id, map[string]any{"fileName": "c.png", "type": "file"}, 404, msgNoAttachment},
		{"update: new name taken", "PUT", id, map[string]any{"fileName": "a.png", "newFileName": "b.png"}, 409, `the item already has an attachment named "b.png"`},
		{"update: bad new name", "PUT", id, map[string]any{"fileName": "a.png", "newFileName": "x/y"}, 400, "newFileName must not contain /"},
		{"update: bad type", "PUT", id, map[string]any{"fileName": "a.png", "type": "movie"}, 400, ""},
		{"update: unparsable", "PUT", id, `nope`, 400, "The server could not understand the request due to invalid syntax."},
		{"delete: unknown item", "DELETE", missingID, map[string]any{"fileName": "a.png", "type": "image"}, 404, msgNoItem},
		{"delete: item of another tenant", "DELETE", foreign, map[string]any{"fileName": "a.png"}, 404, msgNoItem},
		{"delete: deleted item", "DELETE", deleted, map[string]any{"fileName": "a.png"}, 404, msgNoItem},
		{"delete: not an item id", "DELETE", "nope", map[string]any{"fileName": "a.png"}, 404, msgNoItem},
		{"delete: unknown attachment", "DELETE", id, map[string]any{"fileName": "c.png", "type": "image"}, 404, msgNoAttachment},
		{"delete: no body", "DELETE", id, nil, 400, "Missing request body."},
		{"delete: unparsable", "DELETE", id, `{"fileName"`, 400, "The server could not understand the request due to invalid syntax."},
		{"delete: no fileName", "DELETE", id, map[string]any{"type": "image"}, 400, ""},
		{"delete: bad type", "DELETE", id, map[string]any{"fileName": "a.png", "type": "movie"}, 400, ""},
		{"delete: unknown key", "DELETE", id, map[string]any{"fileName": "a.png", "role": "file", "shred": true}, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Do(t, c.method, "/api/v1/items/"+c.item+"/attachments", c.body).Envelope(c.status, c.message)
		})
	}
	if after := snapshot(); after != before {
		t.Fatalf("refused writes changed attachments or items:\nbefore %s\nafter  %s", before, after)
	}
}

func TestBlobLinksRefuseWhatTheyWereNotSignedFor(t *testing.T) {
	api := loupetest.New(t, func(c *server.Config) { c.MaxUploadBytes = 1024 })
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	put := createAttachment(t, a, id, map[string]any{"fileName": "a.txt", "type": "file", "role": "file"})
	upload(t, api, put, []byte("hello"))
	get := listAttachments(t, a, "/api/v1/items/"+id+"/attachments")[0]["downloadUrl"].(string)
	key := blobKeyOf(t, put)

	tamper := func(link, k, v string) string {
		u, _ := url.Parse(link)
		q := u.Query()
		q.Set(k, v)
		u.RawQuery = q.Encode()
		return u.String()
	}
	const bad, expired = "The link is not valid for this request.", "The link has expired."
	cases := []struct {
		name    string
		method  string
		link    string
		body    any
		status  int
		message string
	}{
		{"download with the upload link", "GET", put, nil, 403, bad},
		{"upload with the download link", "PUT", get, "evil", 403, bad},
		{"method in the query changed", "PUT", tamper(get, "method", "PUT"), "evil", 403, bad},
		{"signature changed", "GET", tamper(get, "signature", strings.Repeat("0", 64)), nil, 403, bad},
		{"expiry extended", "GET", tamper(get, "expires", "99999999999"), nil, 403, bad},
		{"no signature", "GET", api.URL + blob.PathPrefix + key, nil, 403, bad},
		{"other key", "GET", strings.Replace(get, "/attachments/", "/thumbnails/", 1), nil, 403, bad},
		{"other method", "DELETE", get, nil, 403, bad},
		{"expired download", "GET", api.Blobs.URL("GET", key, time.Now().Add(-blob.LinkValidity-time.Second), blob.LinkValidity), nil, 403, expired},
		{"expired upload", "PUT", api.Blobs.URL("PUT", key, time.Now().Add(-blob.LinkValidity-time.Second), blob.LinkValidity), "evil", 403, expired},
		{"oversized upload", "PUT", put, bytes.Repeat([]byte("x"), 1025), 413, "The upload is larger than 1024 bytes."},
		{"signed, but never uploaded", "GET", api.Blobs.URL("GET", a.TenantID+"/items/"+id+"/attachments/nothing", time.Now(), blob.LinkValidity), nil, 404, "The server can not find requested resource."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api.Anonymous().Do(t, c.method, linkPath(t, api, c.link), c.body).Envelope(c.status, c.message)
		})
	}
	// Nothing refused reached the file.
	if body := download(t, api, get).Status(200).Body; string(body) != "hello" {
		t.Fatalf("after refused requests the file holds %q", body)
	}
	// An upload right at the cap is taken; one over it without a declared
	// length is refused as it streams, and leaves the old file.
	upload(t, api, put, bytes.Repeat([]byte("y"), 1024))
	req, _ := http.NewRequest("PUT", put, struct{ io.Reader }{strings.NewReader(strings.Repeat("z", 4096))})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("streamed oversized upload: status %d, want 413", resp.StatusCode)
	}
	if body := download(t, api, get).Status(200).Body; !bytes.Equal(body, bytes.Repeat([]byte("y"), 1024)) {
		t.Fatalf("after a refused upload the file holds %d bytes", len(body))
	}
}

func equalJSON(got any, want []any) bool {
	g, ok := got.([]any)
	if !ok || len(g) != len(want) {
		return false
	}
	for i := range g {
		if g[i] != want[i] {
			return false
		}
	}
	return true
}

// Confirming an attachment of type poster and role thumbnail (PUT
// …/attachments, as integrations set a poster frame) makes its file the
// item's thumbnail, with thumbnailInfo saying a user chose it — before
// processing makes a thumbnail, and after: the user's choice wins. It goes
// (back to what processing made) when the attachment stops being a poster
// thumbnail, is deleted or is replaced.
func TestPosterConfirmedAsThumbnail(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "editor@a.test", nil, false)
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	attachments := "/api/v1/items/" + id + "/attachments"
	thumb := func() (any, any) {
		t.Helper()
		it := a.Get(t, "/api/v1/items/"+id).Status(200).Object()
		var g struct {
			Item struct {
				Thumbnail     any `json:"thumbnail"`
				ThumbnailInfo any `json:"thumbnailInfo"`
			} `json:"item"`
		}
		a.GraphQL(t, `query($id: ID!) { item(id: $id) { thumbnail thumbnailInfo } }`, map[string]any{"id": id}).OK(&g)
		sameJSON(t, "GraphQL thumbnailInfo and REST's", g.Item.ThumbnailInfo, it["thumbnailInfo"])
		// Links of the same file (signed a moment apart).
		gt, rt := g.Item.Thumbnail, it["thumbnail"]
		if gs, ok := gt.(string); ok && strings.HasPrefix(gs, api.URL) {
			gt = blobKeyOf(t, gs)
		}
		if rs, ok := rt.(string); ok && strings.HasPrefix(rs, api.URL) {
			rt = blobKeyOf(t, rs)
		}
		if gt != rt {
			t.Fatalf("GraphQL thumbnail %v, REST %v", g.Item.Thumbnail, it["thumbnail"])
		}
		return it["thumbnail"], it["thumbnailInfo"]
	}
	userChoice := func(key, fileName, userID string) {
		t.Helper()
		link, info := thumb()
		if s, _ := link.(string); s == "" || blobKeyOf(t, s) != key {
			t.Fatalf("thumbnail %v, want a link to %s", link, key)
		}
		m, _ := info.(map[string]any)
		if m["chosenBy"] != "user" || m["attachment"] != fileName || m["userId"] != userID || len(m) != 4 {
			t.Fatalf("thumbnailInfo %v, want the user's choice of %s by %s", info, fileName, userID)
		}
		if ts, _ := m["chosenOn"].(string); !strings.HasSuffix(ts, "Z") {
			t.Fatalf("chosenOn %v", m["chosenOn"])
		}
	}
	if link, info := thumb(); link != nil || info != nil {
		t.Fatalf("a new item's thumbnail: %v %v", link, info)
	}

	// Registered and uploaded, not confirmed: not yet the thumbnail.
	frame := map[string]any{"fileName": "frame.jpg", "type": "poster", "role": "thumbnail"}
	link := createAttachment(t, a, id, frame)
	upload(t, api, link, []byte("\xff\xd8\xff\xe0 frame"))
	if got, _ := thumb(); got != nil {
		t.Fatalf("an unconfirmed poster is the thumbnail: %v", got)
	}
	// Confirmed (by another user than the uploader): it is, and serves the file.
	editor.Put(t, attachments, frame).Status(200)
	userChoice(blobKeyOf(t, link), "frame.jpg", editor.UserID)
	got, _ := thumb()
	if body := download(t, api, got.(string)).Status(200).Body; string(body) != "\xff\xd8\xff\xe0 frame" {
		t.Fatalf("the thumbnail link serves %q", body)
	}

	// Processing makes a thumbnail afterwards: the user's choice still wins.
	api.DB.MustExec(`UPDATE items SET media = media || '{"thumbnail": "made.jpg", "thumbnailInfo": {"by": "processing"}}'
		WHERE id = $1`, id)
	userChoice(blobKeyOf(t, link), "frame.jpg", editor.UserID)
	processing := func() {
		t.Helper()
		link, info := thumb()
		if link != "made.jpg" {
			t.Fatalf("thumbnail %v, want processing's", link)
		}
		sameJSON(t, "thumbnailInfo", info, map[string]any{"by": "processing"})
	}

	// Renamed, it stays the thumbnail; made a plain file, it is no longer.
	a.Put(t, attachments, map[string]any{"fileName": "frame.jpg", "newFileName": "poster frame.jpg"}).Status(200)
	userChoice(blobKeyOf(t, link), "poster frame.jpg", a.UserID)
	a.Put(t, attachments, map[string]any{"fileName": "poster frame.jpg", "role": "file"}).Status(200)
	processing()
	// Another attachment written leaves the choice alone; deleting the
	// chosen one ends it.
	a.Put(t, attachments, map[string]any{"fileName": "poster frame.jpg", "role": "thumbnail"}).Status(200)
	createAttachment(t, a, id, map[string]any{"fileName": "notes.txt", "type": "file", "role": "file"})
	a.Put(t, attachments, map[string]any{"fileName": "notes.txt", "description": "n"}).Status(200)
	a.Do(t, "DELETE", attachments, map[string]any{"fileName": "notes.txt"}).Status(200)
	userChoice(blobKeyOf(t, link), "poster frame.jpg", a.UserID)
	a.Do(t, "DELETE", attachments, map[string]any{"fileName": "poster frame.jpg", "type": "poster"}).Status(200)
	processing()

	// Replaced by a create of the same name (a new file): it ends too,
	// until the new one is confirmed.
	second := createAttachment(t, a, id, frame)
	a.Put(t, attachments, frame).Status(200)
	userChoice(blobKeyOf(t, second), "frame.jpg", a.UserID)
	third := createAttachment(t, a, id, frame)
	processing()
	a.Put(t, attachments, frame).Status(200)
	userChoice(blobKeyOf(t, third), "frame.jpg", a.UserID)
}
