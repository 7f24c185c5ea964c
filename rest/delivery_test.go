package rest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
)

// With its files in S3 and direct downloads on (the default of `loupe
// serve`), an item's links are presigned URLs to the bucket: the proxy is
// served by S3 itself, with Range and ETag; the strip's map, whose sheets
// are named relative to it, stays a Loupe link that reaches them.
func TestS3FilesAreServedByPresignedURLs(t *testing.T) {
	mediatest.Need(t)
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
	data := lavfiClip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=4", "-f", "lavfi",
		"-i", "sine=duration=4", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	item := a.CreateItem(t, map[string]any{"title": "In S3", "itemType": "video"})
	withOriginal(t, api, a, item, "clip.mp4", data)
	it := waitState(t, api, a, item, nil, "complete", "failed")
	if it["transcodingState"] != "complete" {
		t.Fatalf("processing: %v", it["progressInfo"])
	}

	proxy := it["proxy"].(string)
	if !strings.HasPrefix(proxy, cfg.Endpoint+"/"+cfg.Bucket+"/") || !strings.Contains(proxy, "X-Amz-Signature=") {
		t.Fatalf("the proxy's link is not a presigned URL to the bucket: %s", proxy)
	}
	resp, body := fetch(t, proxy)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "video/mp4" || it["proxySize"] != float64(len(body)) || etag == "" {
		t.Fatalf("proxy from S3: %d %s, %d bytes, ETag %q", resp.StatusCode, resp.Header.Get("Content-Type"), len(body), etag)
	}
	// A player's requests: a byte range, then a revalidation.
	get := func(h map[string]string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, proxy, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	if resp, part := get(map[string]string{"Range": "bytes=100-199"}); resp.StatusCode != http.StatusPartialContent ||
		string(part) != string(body[100:200]) {
		t.Fatalf("range from S3: %d, %d bytes", resp.StatusCode, len(part))
	}
	if resp, _ := get(map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation from S3: %d", resp.StatusCode)
	}
	// A link someone altered does not work.
	if resp, _ := fetch(t, strings.Replace(proxy, "X-Amz-Signature=", "X-Amz-Signature=0", 1)); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("altered presigned URL: %d", resp.StatusCode)
	}

	// The strip: a Loupe link (its sheets are relative), reading from S3.
	strip := it["thumbnailStrip"].(string)
	if !strings.HasPrefix(strip, api.URL+blob.PathPrefix) {
		t.Fatalf("strip link: %s", strip)
	}
	checkStrip(t, strip)
}
