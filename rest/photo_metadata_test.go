package rest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// An uploaded photo's own metadata fills the item: where it was taken
// (geoLocation), when (mediaCreatedOn), with what (technicalMetadata.photo)
// — through both APIs.
func TestPhotoMetadataFillsTheItem(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "vipsthumbnail", "exiftool")
	dir := t.TempDir()
	photo := func(name string, tags ...string) []byte {
		p := filepath.Join(dir, name)
		if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
			"testsrc2=size=1600x1200", "-frames:v", "1", p).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if len(tags) > 0 {
			if out, err := exec.Command("exiftool", append(append([]string{"-q", "-overwrite_original"}, tags...), p)...).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
		}
		b, _ := os.ReadFile(p)
		return b
	}
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Opera House", "itemType": "image"})
	withOriginal(t, api, a, item, "opera.jpg", photo("opera.jpg", "-Make=FUJIFILM", "-Model=X-T5", "-ISO=400",
		"-DateTimeOriginal=2025:12:31 23:59:58", "-OffsetTimeOriginal=+11:00",
		"-GPSLatitude=33.8568", "-GPSLatitudeRef=S", "-GPSLongitude=151.2153", "-GPSLongitudeRef=E", "-IPTC:Keywords=opera"))
	it := waitState(t, api, a, item, nil, "complete", "failed")
	geo, _ := it["geoLocation"].(map[string]any)
	if it["transcodingState"] != "complete" || geo["latitude"] != -33.8568 || geo["longitude"] != 151.2153 || geo["altitude"] != nil {
		t.Fatalf("photo item: %v, geoLocation %v", it["transcodingState"], it["geoLocation"])
	}
	if it["mediaCreatedOn"] != "2025-12-31T12:59:58.000Z" {
		t.Errorf("mediaCreatedOn %v", it["mediaCreatedOn"])
	}
	tech, _ := it["technicalMetadata"].(map[string]any)
	if ph, _ := tech["photo"].(map[string]any); ph["cameraModel"] != "X-T5" || ph["iso"] != 400.0 || ph["keywords"] == nil {
		t.Errorf("technicalMetadata.photo: %v", tech["photo"])
	}
	var g struct {
		Item struct{ GeoLocation map[string]any }
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { geoLocation } }`, map[string]any{"id": item}).OK(&g)
	if g.Item.GeoLocation["latitude"] != -33.8568 {
		t.Errorf("GraphQL geoLocation: %v", g.Item.GeoLocation)
	}

	// A photo that says nothing: no position, the upload's time.
	plain := a.CreateItem(t, map[string]any{"title": "Plain", "itemType": "image"})
	withOriginal(t, api, a, plain, "plain.jpg", photo("plain.jpg"))
	if it := waitState(t, api, a, plain, nil, "complete", "failed"); it["geoLocation"] != nil || it["transcodingState"] != "complete" {
		t.Fatalf("a photo without metadata: %v %v", it["transcodingState"], it["geoLocation"])
	}
}
