package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
	"github.com/loupe-mam/loupe/server"
)

// pageServer serves an empty page on an origin of its own (another port of
// 127.0.0.1): where a frontend that is not Loupe runs.
func pageServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>frontend</title>")) //nolint:errcheck // a test page
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// In a real browser (headless Chromium): a page on an origin the operator
// allows calls /graphql (with the operator's key header, so after a
// preflight) and REST, reads the request id, and draws a proxy's frame
// into a canvas and reads its pixels back — the colour the clip was made
// of. A page on another origin gets none of it: its calls fail in the
// browser, the proxy does not load for a canvas, and drawn without CORS
// it taints the canvas.
func TestCORSFromPagesOnOtherOrigins(t *testing.T) {
	mediatest.Need(t)
	chromium := webtest.Chromium(t)
	allowed, other := pageServer(t), pageServer(t)
	api := loupetest.New(t, corsOrigins(allowed), func(c *server.Config) {
		c.APIKeyHeaders = []string{"X-Vendor-Key"}
	})
	a := api.Tenant(t, "a")
	// One colour (R 32, G 128, B 224) everywhere, so that the pixel read
	// back says whether the frame was read.
	data := lavfiClip(t, "blue.mp4", "-f", "lavfi", "-i", "color=c=0x2080e0:size=320x240:rate=25:duration=3",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
	item := a.CreateItem(t, map[string]any{"title": "Across origins", "itemType": "video"})
	withOriginal(t, api, a, item, "blue.mp4", data)
	it := waitState(t, api, a, item, nil, "complete", "failed")
	proxy, _ := it["proxy"].(string)
	if it["transcodingState"] != "complete" || !strings.HasPrefix(proxy, api.URL+"/blobs/") {
		t.Fatalf("processing: %v, proxy %q", it["progressInfo"], proxy)
	}

	out := webtest.Node(t, 3*time.Minute, "testdata/cors.cjs", nil, chromium, api.URL, "X-Vendor-Key", a.Key, item, proxy,
		allowed, other)
	t.Logf("summary: %s", out)
	type frame struct {
		RGB   []int
		Error string
	}
	var got map[string]struct {
		GraphQL struct {
			Status    int
			Title     string
			RequestID string
			Error     string
		}
		REST struct {
			Status int
			Title  string
			Error  string
		}
		Frame            frame
		FrameWithoutCORS frame
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("cors.cjs printed no summary (%v):\n%s", err, out)
	}

	ok := got[allowed]
	if ok.GraphQL.Status != 200 || ok.GraphQL.Title != "Across origins" || len(ok.GraphQL.RequestID) != 16 {
		t.Errorf("allowed origin, /graphql: %+v", ok.GraphQL)
	}
	if ok.REST.Status != 200 || ok.REST.Title != "Across origins" {
		t.Errorf("allowed origin, REST: %+v", ok.REST)
	}
	want := []int{0x20, 0x80, 0xe0}
	if len(ok.Frame.RGB) != 3 {
		t.Errorf("allowed origin, frame: %+v", ok.Frame)
	} else {
		for i, v := range ok.Frame.RGB {
			if d := v - want[i]; d < -12 || d > 12 {
				t.Errorf("allowed origin, frame: the centre reads %v, the clip is %v", ok.Frame.RGB, want)
				break
			}
		}
	}
	// Drawn without asking for CORS, even an allowed origin's canvas is
	// tainted: the browser did not check.
	if !strings.HasPrefix(ok.FrameWithoutCORS.Error, "SecurityError") {
		t.Errorf("allowed origin, frame without crossorigin: %+v", ok.FrameWithoutCORS)
	}

	no := got[other]
	if !strings.HasPrefix(no.GraphQL.Error, "TypeError") || no.GraphQL.Title != "" {
		t.Errorf("other origin, /graphql: %+v, want the browser to refuse it", no.GraphQL)
	}
	if !strings.HasPrefix(no.REST.Error, "TypeError") || no.REST.Title != "" {
		t.Errorf("other origin, REST: %+v, want the browser to refuse it", no.REST)
	}
	if !strings.Contains(no.Frame.Error, "media error") || no.Frame.RGB != nil {
		t.Errorf("other origin, frame: %+v, want the proxy not to load for a canvas", no.Frame)
	}
	if !strings.HasPrefix(no.FrameWithoutCORS.Error, "SecurityError") {
		t.Errorf("other origin, frame without crossorigin: %+v, want a tainted canvas", no.FrameWithoutCORS)
	}
}
