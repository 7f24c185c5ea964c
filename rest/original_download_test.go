package rest_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
)

// originalQuery is GraphQL's way to the original's link.
const originalQuery = `query($id: ID!) { originalDownload(itemId: $id) { itemId downloadUrl fileName size mediaType sha256 expiresOn } }`

type originalDownload struct {
	ItemID      string  `json:"itemId"`
	DownloadURL string  `json:"downloadUrl"`
	FileName    string  `json:"fileName"`
	Size        int64   `json:"size"`
	MediaType   *string `json:"mediaType"`
	SHA256      string  `json:"sha256"`
	ExpiresOn   string  `json:"expiresOn"`
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// getRange GETs link with a Range header.
func getRange(t *testing.T, link, rng string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, link, nil)
	req.Header.Set("Range", rng)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// checkOriginalLink downloads the original by its link: the exact bytes,
// saved under the file name, a range as 206 with that slice, and a
// tampered link refused.
func checkOriginalLink(t *testing.T, d originalDownload, data []byte, name string) {
	t.Helper()
	if d.FileName != name || d.Size != int64(len(data)) || d.SHA256 != sha256Hex(data) {
		t.Fatalf("original: %+v, want %s of %d bytes, sha256 %s", d, name, len(data), sha256Hex(data))
	}
	if exp, err := time.Parse(time.RFC3339, d.ExpiresOn); err != nil || exp.Sub(time.Now()) < blob.LinkValidity-time.Minute || exp.Sub(time.Now()) > blob.LinkValidity {
		t.Fatalf("expiresOn %s (%v), want in 5 days", d.ExpiresOn, err)
	}
	resp, body := fetch(t, d.DownloadURL)
	if resp.StatusCode != 200 || sha256Hex(body) != sha256Hex(data) {
		t.Fatalf("download: %d, %d bytes, sha256 %s, want %s", resp.StatusCode, len(body), sha256Hex(body), sha256Hex(data))
	}
	kind, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	if err != nil || kind != "attachment" || params["filename"] != name {
		t.Fatalf("Content-Disposition %q, want an attachment named %q", resp.Header.Get("Content-Disposition"), name)
	}
	resp, part := getRange(t, d.DownloadURL, "bytes=1000-4999")
	if resp.StatusCode != http.StatusPartialContent || string(part) != string(data[1000:5000]) {
		t.Fatalf("range: %d, %d bytes", resp.StatusCode, len(part))
	}
	// A link with another name or signature does not work.
	u, _ := url.Parse(d.DownloadURL)
	q := u.Query()
	for _, k := range []string{"filename", "signature", "X-Amz-Signature", "response-content-disposition"} {
		if q.Has(k) {
			q.Set(k, q.Get(k)+"0")
		}
	}
	u.RawQuery = q.Encode()
	if resp, _ := fetch(t, u.String()); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("tampered link: %d", resp.StatusCode)
	}
}

// The original comes back through REST and GraphQL as a signed link, to
// who may change the item; everyone else is refused the way the rest of the
// API refuses them. On local disk, once the upload and its processing are
// done, no empty directory is left in the store.
func TestOriginalDownloadOnDisk(t *testing.T) {
	mediatest.Need(t)
	w := loupetest.NewAccessWorld(t)
	admin := w.Admin()
	item := w.IDs["privItem"] // seen by admin, editor, owner; changed by admin, owner
	const name = "Clip été (take 2).mp4"
	data := lavfiClip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264",
		"-preset", "ultrafast", "-movflags", "+faststart")
	withOriginal(t, w.API, admin, item, name, data)
	if it := waitState(t, w.API, admin, item, nil, "complete", "failed"); it["transcodingState"] != "complete" {
		t.Fatalf("processing: %v", it["progressInfo"])
	}

	var d originalDownload
	admin.Get(t, "/api/v1/items/"+item+"/original").Status(http.StatusOK).JSON(&d)
	if d.ItemID != item || d.MediaType == nil || *d.MediaType != "video/mp4" || !strings.HasPrefix(d.DownloadURL, w.API.URL+blob.PathPrefix) {
		t.Fatalf("REST original: %+v", d)
	}
	checkOriginalLink(t, d, data, name)
	var g struct{ OriginalDownload originalDownload }
	w.Users["owner"].GraphQL(t, originalQuery, map[string]any{"id": item}).OK(&g)
	checkOriginalLink(t, g.OriginalDownload, data, name)

	// An expired link (signed five days and a second ago) is refused.
	key := strings.TrimPrefix(strings.SplitN(d.DownloadURL, "?", 2)[0], w.API.URL+blob.PathPrefix)
	key, _ = url.PathUnescape(key)
	old := w.API.Blobs.DownloadURL(key, name, time.Now().Add(-blob.LinkValidity-time.Second), blob.LinkValidity)
	resp, body := fetch(t, old)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), blob.MsgExpired) {
		t.Fatalf("expired link: %d %s", resp.StatusCode, body)
	}

	// Who may only see the item is refused; who may not see it, another
	// tenant and a missing id all get the same 404.
	msg := w.Users["editor"].Get(t, "/api/v1/items/"+item+"/original").Envelope(http.StatusForbidden, "")["message"].(string)
	if !strings.Contains(msg, "right to change the item") {
		t.Fatalf("editor: %q", msg)
	}
	w.Users["editor"].GraphQL(t, originalQuery, map[string]any{"id": item}).ErrorCode("FORBIDDEN")
	missing := admin.Get(t, "/api/v1/items/"+loupetest.AccessMissing+"/original")
	missing.Envelope(http.StatusNotFound, "The server can not find requested resource.")
	for _, user := range []string{"sales", "other"} {
		if got := w.Users[user].Get(t, "/api/v1/items/"+item+"/original"); got.Code != 404 || string(got.Body) != string(missing.Body) {
			t.Fatalf("%s: %d %s, want the missing id's %s", user, got.Code, got.Body, missing.Body)
		}
		w.Users[user].GraphQL(t, originalQuery, map[string]any{"id": item}).ErrorCode("NOT_FOUND")
	}
	// An item without an original says so.
	bare := admin.CreateItem(t, map[string]any{"title": "No file", "itemType": "video"})
	if m := admin.Get(t, "/api/v1/items/"+bare+"/original").Envelope(http.StatusNotFound, "")["message"]; !strings.Contains(m.(string), "no original") {
		t.Fatalf("no original: %v", m)
	}

	// Nothing empty is left behind: the upload's tail and staging
	// directories, the early poster's generated/early-N/.
	root := w.API.Files.(*blob.Disk).Root()
	var empty []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		empty = emptyDirsUnder(t, root)
		if len(empty) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(empty) > 0 {
		t.Fatalf("empty directories left in the store: %v", empty)
	}
}

func emptyDirsUnder(t *testing.T, root string) []string {
	t.Helper()
	var empty []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() || p == root {
			return err
		}
		if entries, err := os.ReadDir(p); err == nil && len(entries) == 0 {
			rel, _ := filepath.Rel(root, p)
			empty = append(empty, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return empty
}

// With the files in S3 the link is a presigned URL of the bucket; once the
// original moved to a storage location, a URL presigned with that
// location's credentials (its secret never in the link).
func TestOriginalDownloadOnS3(t *testing.T) {
	cfg := s3test.Bucket(t)
	s3, err := blob.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	api := loupetest.New(t, func(c *server.Config) {
		c.Files = s3
		c.Blobs.DirectDownloads(s3)
	})
	a := api.Tenant(t, "a")
	data := make([]byte, 200<<10) // not media: processing fails, the original stays
	rand.Read(data)
	const name = "Données brutes.bin"
	item := a.CreateItem(t, map[string]any{"title": "In S3", "itemType": "document"})
	withOriginal(t, api, a, item, name, data)
	waitState(t, api, a, item, nil, "complete", "failed")

	var d originalDownload
	a.Get(t, "/api/v1/items/"+item+"/original").Status(http.StatusOK).JSON(&d)
	if !strings.HasPrefix(d.DownloadURL, cfg.Endpoint+"/"+cfg.Bucket+"/") || !strings.Contains(d.DownloadURL, "X-Amz-Signature=") {
		t.Fatalf("not a presigned URL to the bucket: %s", d.DownloadURL)
	}
	checkOriginalLink(t, d, data, name)

	a.Post(t, slPath, slBody(cfg, map[string]any{"isDefault": true})).Status(http.StatusOK).Object()
	a.Post(t, "/api/v1/items/"+item+"/migrateMediaLocation", "").Status(http.StatusOK)
	if m := waitMigration(t, a, item); m["state"] != "complete" {
		t.Fatalf("migration: %v", m)
	}
	var g struct{ OriginalDownload originalDownload }
	a.GraphQL(t, originalQuery, map[string]any{"id": item}).OK(&g)
	if strings.Contains(g.OriginalDownload.DownloadURL, cfg.SecretAccessKey) || !strings.Contains(g.OriginalDownload.DownloadURL, "X-Amz-Signature=") {
		t.Fatalf("location link: %s", g.OriginalDownload.DownloadURL)
	}
	checkOriginalLink(t, g.OriginalDownload, data, name)
}
