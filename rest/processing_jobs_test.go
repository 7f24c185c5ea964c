package rest_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/server"
)

// Deleting an item cancels its processing in the same transaction (a job
// waiting for a worker never runs); restoring it asks for it again.
func TestDeleteCancelsProcessing(t *testing.T) {
	mediatest.Need(t)
	// An API-only node: the job waits, as behind a busy queue.
	api := loupetest.New(t, func(c *server.Config) { c.Jobs.Workers = -1 })
	a := api.Tenant(t, "a")
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=320x240:rate=25:duration=2", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	item := a.CreateItem(t, map[string]any{"title": "Doomed", "itemType": "video"})
	other := a.CreateItem(t, map[string]any{"title": "Kept", "itemType": "video"})
	withOriginal(t, api, a, item, "clip.mp4", data)
	withOriginal(t, api, a, other, "clip.mp4", data)

	jobStates := func(id string) []string {
		t.Helper()
		var states []string
		if err := api.DB.Select(&states, `SELECT state || ' ' || (args->>'reason') FROM river_job
			WHERE kind = 'process_item' AND args->>'itemId' = $1 ORDER BY id`, id); err != nil {
			t.Fatal(err)
		}
		return states
	}
	if got := jobStates(item); len(got) != 1 || got[0] != "available upload" {
		t.Fatalf("before the deletion: %v", got)
	}
	a.Delete(t, "/api/v1/items/"+item).Status(http.StatusOK)
	if got := jobStates(item); len(got) != 1 || got[0] != "cancelled upload" {
		t.Fatalf("after the deletion: %v", got)
	}
	if got := jobStates(other); len(got) != 1 || got[0] != "available upload" {
		t.Fatalf("another item's job: %v", got)
	}
	// Restored: queued again, a new job.
	a.Post(t, "/api/v1/items/"+item+"/undelete", nil).Status(http.StatusOK)
	if got := jobStates(item); len(got) != 2 || got[1] != "available restore" {
		t.Fatalf("after the restore: %v", got)
	}
	if it := a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object(); it["transcodingState"] != "queued" {
		t.Fatalf("restored item: %v", it["transcodingState"])
	}
}

// Processing is metered (spec 2.25): transcoding counts the proxies made
// and their media minutes, per engine; storage holds the original and the
// outputs, a re-run's outputs replacing the previous ones.
func TestProcessingIsMetered(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=duration=6",
		"-shortest", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	item := a.CreateItem(t, map[string]any{"title": "Metered", "itemType": "video"})
	withOriginal(t, api, a, item, "clip.mp4", data)
	waitState(t, api, a, item, nil, "complete", "failed")

	transcoding := func(c *loupetest.Client) meteringEntry {
		return readMetering(t, c, "").MeteringInfo.OperationData["transcoding"]
	}
	tr := transcoding(a)
	if tr.Count != 1 || tr.Unit < 5.9/60 || tr.Unit > 6.1/60 || tr.Cost != 0 {
		t.Fatalf("transcoding after one run: %+v", tr)
	}
	if p := tr.ByProvider["loupe-ffmpeg"]; p["count"] != float64(1) || p["unit"] != tr.Unit {
		t.Fatalf("byProvider %v", tr.ByProvider)
	}
	storage := readMetering(t, a, "").MeteringInfo.StorageData["storage"]
	var outputs int64
	if err := api.DB.Get(&outputs, `SELECT file_count FROM stored_files WHERE tenant_id = $1 AND deleted_on IS NULL
		AND key LIKE 'media/%'`, a.TenantID); err != nil {
		t.Fatal(err)
	}
	if outputs < 5 || storage.Count != 1+outputs {
		t.Fatalf("storage %+v with %d outputs: want the original and the outputs", storage, outputs)
	}

	// A re-run: two runs of work, the same files held.
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item}).Status(http.StatusOK)
	waitState(t, api, a, item, nil, "queued", "processing")
	waitState(t, api, a, item, nil, "complete", "failed")
	if tr := transcoding(a); tr.Count != 2 || tr.Unit < 11.8/60 {
		t.Fatalf("transcoding after a re-run: %+v", tr)
	}
	if s := readMetering(t, a, "").MeteringInfo.StorageData["storage"]; s.Count != storage.Count {
		t.Fatalf("storage after a re-run: %+v, before %+v", s, storage)
	}
	// Another tenant's figures are its own.
	if tr := transcoding(b); tr.Count != 0 || tr.Unit != 0 {
		t.Fatalf("another tenant's transcoding: %+v", tr)
	}
}
