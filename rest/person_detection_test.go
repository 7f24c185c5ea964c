package rest_test

import (
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/analysis/engine/opencv"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// astronaut is NASA's portrait of Eileen Collins (public domain), shipped
// by Debian's python3-skimage (scripts/deps test).
const astronaut = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"

// detectedPerson is an entry of an item's detectedPersons.
type detectedPerson struct {
	PersonID    string  `json:"personId"`
	Name        string  `json:"name"`
	Confidence  float64 `json:"confidence"`
	Created     bool    `json:"created"`
	Appearances []struct {
		StartMs, EndMs int64
		X, Y, W, H     int
	} `json:"appearances"`
}

// A face found in a photo becomes a person (createUnknownPersons) with the
// photo among its images (autoAddImagesToDetectedPersons); renamed, the
// person is recognised in a video made from another framing of the photo,
// at the times it shows; a picture without a face finds no one — through
// both APIs, metered.
func TestPersonsAreDetectedAndRecognised(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	if _, err := os.Stat(astronaut); err != nil || !opencv.Available() {
		t.Skip("skipped: needs python3-opencv, opencv-data and python3-skimage (scripts/deps test)")
	}
	photo, err := os.ReadFile(astronaut)
	if err != nil {
		t.Fatal(err)
	}
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	a.Post(t, configPath, map[string]any{"autoAddImagesToDetectedPersons": true, "confidenceLevel": 50}).Status(http.StatusOK)

	portrait := a.CreateItem(t, map[string]any{"title": "Portrait", "itemType": "image",
		"personDetectionEnabled": true, "createUnknownPersons": true})
	withOriginal(t, api, a, portrait, "astronaut.png", photo)
	if st := waitAnalysis(t, a, portrait, "personDetection"); st["state"] != "complete" || st["service"] != "opencv" {
		t.Fatalf("person detection: %v", st)
	}
	var it struct {
		DetectedPersons []detectedPerson `json:"detectedPersons"`
	}
	a.Get(t, "/api/v1/items/"+portrait).Status(http.StatusOK).JSON(&it)
	if len(it.DetectedPersons) != 1 {
		t.Fatalf("detectedPersons = %+v", it.DetectedPersons)
	}
	p := it.DetectedPersons[0]
	if !p.Created || p.PersonID == "" || p.Name != "Unknown person 1" || p.Confidence < 0.5 || len(p.Appearances) != 1 {
		t.Fatalf("detected person = %+v", p)
	}
	// The face is at about (178, 67) 98×98 in the 512×512 photo; the
	// preview the engine reads is the photo's own size.
	if b := p.Appearances[0]; b.X+b.W/2 < 170 || b.X+b.W/2 > 260 || b.Y+b.H/2 < 60 || b.Y+b.H/2 > 170 {
		t.Fatalf("the face's box %+v is not on her face", b)
	}
	var g struct {
		Node struct {
			Name     string
			ImageIDs []string
		}
	}
	a.GraphQL(t, `query($id: ID!) { node(id: $id) { ... on Person { name imageIds } } }`, map[string]any{"id": p.PersonID}).OK(&g)
	if g.Node.Name != "Unknown person 1" || !slices.Contains(g.Node.ImageIDs, portrait) {
		t.Fatalf("the person created: %+v", g.Node)
	}
	a.Patch(t, "/api/v1/itemMetadata/"+p.PersonID, map[string]any{"metadataDelta": map[string]any{
		"formData": map[string]any{"default_title": "Eileen Collins"}}}).Status(http.StatusOK)

	// A video: 4 s of black, then the photo, smaller and off centre, for
	// 6 s. Unknown faces are not made persons here.
	clip := lavfiClip(t, "interview.mp4", "-f", "lavfi", "-i", "color=c=black:size=1280x720:rate=25:duration=10",
		"-loop", "1", "-i", astronaut, "-filter_complex",
		"[1:v]scale=400:400[p];[0:v][p]overlay=x=700:y=200:enable='gte(t,4)'", "-t", "10", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p")
	video := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video", "personDetectionEnabled": true})
	withOriginal(t, api, a, video, "interview.mp4", clip)
	if st := waitAnalysis(t, a, video, "personDetection"); st["state"] != "complete" {
		t.Fatalf("person detection of the video: %v", st)
	}
	it.DetectedPersons = nil // decoded afresh: "created" is left out when false
	a.Get(t, "/api/v1/items/"+video).Status(http.StatusOK).JSON(&it)
	if len(it.DetectedPersons) != 1 {
		t.Fatalf("the video's detectedPersons = %+v", it.DetectedPersons)
	}
	v := it.DetectedPersons[0]
	if v.PersonID != p.PersonID || v.Name != "Eileen Collins" || v.Created || len(v.Appearances) != 1 ||
		v.Appearances[0].StartMs != 4000 || v.Appearances[0].EndMs != 10000 {
		t.Fatalf("the video's detected person = %+v, want %s from 4 s to 10 s", v, p.PersonID)
	}
	// GraphQL: the same.
	var gi struct {
		Item struct{ DetectedPersons []detectedPerson }
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { detectedPersons } }`, map[string]any{"id": video}).OK(&gi)
	if len(gi.Item.DetectedPersons) != 1 || gi.Item.DetectedPersons[0].PersonID != p.PersonID {
		t.Fatalf("GraphQL detectedPersons = %+v", gi.Item.DetectedPersons)
	}

	// No face: no one, and nobody created.
	grey := lavfiClip(t, "grey.png", "-f", "lavfi", "-i", "color=c=gray:size=640x480", "-frames:v", "1")
	empty := a.CreateItem(t, map[string]any{"title": "Wall", "itemType": "image", "personDetectionEnabled": true, "createUnknownPersons": true})
	withOriginal(t, api, a, empty, "grey.png", grey)
	if st := waitAnalysis(t, a, empty, "personDetection"); st["state"] != "complete" || st["faces"] != 0.0 {
		t.Fatalf("person detection of a grey picture: %v", st)
	}
	it.DetectedPersons = nil
	a.Get(t, "/api/v1/items/"+empty).Status(http.StatusOK).JSON(&it)
	if len(it.DetectedPersons) != 0 {
		t.Fatalf("a grey picture's detectedPersons = %+v", it.DetectedPersons)
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type = 'person'`, a.TenantID); n != 1 {
		t.Fatalf("%d persons, want the one created", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM media_operations WHERE tenant_id = $1 AND kind = 'personDetection' AND provider = 'opencv'`,
		a.TenantID); n != 3 {
		t.Fatalf("%d person detection operations metered, want 3", n)
	}
	// Statistics (2.26, Loupe's own counters) count each run.
	if got := sums(readStats(t, a, "")); got["media_processed"] != 3 || got["person_detections_completed"] != 3 {
		t.Fatalf("stats: %v, want 3 processing runs and 3 person detections", got)
	}
}
