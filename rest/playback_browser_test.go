package rest_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// The proxy Loupe makes plays in a real browser (Debian's Chromium,
// headless) from the link the item gives: its metadata loads, a seek lands
// where asked (`seeked` fires) and decodes a frame there, playing moves
// on. Loupe's /blobs/ answers the browser's ranges (206) and
// revalidations (304).
func TestProxyPlaysAndSeeksInChromium(t *testing.T) {
	mediatest.Need(t)
	chromium := webtest.Chromium(t)
	data := lavfiClip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=10", "-f", "lavfi",
		"-i", "sine=duration=10", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Playable", "itemType": "video"})
	withOriginal(t, api, a, item, "clip.mp4", data)
	it := waitState(t, api, a, item, nil, "complete", "failed")
	proxy, _ := it["proxy"].(string)
	if it["transcodingState"] != "complete" || proxy == "" {
		t.Fatalf("processing: %v", it["progressInfo"])
	}

	// What a player's requests get from Loupe's link.
	get := func(h ...string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, proxy, nil)
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	whole, body := get()
	etag := whole.Header.Get("ETag")
	if whole.StatusCode != 200 || etag == "" || whole.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("proxy: %d, ETag %q, Accept-Ranges %q", whole.StatusCode, etag, whole.Header.Get("Accept-Ranges"))
	}
	if r, part := get("Range", "bytes=0-99"); r.StatusCode != http.StatusPartialContent || string(part) != string(body[:100]) ||
		!strings.HasPrefix(r.Header.Get("Content-Range"), "bytes 0-99/") {
		t.Fatalf("range: %d %q, %d bytes", r.StatusCode, r.Header.Get("Content-Range"), len(part))
	}
	if r, _ := get("If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %d", r.StatusCode)
	}

	// The browser, on the server's origin (so that a frame drawn is
	// readable).
	out := webtest.Node(t, 3*time.Minute, "testdata/playback.cjs", nil, api.URL+"/healthz", proxy, chromium, "6")
	var s struct {
		CanPlay       string
		Duration      float64
		Width, Height int
		Seeked        bool
		AfterSeek     float64
		Colours       int
		Advanced      float64
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("playback.cjs printed no summary (%v):\n%s", err, out)
	}
	t.Logf("summary: %s", out)
	if s.CanPlay == "" || math.Abs(s.Duration-10) > 0.5 || s.Width != 1280 || s.Height != 720 {
		t.Errorf("metadata: canPlayType %q, duration %.2f, %dx%d", s.CanPlay, s.Duration, s.Width, s.Height)
	}
	if !s.Seeked || math.Abs(s.AfterSeek-6) > 0.5 || s.Colours < 8 {
		t.Errorf("seek: seeked %v at %.2f, %d colours in the frame", s.Seeked, s.AfterSeek, s.Colours)
	}
	if s.Advanced < 0.3 {
		t.Errorf("playing moved %.2f s in 1.5 s", s.Advanced)
	}
}
