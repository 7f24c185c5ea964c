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
