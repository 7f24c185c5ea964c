package upload_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
	"github.com/loupe-mam/loupe/server"
)

// keystream is the generated file of testdata/tus_upload.js: the AES-128-CTR
// keystream of key from a zero counter.
type keystream struct{ s cipher.Stream }

func (k keystream) Read(p []byte) (int, error) {
	clear(p)
	k.s.XORKeyStream(p, p)
	return len(p), nil
}

func generatedSHA256(t *testing.T, key []byte, size int64) string {
	b, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, keystream{cipher.NewCTR(b, make([]byte, 16))}, size); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// peakRSS is the process's peak resident set (VmHWM), "" where unknown.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// tus-js-client, in Node, uploads a generated file (256 MiB by default,
// LOUPE_UPLOAD_TEST_BYTES for more) in 32 MiB PATCHes, aborts midway, and
// resumes from its URL storage with the same fingerprint — on a second
// server of the same database and files. The item's checksum is the
// file's. Skipped like the browser tests where Node or the pinned packages
// are missing (LOUPE_WEBTEST=require fails instead).
func TestTusJSClientUploadsAbortsAndResumes(t *testing.T) {
	size := int64(256 << 20)
	if v := os.Getenv("LOUPE_UPLOAD_TEST_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 64<<20 {
			t.Fatalf("LOUPE_UPLOAD_TEST_BYTES=%q: want a byte count of at least 64 MiB", v)
		}
		size = n
	}
	files := backends[0].files(t)
	keepFiles := func(c *server.Config) { c.Files = files }
	api := loupetest.New(t, keepFiles)
	api2 := api.Another(t, keepFiles)
	a := api.Tenant(t, "a")
	itemID := a.CreateItem(t, map[string]any{"title": "Generated", "itemType": "video"})
	key := []byte("loupe-tus-test-k")

	start := time.Now()
	out := webtest.Node(t, 10*time.Minute+time.Duration(size>>20)*time.Second, "testdata/tus_upload.js", []string{
		"ENDPOINT=" + api.URL + upload.PathPrefix + "/", "RESUME_ENDPOINT=" + api2.URL + upload.PathPrefix + "/",
		"API_KEY=" + a.Key, "ITEM_ID=" + itemID, "SIZE=" + strconv.FormatInt(size, 10),
		"CHUNK=" + strconv.Itoa(32<<20), "KEY_HEX=" + hex.EncodeToString(key),
	})
	took := time.Since(start)
	var res struct {
		AbortedAt   int64  `json:"abortedAt"`
		ResumedFrom int64  `json:"resumedFrom"`
		UploadURL   string `json:"uploadUrl"`
		URL         string `json:"url"`
		Remaining   int    `json:"remaining"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	t.Logf("%d MiB by tus-js-client in %s (%.0f MiB/s): aborted at %d, resumed from %d; peak RSS of the test process (servers) %s",
		size>>20, took.Round(time.Millisecond), float64(size>>20)/took.Seconds(), res.AbortedAt, res.ResumedFrom, peakRSS())
	// The abort cuts the PATCH once tus-js-client has handed its chunk
	// to the socket: the server may have read and stored all of it by then
	// (the resume then starts exactly where the cut was), never more.
	if res.AbortedAt < size/2 || res.ResumedFrom < size/2-32<<20 || res.ResumedFrom > res.AbortedAt || res.Remaining != 0 ||
		!strings.HasSuffix(res.URL, strings.TrimPrefix(res.UploadURL, api.URL)) {
		t.Fatalf("tus-js-client: %+v", res)
	}
	var g struct {
		Item struct {
			MediaSHA256 string `json:"mediaSha256"`
			MediaSize   int64  `json:"mediaSize"`
			MediaType   string `json:"mediaType"`
			Upload      struct {
				State  string `json:"state"`
				Offset int64  `json:"offset"`
			} `json:"upload"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaSha256 mediaSize mediaType upload { state offset } } }`,
		map[string]any{"id": itemID}).OK(&g)
	want := generatedSHA256(t, key, size)
	if g.Item.MediaSHA256 != want || g.Item.MediaSize != size || g.Item.MediaType != "application/octet-stream" ||
		g.Item.Upload.State != "complete" || g.Item.Upload.Offset != size {
		t.Fatalf("item after the upload: %+v, want checksum %s", g.Item, want)
	}
}
