package rest_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// waitMigration polls the item until its mediaMigration ends.
func waitMigration(t *testing.T, a *loupetest.Client, itemID string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var g struct {
			Item struct {
				MediaMigration     map[string]any `json:"mediaMigration"`
				SourceFileLocation string         `json:"sourceFileLocation"`
			} `json:"item"`
		}
		a.GraphQL(t, `query($id: ID!) { item(id: $id) { mediaMigration sourceFileLocation } }`, map[string]any{"id": itemID}).OK(&g)
		if st := g.Item.MediaMigration["state"]; st == "complete" || st == "failed" {
			g.Item.MediaMigration["sourceFileLocation"] = g.Item.SourceFileLocation
			return g.Item.MediaMigration
		}
		if time.Now().After(deadline) {
			t.Fatalf("migration of %s: %v", itemID, g.Item.MediaMigration)
		}
	}
}

// migrateMediaLocation moves an uploaded original to the tenant's default
// storage location for real: the bytes are in the bucket, gone from Loupe's
// store, the item points at them, and processing reads them there.
func TestMigrateMediaLocation(t *testing.T) {
	mediatest.Need(t)
	cfg := s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Move me", "itemType": "video"})
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	withOriginal(t, api, a, item, "clip.mp4", data)
	before := waitState(t, api, a, item, nil, "complete", "failed")["sourceFileLocation"].(string)

	// No default location yet: 400 saying so; a location of no one: 400.
	a.Post(t, "/api/v1/items/"+item+"/migrateMediaLocation", "").Envelope(400, "")
	a.Post(t, "/api/v1/items/"+item+"/migrateMediaLocation", map[string]any{"storageLocationId": loupetestID}).Status(400)

	loc := a.Post(t, slPath, slBody(cfg, map[string]any{"isDefault": true})).Status(http.StatusOK).Object()
	got := a.Post(t, "/api/v1/items/"+item+"/migrateMediaLocation", "").Status(http.StatusOK).Object()
	if got["statusCode"] != 202.0 || !strings.Contains(got["message"].(string), loc["id"].(string)) {
		t.Fatalf("migrate: %v", got)
	}
	m := waitMigration(t, a, item)
	after, _ := m["sourceFileLocation"].(string)
	if m["state"] != "complete" || !strings.HasPrefix(after, "loupe://locations/"+loc["id"].(string)+"/media/loupe/") {
		t.Fatalf("migration: %v", m)
	}
	key := strings.TrimPrefix(after, "loupe://locations/"+loc["id"].(string)+"/")
	obj, err := s3test.Start(t).Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	moved, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if string(moved) != string(data) {
		t.Fatalf("the bucket holds %d bytes, the original was %d", len(moved), len(data))
	}
	if _, err := api.Files.Stat(context.Background(), strings.TrimPrefix(before, "loupe://files/")); err == nil {
		t.Fatal("the old copy is still in Loupe's store")
	}
	// Processing reads the original where it now is.
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item}).Status(http.StatusOK)
	waitState(t, api, a, item, nil, "queued", "processing")
	if it := waitState(t, api, a, item, nil, "complete", "failed"); it["transcodingState"] != "complete" || it["hasProxy"] != true {
		t.Fatalf("processing from the location: %v", it["progressInfo"])
	}
	// Moving again to the same place changes nothing.
	a.Post(t, "/api/v1/items/"+item+"/migrateMediaLocation", map[string]any{"storageLocationId": loc["id"]}).Status(http.StatusOK)
	if m := waitMigration(t, a, item); m["state"] != "complete" || m["sourceFileLocation"] != after {
		t.Fatalf("second move: %v", m)
	}
}
