package upload_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// tusAnswer is a tus answer as a client reads it.
type tusAnswer struct {
	status              int
	contentType, tusVer string
	body                []byte
	env                 struct {
		Error struct {
			StatusCode       int            `json:"statusCode"`
			Message          string         `json:"message"`
			DeveloperMessage string         `json:"developerMessage"`
			Payload          map[string]any `json:"payload"`
		} `json:"error"`
	}
}

func tusDo(t *testing.T, api *loupetest.API, c *loupetest.Client, method, path, body string, h map[string]string) tusAnswer {
	t.Helper()
	req, err := http.NewRequest(method, api.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Authorization", "Bearer "+c.Key)
	for k, v := range h {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := tusAnswer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), tusVer: resp.Header.Get("Tus-Resumable")}
	if a.body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	if len(a.body) > 0 {
		if err := json.Unmarshal(a.body, &a.env); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", method, path, a.body, err)
		}
	}
	return a
}

// Every tus error answers the API's envelope (spec section 7) with tus's
// own status and headers: the status in statusCode, a sentence saying what
// to do in message, the tus code in payload.key. Another tenant's upload
// answers exactly as a missing one.
func TestTusErrorsAnswerTheEnvelope(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	admin := w.Admin()
	item := w.IDs["privItem"] // seen by admin, editor, owner; changed by admin, owner
	path := newTus(t, w.API, admin).create(10, metadata("itemId", item, "filename", "a.bin"))
	patch := func(offset int, body string, h ...string) map[string]string {
		m := map[string]string{"Content-Type": "application/offset+octet-stream", "Upload-Offset": strconv.Itoa(offset)}
		for i := 0; i+1 < len(h); i += 2 {
			m[h[i]] = h[i+1]
		}
		return m
	}
	missing := upload.PathPrefix + "/" + loupetest.AccessMissing
	for _, c := range []struct {
		name, user, method, path, body string
		h                              map[string]string
		status                         int
		key, says                      string
	}{
		{"no Upload-Length", "admin", "POST", upload.PathPrefix, "", map[string]string{"Upload-Metadata": metadata("filename", "a")},
			400, "ERR_INVALID_UPLOAD_LENGTH", "Upload-Length must be the file's size"},
		{"beyond the max size", "admin", "POST", upload.PathPrefix, "", map[string]string{"Upload-Length": strconv.FormatInt(upload.MaxSize+1, 10)},
			413, "ERR_MAX_SIZE_EXCEEDED", "at most " + strconv.FormatInt(upload.MaxSize, 10) + " bytes"},
		{"deferred length", "admin", "POST", upload.PathPrefix, "", map[string]string{"Upload-Defer-Length": "1"},
			501, "ERR_NOT_IMPLEMENTED", "declare Upload-Length"},
		{"NUL in the file name", "admin", "POST", upload.PathPrefix, "", map[string]string{"Upload-Length": "1", "Upload-Metadata": metadata("filename", "a\x00b")},
			400, "ERR_INVALID_UPLOAD", "Filename must be at most 1024 bytes of UTF-8 without NUL."},
		{"no Tus-Resumable", "admin", "PATCH", path, "0123", patch(0, "", "Tus-Resumable", ""),
			412, "ERR_UNSUPPORTED_VERSION", "Tus-Resumable must be 1.0.0"},
		{"wrong Content-Type", "admin", "PATCH", path, "0123", patch(0, "", "Content-Type", "text/plain"),
			400, "ERR_INVALID_CONTENT_TYPE", "application/offset+octet-stream"},
		{"offset mismatch", "admin", "PATCH", path, "0123", patch(3, ""),
			409, "ERR_MISMATCHED_OFFSET", "HEAD the upload URL and send from the Upload-Offset it answers"},
		{"beyond Upload-Length", "admin", "PATCH", path, "0123456789AB", patch(0, ""),
			413, "ERR_UPLOAD_SIZE_EXCEEDED", "more bytes than the upload's Upload-Length leaves"},
		{"missing upload", "admin", "PATCH", missing, "0123", patch(0, ""),
			404, "ERR_UPLOAD_NOT_FOUND", "Upload not found"},
		{"another tenant's upload", "other", "PATCH", path, "0123", patch(0, ""),
			404, "ERR_UPLOAD_NOT_FOUND", "Upload not found"},
		{"an item it may not see", "sales", "PATCH", path, "0123", patch(0, ""),
			404, "ERR_UPLOAD_NOT_FOUND", "Upload not found"},
		{"an item it may not change", "editor", "PATCH", path, "0123", patch(0, ""),
			403, "ERR_FORBIDDEN", "You may not change this item."},
		{"GET", "admin", "GET", path, "", nil,
			404, "ERR_UPLOAD_NOT_FOUND", "Upload not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := tusDo(t, w.API, w.Users[c.user], c.method, c.path, c.body, c.h)
			e := a.env.Error
			if a.status != c.status || !strings.HasPrefix(a.contentType, "application/json") || a.tusVer != "1.0.0" {
				t.Fatalf("%d %q Tus-Resumable %q (%s), want %d application/json 1.0.0", a.status, a.contentType, a.tusVer, a.body, c.status)
			}
			if e.StatusCode != c.status || e.Payload["key"] != c.key || !strings.Contains(e.Message, c.says) ||
				!strings.HasPrefix(e.DeveloperMessage, c.key+": ") {
				t.Fatalf("body %s, want statusCode %d, payload.key %s, a message saying %q", a.body, c.status, c.key, c.says)
			}
		})
	}
	// Nothing tells another tenant's or an invisible upload from a missing
	// one: the same bytes.
	want := tusDo(t, w.API, admin, "PATCH", missing, "0123", patch(0, "")).body
	for _, user := range []string{"other", "sales"} {
		if got := tusDo(t, w.API, w.Users[user], "PATCH", path, "0123", patch(0, "")).body; string(got) != string(want) {
			t.Errorf("%s: %s, want the missing upload's %s", user, got, want)
		}
	}
	// A HEAD answers the status and headers, without a body.
	if a := tusDo(t, w.API, admin, "HEAD", missing, "", nil); a.status != 404 || len(a.body) != 0 || a.tusVer != "1.0.0" {
		t.Errorf("HEAD of a missing upload: %d %q %q", a.status, a.body, a.tusVer)
	}
	// After all that the upload is whole and untouched: it completes.
	if a := tusDo(t, w.API, admin, "PATCH", path, "0123456789", patch(0, "")); a.status != 204 {
		t.Fatalf("PATCH after the refusals: %d %s", a.status, a.body)
	}
	a := tusDo(t, w.API, admin, "DELETE", path, "", nil)
	if a.status != 409 || a.env.Error.Payload["key"] != "ERR_UPLOAD_COMPLETE" || !strings.Contains(a.env.Error.Message, "start a new upload") {
		t.Fatalf("DELETE of a complete upload: %d %s", a.status, a.body)
	}
	a = tusDo(t, w.API, admin, "POST", upload.PathPrefix, "", map[string]string{"Upload-Length": "10", "Upload-Metadata": metadata("itemId", item)})
	if a.status != 409 || a.env.Error.Payload["key"] != "ERR_CONFLICT" || a.env.Error.Message == "" {
		t.Fatalf("a second upload for the item: %d %s", a.status, a.body)
	}
}
