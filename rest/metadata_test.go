package rest_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

type metadataRecord struct {
	ID              string `json:"id"`
	MetadataVersion int    `json:"metadataVersion"`
	Metadata        struct {
		FormID   string         `json:"formId"`
		FormData map[string]any `json:"formData"`
	} `json:"metadata"`
}

func TestPatchItemMetadata(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video", "metadata": map[string]any{
		"formData": map[string]any{"default_description": "first", "keep": "me", "drop": "me"}}})
	path := "/api/v1/itemMetadata/" + id

	var got metadataRecord
	a.Patch(t, path+"?requiredMetadataVersion=1", map[string]any{"metadataDelta": map[string]any{
		"formData": map[string]any{"default_description": "second", "drop": nil, "default_title": "Renamed"}}}).
		Status(200).JSON(&got)
	fd := got.Metadata.FormData
	if got.ID != id || got.MetadataVersion != 2 || fd["default_description"] != "second" || fd["keep"] != "me" ||
		fd["default_title"] != "Renamed" || fd["drop"] != nil || len(fd) != 3 {
		t.Fatalf("after patch: %+v", got)
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["title"] != "Renamed" || it["metadataVersion"] != 2.0 {
		t.Fatalf("item after patch: title %v, version %v", it["title"], it["metadataVersion"])
	}

	// Without requiredMetadataVersion the write still bumps the version.
	a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"keep": "changed"}}}).
		Status(200).JSON(&got)
	if got.MetadataVersion != 3 {
		t.Fatalf("version %d, want 3", got.MetadataVersion)
	}

	// Readable field names.
	var readable metadataRecord
	a.Patch(t, path+"?readableMetadataFields=true", map[string]any{"metadataDelta": map[string]any{
		"formData": map[string]any{"default_description": "third"}}}).Status(200).JSON(&readable)
	if readable.Metadata.FormData["Description"] != "third" || readable.Metadata.FormData["Title"] != "Renamed" ||
		readable.Metadata.FormData["default_title"] != nil || readable.Metadata.FormData["keep"] != "changed" {
		t.Fatalf("readable form data = %v", readable.Metadata.FormData)
	}

	// A stale version is a 409 and writes nothing.
	env := a.Patch(t, path+"?requiredMetadataVersion=1", map[string]any{"metadataDelta": map[string]any{
		"formData": map[string]any{"keep": "lost"}}}).Envelope(409, "metadataVersion 1 is stale: the item is at version 4")
	if p, _ := env["payload"].(map[string]any); p["metadataVersion"] != 4.0 {
		t.Fatalf("409 payload = %v", env["payload"])
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["metadataVersion"] != 4.0 ||
		it["metadata"].(map[string]any)["formData"].(map[string]any)["keep"] != "changed" {
		t.Fatalf("stale write changed the item: %v", it["metadata"])
	}

	// The change is audited with its diff.
	var res struct {
		Hits []struct {
			ActionType string         `json:"actionType"`
			MdfDiff    map[string]any `json:"mdfDiff"`
		} `json:"hits"`
	}
	a.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?actionType=metadataUpdated&itemId="+id).Status(200).JSON(&res)
	if len(res.Hits) != 3 {
		t.Fatalf("%d metadataUpdated records, want 3", len(res.Hits))
	}
	first := res.Hits[2].MdfDiff["metadataFields"].([]any)
	if len(first) != 3 {
		t.Fatalf("first diff = %v, want drop, default_description and default_title", first)
	}

	bad := []struct {
		name, query string
		body        any
		status      int
		message     string
	}{
		{"unparsable", "", `{"metadataDelta": `, 400, "The server could not understand the request due to invalid syntax."},
		{"no delta", "", map[string]any{"formData": map[string]any{}}, 400, "the request body needs metadataDelta"},
		{"extra key", "", map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"a": 1}}, "x": 1}, 400, "x: unknown field"},
		{"empty delta", "", map[string]any{"metadataDelta": map[string]any{}}, 400, "metadataDelta changes nothing: give formId or formData"},
		{"formData not an object", "", map[string]any{"metadataDelta": map[string]any{"formData": "x"}}, 400, "metadataDelta.formData must be an object"},
		{"blank title", "", map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"default_title": ""}}}, 400, ""},
		{"bad version", "?requiredMetadataVersion=two", map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"a": 1}}}, 400, `query parameter requiredMetadataVersion must be an integer, got "two"`},
		{"bad readable", "?readableMetadataFields=maybe", map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"a": 1}}}, 400, ""},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			a.Patch(t, path+c.query, c.body).Envelope(c.status, c.message)
		})
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["metadataVersion"] != 4.0 {
		t.Fatalf("bad requests changed the version to %v", it["metadataVersion"])
	}

	b := api.Tenant(t, "b")
	b.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"a": 1}}}).
		Envelope(404, "The server can not find requested resource.")
	a.Patch(t, "/api/v1/itemMetadata/not-an-id", map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"a": 1}}}).
		Envelope(404, "The server can not find requested resource.")
}

// Concurrent writers naming the same version: exactly one wins per version,
// the others get 409 and write nothing.
func TestConcurrentMetadataWritersOneWinsPerVersion(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Contested", "itemType": "video"})
	const writers, rounds = 8, 3
	for round := 1; round <= rounds; round++ {
		var wg sync.WaitGroup
		codes := make([]int, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := a.Patch(t, fmt.Sprintf("/api/v1/itemMetadata/%s?requiredMetadataVersion=%d", id, round),
					map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"writer": w, "round": round}}})
				codes[w] = r.Code
			}()
		}
		wg.Wait()
		won := 0
		for _, c := range codes {
			switch c {
			case http.StatusOK:
				won++
			case http.StatusConflict:
			default:
				t.Fatalf("round %d: status %d", round, c)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1 (codes %v)", round, won, codes)
		}
	}
	it := a.Get(t, "/api/v1/items/"+id).Object()
	if it["metadataVersion"] != float64(rounds+1) {
		t.Fatalf("version %v, want %d", it["metadataVersion"], rounds+1)
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE item_id = $1 AND action_type = 'metadataUpdated'`, id); n != rounds {
		t.Fatalf("%d metadata audit records, want %d", n, rounds)
	}
}

func TestCustomIcons(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	path := "/api/v1/items/" + id + "/customIcons"
	icons := func(r map[string]any) map[string]any { return r["customIcons"].(map[string]any) }

	got := icons(a.Get(t, path).Status(200).Object())
	if len(got) != 8 || got["pos1"] != nil {
		t.Fatalf("new item icons = %v", got)
	}
	got = icons(a.Put(t, path, map[string]any{"customIcons": map[string]any{"pos1": "star", "pos3": map[string]any{"icon": "flag", "color": "red"}}}).Status(200).Object())
	if got["pos1"] != "star" || got["pos3"].(map[string]any)["icon"] != "flag" || got["pos2"] != nil {
		t.Fatalf("after PUT: %v", got)
	}
	// PATCH merges; null empties a position.
	got = icons(a.Patch(t, path, map[string]any{"customIcons": map[string]any{"pos2": "eye", "pos1": nil}}).Status(200).Object())
	if got["pos1"] != nil || got["pos2"] != "eye" || got["pos3"] == nil {
		t.Fatalf("after PATCH: %v", got)
	}
	// PUT replaces: positions not named are emptied. A bare object works too.
	got = icons(a.Put(t, path, map[string]any{"pos8": "last"}).Status(200).Object())
	if got["pos8"] != "last" || got["pos2"] != nil || got["pos3"] != nil {
		t.Fatalf("after bare PUT: %v", got)
	}
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["customIcons"].(map[string]any)["pos8"] != "last" {
		t.Fatalf("item record icons = %v", it["customIcons"])
	}
	if got := icons(a.Get(t, "/api/v1/items/"+id+"/customIcons").Object()); got["pos8"] != "last" {
		t.Fatalf("GET after writes = %v", got)
	}

	for _, m := range []string{"PUT", "PATCH"} {
		t.Run(m, func(t *testing.T) {
			a.Do(t, m, path, `{"customIcons": {`).Envelope(500, "TypeError")
			a.Do(t, m, path, map[string]any{"customIcons": map[string]any{"pos9": "x"}}).
				Envelope(400, `invalid custom icon position "pos9": expected pos1 to pos8`)
			a.Do(t, m, path, map[string]any{"customIcons": "pos1"}).
				Envelope(400, "customIcons must be an object with keys pos1 to pos8")
			api.Tenant(t, "other-"+m).Do(t, m, path, map[string]any{"pos1": "x"}).
				Envelope(404, "The server can not find requested resource.")
		})
	}
	if got := icons(a.Get(t, path).Object()); got["pos8"] != "last" || got["pos1"] != nil {
		t.Fatalf("bad writes changed icons: %v", got)
	}
}

// timedEntry is an entry of an item's timed metadata as REST answers it.
type timedEntry struct {
	ID      string `json:"id"`
	StartMs int64  `json:"startMs"`
	EndMs   int64  `json:"endMs"`
	Data    struct {
		FormID   string         `json:"formId"`
		FormData map[string]any `json:"formData"`
	} `json:"data"`
}

func TestTimedMetadata(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	path := "/api/v1/items/" + id + "/timedMetadata"
	var list struct {
		Items []timedEntry `json:"items"`
	}
	a.Get(t, path).Status(200).JSON(&list)
	if len(list.Items) != 0 {
		t.Fatalf("new item has %d entries", len(list.Items))
	}
	a.Put(t, path, map[string]any{"items": map[string]any{
		"b": map[string]any{"id": "b", "startMs": 5000, "endMs": 9000, "data": map[string]any{"formId": "default_detected_text", "formData": map[string]any{"scene": "two"}}},
		"a": map[string]any{"startMs": 0, "endMs": 4000, "data": map[string]any{"formData": map[string]any{"scene": "one"}}},
	}}).Status(200).JSON(&list)
	if len(list.Items) != 2 || list.Items[0].ID != "a" || list.Items[1].ID != "b" ||
		list.Items[1].Data.FormID != "default_detected_text" || list.Items[0].Data.FormID != "default" || list.Items[1].Data.FormData["scene"] != "two" {
		t.Fatalf("after PUT: %+v", list.Items)
	}
	// Replace one, remove the other.
	a.Put(t, path, map[string]any{"items": map[string]any{
		"a": map[string]any{"startMs": 100, "endMs": 200, "data": map[string]any{"formData": map[string]any{"scene": "one'"}}},
		"b": nil,
	}}).Status(200).JSON(&list)
	if len(list.Items) != 1 || list.Items[0].StartMs != 100 || list.Items[0].Data.FormData["scene"] != "one'" {
		t.Fatalf("after second PUT: %+v", list.Items)
	}

	bad := []struct {
		name string
		body any
	}{
		{"not items", map[string]any{"entries": map[string]any{}}},
		{"items not a map", map[string]any{"items": []any{}}},
		{"end before start", map[string]any{"items": map[string]any{"x": map[string]any{"startMs": 10, "endMs": 5, "data": map[string]any{}}}}},
		{"negative start", map[string]any{"items": map[string]any{"x": map[string]any{"startMs": -1, "endMs": 5, "data": map[string]any{}}}}},
		{"id mismatch", map[string]any{"items": map[string]any{"x": map[string]any{"id": "y", "startMs": 1, "endMs": 5, "data": map[string]any{}}}}},
		{"formData not object", map[string]any{"items": map[string]any{"x": map[string]any{"startMs": 1, "endMs": 5, "data": map[string]any{"formData": 3}}}}},
		{"bad id", map[string]any{"items": map[string]any{"a b": map[string]any{"startMs": 1, "endMs": 5, "data": map[string]any{}}}}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) { a.Put(t, path, c.body).Envelope(400, "") })
	}
	// Types are taken as written: a numeric string is not a number.
	entryAt := func(start, end any) map[string]any {
		return map[string]any{"items": map[string]any{"x": map[string]any{"startMs": start, "endMs": end, "data": map[string]any{}}}}
	}
	a.Put(t, path, entryAt("1", 5)).Envelope(400, "upsert[0].startMs: must be an integer")
	a.Put(t, path, entryAt(1, "5")).Envelope(400, "upsert[0].endMs: must be an integer")
	a.Put(t, path, entryAt(false, 5)).Envelope(400, "upsert[0].startMs: cannot use bool as Int")
	a.Get(t, "/api/v1/items/"+id+"/timedMetadata").Status(200).JSON(&list)
	if len(list.Items) != 1 || list.Items[0].StartMs != 100 {
		t.Fatalf("bad writes changed entries: %+v", list.Items)
	}
	api.Tenant(t, "b").Put(t, path, map[string]any{"items": map[string]any{}}).Envelope(404, "The server can not find requested resource.")
	a.Put(t, "/api/v1/items/01a20242-9dca-771b-bd4e-ca31c13a56ec/timedMetadata", map[string]any{"items": map[string]any{}}).
		Envelope(404, "The server can not find requested resource.")
}
