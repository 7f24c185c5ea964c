package rest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// Subscriptions across two nodes on one database, with the npm clients
// browsers and services use: subscribed on node B over WebSocket
// (graphql-ws) and SSE (graphql-sse), changed through node A. An editor
// following a folder gets its item's change, the comment (SSE) and the
// notification it made, then loses the folder and gets nothing more
// while the admin still does; resuming with since replays the rest in
// order, without a gap or a repeat; nested fields resolve as they are.
func TestSubscriptionsAcrossNodes(t *testing.T) {
	a := loupetest.New(t)
	b := a.Another(t)
	admin := a.Tenant(t, "a")
	ed := admin.User(t, "ed@a.test", []string{"editors"}, false)
	folder := admin.CreateItem(t, map[string]any{"title": "Rushes", "itemType": "folder"})
	admin.Post(t, "/api/v1/folders/"+folder, map[string]any{
		"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{admin.TenantID + ":editors"}}}).Status(200)
	item := admin.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video", "folderParents": []string{folder}})

	cfg, _ := json.Marshal(map[string]string{
		"wsB": "ws" + strings.TrimPrefix(b.URL, "http") + "/graphql", "httpA": a.URL, "httpB": b.URL,
		"adminKey": admin.Key, "edKey": ed.Key, "item": item, "folder": folder, "nobody": admin.TenantID + ":nobody",
	})
	out := webtest.Node(t, 2*time.Minute, "testdata/subscriptions.cjs", nil, string(cfg))
	t.Logf("summary: %s", out)
	type stream struct {
		Events [][]any
		Error  any
	}
	var got struct {
		LatencyMs                            float64
		EdFolder, Admin, EdComments, Resumed stream
		Notices                              struct {
			Events []map[string]any
			Error  any
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("no summary (%v): %s", err, out)
	}
	kinds := func(s stream) []string {
		var k []string
		for _, e := range s.Events {
			k = append(k, e[1].(string)+" "+e[2].(string))
		}
		return k
	}
	if k := kinds(got.EdFolder); strings.Join(k, ",") != "itemChange Interview,commentCreation Interview" || got.EdFolder.Error != nil {
		t.Fatalf("ed, following the folder: %v (%v): want the change and the comment, nothing after losing the folder", k, got.EdFolder.Error)
	}
	if k := kinds(got.Admin); strings.Join(k, ",") != "itemChange Interview,commentCreation Interview,itemChange Interview" {
		t.Fatalf("admin, following the item: %v", k)
	}
	if k := kinds(got.EdComments); len(k) != 1 || k[0] != "commentCreation Interview" {
		t.Fatalf("ed's comment events over SSE: %v (%v)", k, got.EdComments.Error)
	}
	if n := got.Notices.Events; len(n) != 1 || n[0]["type"] != "commentMention" {
		t.Fatalf("ed's notifications: %v (%v)", n, got.Notices.Error)
	}
	// The replay from the admin's first event: the rest, same ids, in order.
	if len(got.Resumed.Events) != len(got.Admin.Events)-1 {
		t.Fatalf("resumed: %v, after %v", kinds(got.Resumed), kinds(got.Admin))
	}
	for i, e := range got.Resumed.Events {
		if e[0] != got.Admin.Events[i+1][0] {
			t.Fatalf("resumed event %d is %v, want %v", i, e[0], got.Admin.Events[i+1][0])
		}
	}
	t.Logf("commit on node A to the subscriber on node B: %.0f ms", got.LatencyMs)
}
