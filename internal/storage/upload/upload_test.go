package upload_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
)

func TestMain(m *testing.M) { s3test.Main(m) }

const partSize = 5 << 20

// tusClient speaks tus 1.0 over plain net/http, as a test sees it.
type tusClient struct {
	t   *testing.T
	api *loupetest.API
	key string
}

func newTus(t *testing.T, api *loupetest.API, c *loupetest.Client) *tusClient {
	if c == nil {
		return &tusClient{t: t, api: api}
	}
	return &tusClient{t: t, api: api, key: c.Key}
}

func (c *tusClient) on(api *loupetest.API) *tusClient { d := *c; d.api = api; return &d }

func (c *tusClient) do(method, path string, body io.Reader, length int64, h map[string]string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.api.URL+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if length >= 0 {
		req.ContentLength = length
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func metadata(kv ...string) string {
	var parts []string
	for i := 0; i < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

// create makes an upload and answers its path.
func (c *tusClient) create(size int, meta string) string {
	c.t.Helper()
	resp := c.do("POST", upload.PathPrefix, nil, 0, map[string]string{
		"Upload-Length": strconv.Itoa(size), "Upload-Metadata": meta})
	if resp.StatusCode != 201 {
		c.t.Fatalf("create: %d", resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(u.Path, upload.PathPrefix+"/") {
		c.t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return u.Path
}

func (c *tusClient) head(path string) (int, int64) {
	c.t.Helper()
	resp := c.do("HEAD", path, nil, -1, nil)
	off, _ := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	return resp.StatusCode, off
}

// patch sends body at offset; length -1 sends it chunked (no
// Content-Length).
func (c *tusClient) patch(path string, offset int64, body []byte, chunked bool) *http.Response {
	c.t.Helper()
	var r io.Reader = bytes.NewReader(body)
	length := int64(len(body))
	if chunked {
		r, length = io.MultiReader(bytes.NewReader(body)), -1
	}
	return c.do("PATCH", path, r, length, map[string]string{
		"Content-Type": "application/offset+octet-stream", "Upload-Offset": strconv.FormatInt(offset, 10)})
}

// cutPatch declares the rest of the file and sends only n bytes, then drops
// the connection.
func (c *tusClient) cutPatch(path string, offset int64, rest []byte, n int) {
	c.t.Helper()
	u, _ := url.Parse(c.api.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		c.t.Fatal(err)
	}
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "PATCH %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nTus-Resumable: 1.0.0\r\n"+
		"Content-Type: application/offset+octet-stream\r\nUpload-Offset: %d\r\nContent-Length: %d\r\n\r\n",
		path, u.Host, c.key, offset, len(rest))
	w.Write(rest[:n])
	if err := w.Flush(); err != nil {
		c.t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	conn.Close()
}

// noisePNG is a real PNG of about w*h*4 bytes that does not compress.
func noisePNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	img.Set(0, 0, color.NRGBA{1, 2, 3, 255})
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	if err := enc.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type backend struct {
	name  string
	files func(t *testing.T) blob.Store
}

var backends = []backend{
	{"disk", func(t *testing.T) blob.Store {
		d, err := blob.NewDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}},
	{"s3", func(t *testing.T) blob.Store {
		cfg := s3test.Bucket(t)
		cfg.PartSize = partSize
		s, err := blob.NewS3(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
}

func withFiles(files blob.Store) loupetest.Option {
	return func(c *server.Config) { c.Files, c.UploadPartSize = files, partSize }
}

type itemView struct {
	MediaSize                 *int64         `json:"mediaSize"`
	MediaType                 *string        `json:"mediaType"`
	OriginalFileName          string         `json:"originalFileName"`
	SourceFileLocation        *string        `json:"sourceFileLocation"`
	ItemState                 *string        `json:"itemState"`
	TranscodingState          string         `json:"transcodingState"`
	IsExternalUpload          bool           `json:"isExternalUpload"`
	UploadRequestedAt         *string        `json:"uploadRequestedAt"`
	UploadProgressInfo        map[string]any `json:"uploadProgressInfo"`
	UploadLockOwnerInstanceID *string        `json:"uploadLockOwnerInstanceId"`
}

// The whole life of an upload on each backend: creation for an existing
// item, PATCHes of odd sizes (with and without Content-Length), a request
// cut mid-body, a restart (another server on the same database and
// files), completion; the checksum, the sniffed type, the processing job,
// other tenants.
func TestUploadResumesAcrossCutsAndRestarts(t *testing.T) {
	type variant struct {
		backend
		readAhead int64 // server.Config.UploadReadAhead
	}
	// Parts read ahead into memory (the default) and parts streamed one
	// at a time (a node whose read-ahead memory is spent).
	variants := []variant{{backends[0], 0}, {backends[1], 0}, {backends[0], -1}, {backends[1], -1}}
	for _, b := range variants {
		name := b.name
		if b.readAhead < 0 {
			name += " streamed"
		}
		t.Run(name, func(t *testing.T) {
			files := b.files(t)
			withFiles := func(files blob.Store) loupetest.Option {
				return func(c *server.Config) { withFiles(files)(c); c.UploadReadAhead = b.readAhead }
			}
			api := loupetest.New(t, withFiles(files))
			a := api.Tenant(t, "a")
			other := api.Tenant(t, "b")
			itemID := a.CreateItem(t, map[string]any{"title": "Holiday", "itemType": "image"})
			file := noisePNG(t, 2000, 1800) // ~14.4 MB: three parts and a bit
			sum := sha256.Sum256(file)
			tc := newTus(t, api, a)

			path := tc.create(len(file), metadata("itemId", itemID, "filename", "../photos/holiday shot.mov", "filetype", "video/mp4"))
			var it itemView
			a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
			if it.ItemState == nil || *it.ItemState != "uploading" || it.UploadRequestedAt == nil || it.IsExternalUpload ||
				it.UploadProgressInfo["totalBytes"] != float64(len(file)) || it.UploadProgressInfo["bytesReceived"] != 0.0 {
				t.Fatalf("after create: %+v", it)
			}

			// Other tenants see nothing.
			ot := newTus(t, api, other)
			if code, _ := ot.head(path); code != 404 {
				t.Fatalf("another tenant's HEAD: %d", code)
			}
			if resp := ot.patch(path, 0, file[:10], false); resp.StatusCode != 404 {
				t.Fatalf("another tenant's PATCH: %d", resp.StatusCode)
			}
			if resp := ot.do("DELETE", path, nil, -1, nil); resp.StatusCode != 404 {
				t.Fatalf("another tenant's DELETE: %d", resp.StatusCode)
			}

			off := int64(0)
			step := func(n int, chunked bool) {
				t.Helper()
				resp := tc.patch(path, off, file[off:off+int64(n)], chunked)
				if resp.StatusCode != 204 {
					t.Fatalf("PATCH %d bytes at %d: %d", n, off, resp.StatusCode)
				}
				got, _ := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
				if got != off+int64(n) {
					t.Fatalf("PATCH answered offset %d, want %d", got, off+int64(n))
				}
				off = got
			}
			step(1_000_003, false) // a tail only
			step(6_000_001, true)  // completes part 1 from the tail, spooled; a new tail
			if _, h := tc.head(path); h != off {
				t.Fatalf("HEAD offset %d, want %d", h, off)
			}
			a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
			if it.UploadProgressInfo["bytesReceived"] != float64(off) {
				t.Fatalf("progress %v, want %d bytes", it.UploadProgressInfo, off)
			}

			// Cut mid-body: part 2 is completed from what arrived, the rest
			// of what arrived (less than a part) is lost.
			tc.cutPatch(path, off, file[off:], 5<<20+123)
			waitUnlocked(t, api, path) // the cut request has ended (a HEAD now would interrupt it)
			_, h := tc.head(path)
			if h != 2*partSize {
				t.Fatalf("after the cut, HEAD offset %d, want the durable %d", h, 2*partSize)
			}
			off = h
			a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
			if it.UploadLockOwnerInstanceID != nil {
				t.Fatalf("the lock outlived the cut request: %v", *it.UploadLockOwnerInstanceID)
			}

			// A restart: another server on the same database and files.
			api2 := api.Another(t, withFiles(files))
			tc2 := tc.on(api2)
			if _, h := tc2.head(path); h != off {
				t.Fatalf("after restart, HEAD %d, want %d", h, off)
			}
			step2 := func(n int) *http.Response {
				resp := tc2.patch(path, off, file[off:off+int64(n)], false)
				if resp.StatusCode != 204 {
					t.Fatalf("PATCH on the second server: %d", resp.StatusCode)
				}
				off += int64(n)
				return resp
			}
			step2(777_777)
			resp := step2(len(file) - int(off))
			if got := resp.Header.Get("Loupe-Media-Sha256"); got != hex.EncodeToString(sum[:]) {
				t.Fatalf("completing PATCH answered checksum %q", got)
			}

			var g struct {
				Item struct {
					MediaSHA256 string `json:"mediaSha256"`
					MediaType   string `json:"mediaType"`
					MediaSize   int64  `json:"mediaSize"`
				} `json:"item"`
			}
			a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaSha256 mediaType mediaSize } }`, map[string]any{"id": itemID}).OK(&g)
			if g.Item.MediaSHA256 != hex.EncodeToString(sum[:]) || g.Item.MediaType != "image/png" || g.Item.MediaSize != int64(len(file)) {
				t.Fatalf("item after upload: %+v", g.Item)
			}
			a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
			if it.MediaType == nil || *it.MediaType != "image/png" || it.OriginalFileName != "holiday shot.mov" ||
				// Processing (internal/media/worker) may already have taken it.
				it.ItemState == nil || !strings.Contains(" uploaded processing ready ", " "+*it.ItemState+" ") ||
				!strings.Contains(" queued processing complete ", " "+it.TranscodingState+" ") ||
				it.SourceFileLocation == nil || it.UploadProgressInfo["percent"] != 100.0 {
				t.Fatalf("item after upload: %+v", it)
			}
			key, ok := loupe.FileKey(*it.SourceFileLocation)
			if !ok || !strings.HasPrefix(key, a.TenantID+"/items/"+itemID+"/original/") || !strings.HasSuffix(key, "/holiday_shot.mov") {
				t.Fatalf("sourceFileLocation %q", *it.SourceFileLocation)
			}
			got, err := blob.SHA256Of(context.Background(), files, key)
			if err != nil || got != hex.EncodeToString(sum[:]) {
				t.Fatalf("stored file's SHA-256 %s (%v)", got, err)
			}
			if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'process_item' AND args->>'itemId' = $1
				AND args->>'reason' = 'upload' AND queue = 'interactive'`, itemID); n != 1 {
				t.Fatalf("%d process_item jobs", n)
			}
			// A PATCH after the end changes nothing; no tail is left.
			if resp := tc.patch(path, off, nil, false); resp.StatusCode != 204 {
				t.Fatalf("PATCH after completion: %d", resp.StatusCode)
			}
			if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'process_item'`); n != 1 {
				t.Fatalf("%d process_item jobs after a repeated PATCH", n)
			}
			page, _, err := files.List(context.Background(), a.TenantID+"/uploads/", "", 10)
			if err != nil || len(page) != 0 {
				t.Fatalf("tails left: %v (%v)", page, err)
			}
			// Terminating a complete upload is refused: it is the original.
			if resp := tc.do("DELETE", path, nil, -1, nil); resp.StatusCode != 409 {
				t.Fatalf("DELETE of a complete upload: %d", resp.StatusCode)
			}
			// A completion that the store did but the database missed (it
			// went away): the next request holding the lock completes it,
			// finding the multipart upload gone and the file there.
			api.DB.MustExec(`UPDATE uploads SET state = 'uploading', sha256 = '' WHERE item_id = $1`, itemID)
			api.DB.MustExec(`UPDATE items SET media_size = NULL, media = media - 'sourceFileLocation' - 'mediaSha256' WHERE id = $1`, itemID)
			api.DB.MustExec(`DELETE FROM river_job WHERE kind = 'process_item'`)
			if code, h := tc.head(path); code != 200 || h != int64(len(file)) {
				t.Fatalf("HEAD of an unfinished complete upload: %d %d", code, h)
			}
			a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaSha256 mediaType mediaSize } }`, map[string]any{"id": itemID}).OK(&g)
			if g.Item.MediaSHA256 != hex.EncodeToString(sum[:]) || g.Item.MediaSize != int64(len(file)) {
				t.Fatalf("item after the recovered completion: %+v", g.Item)
			}
			if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'process_item'`); n != 1 {
				t.Fatalf("%d process_item jobs after the recovered completion", n)
			}

			// A second upload for an item that has its original is refused.
			resp = tc.do("POST", upload.PathPrefix, nil, 0, map[string]string{
				"Upload-Length": "10", "Upload-Metadata": metadata("itemId", itemID)})
			if resp.StatusCode != 409 {
				t.Fatalf("second upload: %d", resp.StatusCode)
			}
		})
	}
}

// waitUnlocked waits until no request holds the upload's lock.
func waitUnlocked(t *testing.T, api *loupetest.API, path string) {
	t.Helper()
	id := strings.TrimPrefix(path, upload.PathPrefix+"/")
	for deadline := time.Now().Add(20 * time.Second); api.Count(t, `SELECT count(*) FROM uploads WHERE id = $1 AND lock_token IS NULL`, id) != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the upload stayed locked")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func uploadLocked(t *testing.T, a *loupetest.Client, itemID string) bool {
	t.Helper()
	return a.Get(t, "/api/v1/items/"+itemID+"/upload").Status(200).Object()["isUploadLocked"] == true
}

// While a PATCH writes, the item's upload lock is held by this node; DELETE
// …/upload breaks it and the PATCH stops; the client resumes from what was
// stored. An external uploader's lock keeps tus writes out until released.
func TestUploadLock(t *testing.T) {
	api := loupetest.New(t, func(c *server.Config) { c.UploadPartSize, c.InstanceID = partSize, "node-a" })
	a := api.Tenant(t, "a")
	itemID := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tc := newTus(t, api, a)
	size := 12 << 20
	file := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	path := tc.create(size, metadata("itemId", itemID, "filename", "clip.bin"))

	pr, pw := io.Pipe()
	done := make(chan *http.Response, 1)
	go func() {
		done <- tc.do("PATCH", path, pr, int64(size), map[string]string{
			"Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
	}()
	if _, err := pw.Write(file[:6<<20]); err != nil { // a whole part and a bit
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !uploadLocked(t, a, itemID) {
		if time.Now().After(deadline) {
			t.Fatal("the item is not upload-locked while a PATCH writes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var it itemView
	a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
	if it.UploadLockOwnerInstanceID == nil || *it.UploadLockOwnerInstanceID != "node-a" {
		t.Fatalf("uploadLockOwnerInstanceId = %v", it.UploadLockOwnerInstanceID)
	}
	var g struct {
		Item struct {
			Upload struct {
				IsLocked            bool   `json:"isLocked"`
				LockOwnerInstanceID string `json:"lockOwnerInstanceId"`
				State               string `json:"state"`
				Size                int64  `json:"size"`
			} `json:"upload"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { upload { isLocked lockOwnerInstanceId state size } } }`,
		map[string]any{"id": itemID}).OK(&g)
	if u := g.Item.Upload; !u.IsLocked || u.LockOwnerInstanceID != "node-a" || u.State != "uploading" || u.Size != int64(size) {
		t.Fatalf("GraphQL upload = %+v", u)
	}

	// DELETE breaks the lock: the PATCH stops (once its first part is
	// stored, so that there is something to resume from).
	for api.Count(t, `SELECT received::int FROM uploads WHERE item_id = $1`, itemID) < partSize {
		if time.Now().After(deadline) {
			t.Fatal("the first part was not stored")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := a.Delete(t, "/api/v1/items/"+itemID+"/upload").Status(200).Object(); got["isUploadLocked"] != false {
		t.Fatalf("DELETE answered %v", got)
	}
	go func() { _, _ = io.Copy(pw, bytes.NewReader(file[6<<20:])) }() // whatever still fits
	select {
	case resp := <-done:
		if resp.StatusCode == 204 {
			t.Fatal("the PATCH went on after its lock was broken")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the PATCH did not stop after its lock was broken")
	}
	pr.CloseWithError(io.ErrClosedPipe)
	if uploadLocked(t, a, itemID) {
		t.Fatal("still locked after DELETE")
	}
	_, off := tc.head(path)
	if off < partSize || off > 6<<20 {
		t.Fatalf("offset %d after the interrupted PATCH, want at least the first part", off)
	}

	// An external uploader's lock keeps tus out until it is released.
	a.GraphQL(t, `mutation($id: ID!) { lockUpload(input: {id: $id, ownerInstanceId: "uploader-7"}) { isUploadLocked } }`,
		map[string]any{"id": itemID}).OK(nil)
	if resp := tc.patch(path, off, file[off:off+10], false); resp.StatusCode != http.StatusLocked {
		t.Fatalf("PATCH under an external lock: %d", resp.StatusCode)
	}
	a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
	if it.UploadLockOwnerInstanceID == nil || *it.UploadLockOwnerInstanceID != "uploader-7" {
		t.Fatalf("the external lock was changed: %v", it.UploadLockOwnerInstanceID)
	}
	a.Delete(t, "/api/v1/items/"+itemID+"/upload").Status(200)
	if resp := tc.patch(path, off, file[off:], false); resp.StatusCode != 204 {
		t.Fatalf("PATCH after release: %d", resp.StatusCode)
	}
	if uploadLocked(t, a, itemID) {
		t.Fatal("locked after the upload completed")
	}
}

// Without itemId the upload makes its item; a zero-byte upload completes
// at once; GraphQL's startUpload answers a URL tus takes the bytes at;
// termination forgets an unfinished upload and its parts.
func TestUploadNewItemsGraphQLAndTermination(t *testing.T) {
	files, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	api := loupetest.New(t, withFiles(files))
	a := api.Tenant(t, "a")
	tc := newTus(t, api, a)

	// A small real MP4 header (ftyp box), sent as a file that claims PNG.
	mp4 := append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x00\x00\x00\x08free"), bytes.Repeat([]byte{7}, 5000)...)
	path := tc.create(len(mp4), metadata("filename", "C:\\clips\\news.mp4", "filetype", "image/png"))
	id := strings.TrimPrefix(path, upload.PathPrefix+"/")
	var g struct {
		Upload struct {
			ItemID string `json:"itemId"`
			Offset int64  `json:"offset"`
			URL    string `json:"url"`
		} `json:"upload"`
	}
	a.GraphQL(t, `query($id: ID!) { upload(id: $id) { itemId offset url } }`, map[string]any{"id": id}).OK(&g)
	if g.Upload.ItemID == "" || g.Upload.Offset != 0 || !strings.HasSuffix(g.Upload.URL, path) {
		t.Fatalf("upload = %+v", g.Upload)
	}
	if resp := tc.patch(path, 0, mp4, false); resp.StatusCode != 204 || resp.Header.Get("Loupe-Item-Id") != g.Upload.ItemID {
		t.Fatalf("PATCH: %d %v", resp.StatusCode, resp.Header)
	}
	var it struct {
		Title            string  `json:"title"`
		ItemType         string  `json:"itemType"`
		MediaType        *string `json:"mediaType"`
		OriginalFileName string  `json:"originalFileName"`
		MediaSize        *int64  `json:"mediaSize"`
	}
	a.Get(t, "/api/v1/items/"+g.Upload.ItemID).Status(200).JSON(&it)
	if it.Title != "news.mp4" || it.ItemType != "video" || it.MediaType == nil || *it.MediaType != "video/mp4" ||
		it.OriginalFileName != "news.mp4" || it.MediaSize == nil || *it.MediaSize != int64(len(mp4)) {
		t.Fatalf("new item = %+v", it)
	}
	api.Tenant(t, "b").GraphQL(t, `query($id: ID!) { upload(id: $id) { id } }`, map[string]any{"id": id}).ErrorCode("NOT_FOUND")

	// Zero bytes: complete at creation.
	path = tc.create(0, metadata("filename", "empty.txt"))
	if _, off := tc.head(path); off != 0 {
		t.Fatalf("empty upload offset %d", off)
	}
	a.GraphQL(t, `query($id: ID!) { upload(id: $id) { state sha256 } }`,
		map[string]any{"id": strings.TrimPrefix(path, upload.PathPrefix+"/")}).OK(&g)

	// GraphQL starts an upload of an existing item; tus takes the bytes.
	itemID := a.CreateItem(t, map[string]any{"title": "Voice", "itemType": "audio"})
	var s struct {
		StartUpload struct {
			UploadURL string `json:"uploadUrl"`
			Upload    struct {
				ID       string `json:"id"`
				PartSize int64  `json:"partSize"`
			} `json:"upload"`
			Item struct {
				ItemState          string `json:"itemState"`
				UploadProgressInfo struct {
					TotalBytes int64 `json:"totalBytes"`
				} `json:"uploadProgressInfo"`
			} `json:"item"`
		} `json:"startUpload"`
	}
	data := bytes.Repeat([]byte("voice"), 3<<20) // 15 MiB: three parts
	a.GraphQL(t, `mutation($in: StartUploadInput!) { startUpload(input: $in) {
		uploadUrl upload { id partSize } item { itemState uploadProgressInfo } } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "fileName": "voice.wav", "size": len(data)}}).OK(&s)
	if s.StartUpload.Item.ItemState != "uploading" || s.StartUpload.Item.UploadProgressInfo.TotalBytes != int64(len(data)) ||
		s.StartUpload.Upload.PartSize != partSize {
		t.Fatalf("startUpload = %+v", s.StartUpload)
	}
	u, _ := url.Parse(s.StartUpload.UploadURL)
	if resp := tc.patch(u.Path, 0, data[:7<<20], false); resp.StatusCode != 204 {
		t.Fatalf("PATCH: %d", resp.StatusCode)
	}
	// Terminate: the upload, its parts and tail are gone; the item no
	// longer waits for it.
	if resp := tc.do("DELETE", u.Path, nil, -1, nil); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if code, _ := tc.head(u.Path); code != 404 {
		t.Fatalf("HEAD after DELETE: %d", code)
	}
	if n := api.Count(t, `SELECT count(*) FROM upload_parts WHERE upload_id = $1`, s.StartUpload.Upload.ID); n != 0 {
		t.Fatalf("%d parts left", n)
	}
	page, _, err := files.List(context.Background(), a.TenantID+"/uploads/", "", 10)
	if err != nil || len(page) != 0 {
		t.Fatalf("tails left: %v (%v)", page, err)
	}
	var after map[string]any
	a.Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&after)
	if after["itemState"] != nil || after["uploadProgressInfo"] != nil {
		t.Fatalf("item after termination: itemState %v, progress %v", after["itemState"], after["uploadProgressInfo"])
	}
	// A new upload of it can start again; a folder or a missing item cannot.
	a.GraphQL(t, `mutation($in: StartUploadInput!) { startUpload(input: $in) { uploadUrl } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "fileName": "voice.wav", "size": 10}}).OK(nil)
	a.GraphQL(t, `mutation($in: StartUploadInput!) { startUpload(input: $in) { uploadUrl } }`,
		map[string]any{"in": map[string]any{"itemId": a.ArchiveFolderID, "fileName": "x", "size": 10}}).ErrorCode("NOT_FOUND")
	api.Tenant(t, "c").GraphQL(t, `mutation($in: StartUploadInput!) { startUpload(input: $in) { uploadUrl } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "fileName": "x", "size": 10}}).ErrorCode("NOT_FOUND")
}

func TestPartSizeAndNames(t *testing.T) {
	for _, c := range []struct{ size, min, want int64 }{
		{0, 16 << 20, 16 << 20},
		{50 << 30, 8 << 20, 8 << 20},   // 50 GiB: 6,400 parts of 8 MiB
		{100 << 30, 8 << 20, 11 << 20}, // 100 GiB needs 10.24 MiB: 11 MiB
		{upload.MaxSize, 16 << 20, blob.MaxPartSize},
		{1 << 20, 1, blob.MinPartSize},
	} {
		if got := upload.PartSizeFor(c.size, c.min); got != c.want || (c.size+got-1)/got > blob.MaxParts {
			t.Errorf("PartSizeFor(%d, %d) = %d, want %d", c.size, c.min, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"clip.mov": "clip.mov", "../../etc/passwd": "passwd", `C:\a\b.mxf`: "b.mxf", ".hidden": "hidden",
		"a b\x00c?.mp4": "a_b_c_.mp4", "": "original", "...": "original", "Été 2026 (1).mov": "Été_2026_(1).mov",
		strings.Repeat("é", 300): strings.Repeat("é", 100),
	} {
		if got := upload.SafeName(in); got != want || blob.ValidKey("t/"+got) != nil {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Uploads follow docs/access-control.md: a user who may see an item but not
// change it is refused (403), one who may not see it gets 404, for the
// upload's creation and for every request on an upload of that item.
func TestUploadAccess(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	item := w.IDs["privItem"] // seen by admin, editor, owner; changed by admin, owner
	meta := metadata("itemId", item, "filename", "a.bin")
	create := func(user string) int {
		tc := newTus(t, w.API, w.Users[user])
		return tc.do("POST", upload.PathPrefix, nil, 0, map[string]string{"Upload-Length": "10", "Upload-Metadata": meta}).StatusCode
	}
	for user, want := range map[string]int{"editor": 403, "sales": 404, "other": 404, "owner": 201} {
		if got := create(user); got != want {
			t.Errorf("%s creating an upload of privItem: %d, want %d", user, got, want)
		}
	}
	path := newTus(t, w.API, w.Admin()).create(10, meta)
	for user, want := range map[string]int{"editor": 403, "sales": 404, "other": 404, "owner": 200} {
		if code, _ := newTus(t, w.API, w.Users[user]).head(path); code != want {
			t.Errorf("%s HEAD: %d, want %d", user, code, want)
		}
	}
	if resp := newTus(t, w.API, w.Users["editor"]).patch(path, 0, []byte("0123456789"), false); resp.StatusCode != 403 {
		t.Errorf("editor PATCH: %d", resp.StatusCode)
	}
	if resp := newTus(t, w.API, w.Users["owner"]).patch(path, 0, []byte("0123456789"), false); resp.StatusCode != 204 {
		t.Errorf("owner PATCH: %d", resp.StatusCode)
	}
	if resp := newTus(t, w.API, nil).do("HEAD", path, nil, -1, nil); resp.StatusCode != 401 {
		t.Errorf("HEAD without a key: %d", resp.StatusCode)
	}
}

// Creation refuses what no field may hold, and what tus cannot take.
func TestUploadCreationRefusals(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	tc := newTus(t, api, a)
	post := func(length, meta string) int {
		h := map[string]string{"Upload-Metadata": meta}
		if length != "" {
			h["Upload-Length"] = length
		}
		return tc.do("POST", upload.PathPrefix, nil, 0, h).StatusCode
	}
	for name, c := range map[string]struct {
		length, meta string
		want         int
	}{
		"NUL in a value":      {"10", metadata("filename", "a\x00b"), 400},
		"invalid UTF-8":       {"10", metadata("title", "\xff\xfe"), 400},
		"huge metadata":       {"10", metadata("note", strings.Repeat("x", 70<<10)), 400},
		"item id not an id":   {"10", metadata("itemId", "nope"), 404},
		"missing item":        {"10", metadata("itemId", loupetest.AccessMissing), 404},
		"bad item type":       {"10", metadata("itemType", "NOT A TYPE"), 400},
		"no length":           {"", metadata("filename", "a"), 400},
		"negative length":     {"-1", metadata("filename", "a"), 400},
		"beyond the max size": {strconv.FormatInt(upload.MaxSize+1, 10), metadata("filename", "a"), 413},
	} {
		if got := post(c.length, c.meta); got != c.want {
			t.Errorf("%s: %d, want %d", name, got, c.want)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM uploads`); n != 0 {
		t.Fatalf("refused creations made %d uploads", n)
	}
	a.GraphQL(t, `mutation { startUpload(input: {fileName: "a", size: -1}) { uploadUrl } }`, nil).ErrorCode("BAD_USER_INPUT")
	if resp := tc.do("GET", upload.PathPrefix+"/"+loupetest.AccessMissing, nil, -1, nil); resp.StatusCode != 404 {
		t.Fatalf("GET of an upload: %d", resp.StatusCode)
	}
}

// Two nodes on one database and one bucket: a request on the second node
// for an upload the first is writing asks the first to let go (through
// Postgres), gets the lock and answers the durable offset; the upload then
// goes on from the second node.
func TestUploadLockAcrossNodes(t *testing.T) {
	files := backends[1].files(t) // S3
	node := func(id string) loupetest.Option {
		return func(c *server.Config) { withFiles(files)(c); c.InstanceID = id }
	}
	api1 := loupetest.New(t, node("node-1"))
	api2 := api1.Another(t, node("node-2"))
	a := api1.Tenant(t, "a")
	itemID := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tc1 := newTus(t, api1, a)
	tc2 := tc1.on(api2)
	size := 11 << 20
	file := bytes.Repeat([]byte("abcdefghijklmnop"), size/16)
	path := tc1.create(size, metadata("itemId", itemID))

	pr, pw := io.Pipe()
	done := make(chan *http.Response, 1)
	go func() {
		done <- tc1.do("PATCH", path, pr, int64(size), map[string]string{
			"Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
	}()
	if _, err := pw.Write(file[:6<<20]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for api1.Count(t, `SELECT received::int FROM uploads WHERE item_id = $1`, itemID) < partSize {
		if time.Now().After(deadline) {
			t.Fatal("the first part was not stored")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var it itemView
	a.On(api2).Get(t, "/api/v1/items/"+itemID).Status(200).JSON(&it)
	if it.UploadLockOwnerInstanceID == nil || *it.UploadLockOwnerInstanceID != "node-1" {
		t.Fatalf("while node-1 writes, uploadLockOwnerInstanceId = %v", it.UploadLockOwnerInstanceID)
	}
	start := time.Now()
	code, off := tc2.head(path) // node-2 asks node-1 to let go
	if code != 200 || off != partSize {
		t.Fatalf("HEAD on node-2: %d offset %d, want %d", code, off, partSize)
	}
	t.Logf("node-2 got the lock from node-1 in %s", time.Since(start).Round(time.Millisecond))
	select {
	case resp := <-done:
		if resp.StatusCode == 204 {
			t.Fatal("node-1's PATCH was not interrupted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("node-1's PATCH did not stop")
	}
	pr.CloseWithError(io.ErrClosedPipe)
	// The tail node-1 kept (what arrived after the part) may have moved the
	// offset on; node-2 resumes from whatever HEAD says now.
	_, off = tc2.head(path)
	if resp := tc2.patch(path, off, file[off:], false); resp.StatusCode != 204 || resp.Header.Get("Loupe-Media-Sha256") == "" {
		t.Fatalf("PATCH on node-2: %d", resp.StatusCode)
	}
	sum := sha256.Sum256(file)
	var g struct {
		Item struct {
			MediaSHA256 string `json:"mediaSha256"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaSha256 } }`, map[string]any{"id": itemID}).OK(&g)
	if g.Item.MediaSHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("checksum %s, want %x", g.Item.MediaSHA256, sum)
	}
}
