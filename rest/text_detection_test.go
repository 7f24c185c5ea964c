package rest_test

import (
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/analysis/engine/tesseract"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// Text burnt into a video is read after its processing and kept as timed
// metadata in the default_detected_text form, at the times it shows — a
// person's own entries stay through a re-run — through both APIs.
func TestBurntInTextIsDetected(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t, "tesseract")
	font := "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
	if _, err := os.Stat(font); err != nil || !tesseract.Available() {
		t.Skip("skipped: needs fonts-dejavu-core and tesseract-ocr-eng (scripts/deps test)")
	}
	data := lavfiClip(t, "news.mp4", "-f", "lavfi", "-i", "color=c=0x203040:size=1280x720:rate=25:duration=8", "-vf",
		"drawtext=fontfile="+font+":text='BREAKING NEWS':fontsize=72:fontcolor=white:x=(w-tw)/2:y=h/3:enable='lt(t,3.9)',"+
			"drawtext=fontfile="+font+":text='Harbor closed until noon':fontsize=56:fontcolor=yellow:x=(w-tw)/2:y=h*2/3:enable='gte(t,4)'",
		"-c:v", "libx264", "-preset", "ultrafast")
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "News", "itemType": "video", "textDetectionEnabled": true})
	// A person's own entry, which the engine must leave.
	path := "/api/v1/items/" + item + "/timedMetadata"
	a.Put(t, path, map[string]any{"items": map[string]any{"mine": map[string]any{"startMs": 1000, "endMs": 2000,
		"data": map[string]any{"formId": "default_detected_text", "formData": map[string]any{"default_text": "typed by hand"}}}}}).
		Status(http.StatusOK)
	withOriginal(t, api, a, item, "news.mp4", data)
	if st := waitAnalysis(t, a, item, "textDetection"); st["state"] != "complete" || st["service"] != "tesseract" {
		t.Fatalf("text detection: %v", st)
	}
	read := func() map[string]timedEntry {
		var list struct {
			Items []timedEntry `json:"items"`
		}
		a.Get(t, path).Status(http.StatusOK).JSON(&list)
		found := map[string]timedEntry{}
		for _, e := range list.Items {
			text, _ := e.Data.FormData["default_text"].(string)
			found[strings.ToLower(text)] = e
		}
		return found
	}
	found := read()
	news, harbor, mine := found["breaking news"], found["harbor closed until noon"], found["typed by hand"]
	if len(found) != 3 || news.StartMs != 0 || news.EndMs != 4000 || harbor.StartMs != 4000 || harbor.EndMs != 8000 ||
		news.Data.FormID != "default_detected_text" || news.Data.FormData["default_confidence"].(float64) < 0.6 || mine.ID != "mine" {
		t.Fatalf("timed metadata: %+v", found)
	}
	// GraphQL: the same entries.
	var g struct {
		Item struct {
			TimedMetadata []struct {
				StartMs int64
				Data    struct{ FormData map[string]any }
			}
		}
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { timedMetadata { startMs data { formData } } } }`,
		map[string]any{"id": item}).OK(&g)
	if len(g.Item.TimedMetadata) != 3 {
		t.Fatalf("GraphQL timedMetadata: %+v", g.Item.TimedMetadata)
	}
	// The words burnt into the picture are searched (the transcript tier).
	if got := search(t, a, url.Values{"searchString": {"harbor closed"}}).ids(); !slices.Equal(got, []string{item}) {
		t.Fatalf("search for the detected words: %v, want [%s]", got, item)
	}
	// A re-run replaces the engine's entries, not the person's.
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item, "steps": []string{"textDetection"}}).Status(http.StatusOK)
	waitJobsDone(t, api)
	if again := read(); len(again) != 3 || again["typed by hand"].ID != "mine" || again["breaking news"].ID != news.ID {
		t.Fatalf("after a re-run: %+v", again)
	}
	// Recorded per engine (the spec's metering (2.25) names three kinds
	// of operation only: docs/analysis.md).
	if n := api.Count(t, `SELECT count(*) FROM media_operations WHERE tenant_id = $1 AND item_id = $2
		AND kind = 'textDetection' AND provider = 'tesseract' AND outputs = 2`, a.TenantID, item); n != 2 {
		t.Fatalf("%d text detection runs recorded", n)
	}
}
