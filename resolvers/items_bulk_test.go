package resolvers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/store"
)

// updateItemsMetadata (docs/bulk-metadata.md), end to end through
// /graphql.

const bulkMutation = `mutation($in: UpdateItemsMetadataInput!) { updateItemsMetadata(input: $in) {
	writtenCount failedCount
	results { id item { id title metadataVersion metadata { formId formData } }
		error { code message statusCode developerMessage messages metadataVersion } } } }`

type bulkResult struct {
	ID   string `json:"id"`
	Item *struct {
		ID              string `json:"id"`
		Title           string `json:"title"`
		MetadataVersion int    `json:"metadataVersion"`
		Metadata        struct {
			FormID   string         `json:"formId"`
			FormData map[string]any `json:"formData"`
		} `json:"metadata"`
	} `json:"item"`
	Error *struct {
		Code             string   `json:"code"`
		Message          string   `json:"message"`
		StatusCode       int      `json:"statusCode"`
		DeveloperMessage *string  `json:"developerMessage"`
		Messages         []string `json:"messages"`
		MetadataVersion  *int     `json:"metadataVersion"`
	} `json:"error"`
}

type bulkPayload struct {
	WrittenCount int          `json:"writtenCount"`
	FailedCount  int          `json:"failedCount"`
	Results      []bulkResult `json:"results"`
}

// bulkEdit runs updateItemsMetadata with input and answers its payload.
func bulkEdit(t testing.TB, c *loupetest.Client, input map[string]any) bulkPayload {
	t.Helper()
	var out struct {
		UpdateItemsMetadata bulkPayload `json:"updateItemsMetadata"`
	}
	c.GraphQL(t, bulkMutation, map[string]any{"in": input}).OK(&out)
	return out.UpdateItemsMetadata
}

// seedItems makes n videos of c's tenant at once, through the store's
// batched create (an ingest page), and answers their ids in order.
func seedItems(t testing.TB, api *loupetest.API, c *loupetest.Client, n int, prefix string) []string {
	t.Helper()
	p := &loupe.Principal{TenantID: c.TenantID, UserID: c.UserID, Email: "seed@loupe.test", IsAdmin: true}
	var ids []string
	for start := 0; start < n; start += store.MaxMetadataEdits {
		objs := make([]*store.IngestObject, min(n-start, store.MaxMetadataEdits))
		for i := range objs {
			title := fmt.Sprintf("%s %04d", prefix, start+i)
			objs[i] = &store.IngestObject{Key: title, ETag: "e", Size: 1, ModTime: time.Now(),
				Input: loupe.CreateItemInput{Title: &title, ItemType: "video"}}
		}
		res, err := api.Store.IngestObjects(context.Background(), p, store.IngestSource{Bucket: "seed", SkipProcessing: true},
			objs, nil, map[string]string{})
		if err != nil || res.Created != len(objs) {
			t.Fatalf("seed %d items: %v (%+v)", len(objs), err, res)
		}
		ids = append(ids, res.ItemIDs...)
	}
	return ids
}

// A thousand items in one request: each written with its own value and
// metadataVersion + 1, one audit record and one event each, read back; the
// request costs the same few statements as one of ten items.
func TestUpdateItemsMetadataWritesAThousandItems(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ids := seedItems(t, api, a, store.MaxMetadataEdits, "Clip")
	small := seedItems(t, api, a, 10, "Small")

	editsOf := func(ids []string, version int) []any {
		edits := make([]any, len(ids))
		for i, id := range ids {
			edits[i] = map[string]any{"id": id, "requiredMetadataVersion": version,
				"metadataDelta": map[string]any{"formData": map[string]any{"default_description": fmt.Sprint("bulk ", i), "n": i}}}
		}
		return edits
	}
	api.Statements.Reset()
	bulkEdit(t, a, map[string]any{"edits": editsOf(small, 1)})
	smallCost := api.Statements.Count()

	api.Statements.Reset()
	start := time.Now()
	got := bulkEdit(t, a, map[string]any{"edits": editsOf(ids, 1)})
	took := time.Since(start)
	cost := api.Statements.Count()
	t.Logf("1,000 edits in one request: %v, %d statements (10 edits: %d)", took.Round(time.Millisecond), cost, smallCost)
	if cost != smallCost || cost > 4 {
		t.Fatalf("1,000 edits cost %d statements, 10 cost %d: want the same few (lock, forms, write)", cost, smallCost)
	}
	if got.WrittenCount != len(ids) || got.FailedCount != 0 || len(got.Results) != len(ids) {
		t.Fatalf("written %d, failed %d, %d results", got.WrittenCount, got.FailedCount, len(got.Results))
	}
	for i, r := range got.Results {
		if r.ID != ids[i] || r.Error != nil || r.Item == nil || r.Item.ID != ids[i] || r.Item.MetadataVersion != 2 ||
			r.Item.Metadata.FormData["default_description"] != fmt.Sprint("bulk ", i) {
			t.Fatalf("result %d: %+v", i, r)
		}
	}

	// Read back, as any client would.
	var read struct {
		Nodes []struct {
			ID              string `json:"id"`
			MetadataVersion int    `json:"metadataVersion"`
			Metadata        struct {
				FormData map[string]any `json:"formData"`
			} `json:"metadata"`
		} `json:"nodes"`
	}
	a.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Item { id metadataVersion metadata { formData } } } }`,
		map[string]any{"ids": ids}).OK(&read)
	if len(read.Nodes) != len(ids) {
		t.Fatalf("read back %d items", len(read.Nodes))
	}
	for i, n := range read.Nodes {
		if n.ID != ids[i] || n.MetadataVersion != 2 || n.Metadata.FormData["default_description"] != fmt.Sprint("bulk ", i) ||
			n.Metadata.FormData["n"] != float64(i) {
			t.Fatalf("item %d read back: %+v", i, n)
		}
	}

	// One audit record and one event per item written, as one write of
	// each would have made.
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE tenant_id = $1 AND action_type = 'metadataUpdated'`, a.TenantID); n != len(ids)+len(small) {
		t.Fatalf("%d metadataUpdated audit records, want %d", n, len(ids)+len(small))
	}
	if n := api.Count(t, `SELECT count(DISTINCT item_id) FROM audit_records WHERE tenant_id = $1 AND action_type = 'metadataUpdated'
		AND mdf_diff->'metadataFields' @> '[{"fieldId": "default_description"}]'`, a.TenantID); n != len(ids)+len(small) {
		t.Fatalf("%d items with their mdfDiff, want %d", n, len(ids)+len(small))
	}
	if n := api.Count(t, `SELECT count(DISTINCT item_id) FROM events WHERE tenant_id = $1 AND type = 'itemChange'
		AND (data->>'metadataVersion')::int = 2 AND data->'parts' ? 'metadata' AND actor_id = $2`, a.TenantID, a.UserID); n != len(ids)+len(small) {
		t.Fatalf("%d items with their itemChange event, want %d", n, len(ids)+len(small))
	}

	// The other shape: one delta for all of them, same cost.
	api.Statements.Reset()
	start = time.Now()
	got = bulkEdit(t, a, map[string]any{"ids": ids, "metadataDelta": map[string]any{"formData": map[string]any{"default_title": "Renamed", "n": nil}}})
	t.Logf("one delta for 1,000 items: %v, %d statements", time.Since(start).Round(time.Millisecond), api.Statements.Count())
	if c := api.Statements.Count(); c != cost {
		t.Fatalf("a shared delta cost %d statements, edits %d", c, cost)
	}
	if got.WrittenCount != len(ids) {
		t.Fatalf("shared delta: written %d", got.WrittenCount)
	}
	for i, r := range got.Results {
		if r.Item == nil || r.Item.MetadataVersion != 3 || r.Item.Title != "Renamed" || r.Item.Metadata.FormData["n"] != nil ||
			r.Item.Metadata.FormData["default_description"] != fmt.Sprint("bulk ", i) {
			t.Fatalf("shared delta, result %d: %+v", i, r)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM events WHERE tenant_id = $1 AND type = 'itemChange'
		AND (data->>'metadataVersion')::int = 3 AND data->'parts' ? 'title'`, a.TenantID); n != len(ids) {
		t.Fatalf("%d title changes announced, want %d", n, len(ids))
	}
	// The title follows into the folder listings (the trigger runs per row).
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND title = 'Renamed'`, a.TenantID); n != len(ids) {
		t.Fatalf("%d items retitled", n)
	}
}

// Per-item results: exactly the edits that fail fail, each with what the
// single-item mutation would have answered, and the others are written.
func TestUpdateItemsMetadataPerItemResults(t *testing.T) {
	api := loupetest.New(t)
	a, b := api.Tenant(t, "a"), api.Tenant(t, "b")
	gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "rated", "label": "Rated", "fields": []any{
		map[string]any{"fieldId": "rating", "type": "number"},
	}})
	good := createItem(t, a, map[string]any{"title": "Good", "itemType": "video"}).ID
	rated := createItem(t, a, map[string]any{"title": "Rated", "itemType": "video", "metadata": map[string]any{"formId": "rated"}}).ID
	stale := createItem(t, a, map[string]any{"title": "Stale", "itemType": "video"}).ID
	also := createItem(t, a, map[string]any{"title": "Also", "itemType": "video"}).ID
	binned := createItem(t, a, map[string]any{"title": "Binned", "itemType": "video"}).ID
	mutateID(t, a, "deleteItem", binned, "id").OK(nil)
	empty := createItem(t, a, map[string]any{"title": "Empty", "itemType": "video"}).ID
	last := createItem(t, a, map[string]any{"title": "Last", "itemType": "video"}).ID
	theirs := createItem(t, b, map[string]any{"title": "Theirs", "itemType": "video"}).ID
	// stale is at version 2 now.
	bulkEdit(t, a, map[string]any{"ids": []string{stale}, "metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}})

	delta := func(fd map[string]any) map[string]any { return map[string]any{"formData": fd} }
	got := bulkEdit(t, a, map[string]any{"edits": []any{
		map[string]any{"id": good, "requiredMetadataVersion": 1, "metadataDelta": delta(map[string]any{"default_description": "ok"})},
		map[string]any{"id": missingID, "metadataDelta": delta(map[string]any{"x": 1})},
		map[string]any{"id": theirs, "metadataDelta": delta(map[string]any{"x": 1})},
		map[string]any{"id": rated, "metadataDelta": delta(map[string]any{"rating": "five"})},
		map[string]any{"id": stale, "requiredMetadataVersion": 1, "metadataDelta": delta(map[string]any{"x": 2})},
		map[string]any{"id": binned, "metadataDelta": delta(map[string]any{"x": 1})},
		map[string]any{"id": "not-an-id", "metadataDelta": delta(map[string]any{"x": 1})},
		map[string]any{"id": also, "metadataDelta": delta(map[string]any{"default_title": ""})},
		map[string]any{"id": empty, "metadataDelta": map[string]any{}},
		map[string]any{"id": strings.ToUpper(last), "metadataDelta": delta(map[string]any{"default_description": "last"})},
	}})
	want := []struct {
		code, message string
		status        int
	}{
		{"", "", 0},
		{"NOT_FOUND", loupe.MsgNotFound, 404},
		{"NOT_FOUND", loupe.MsgNotFound, 404}, // another tenant's item: as a missing one
		{"BAD_USER_INPUT", `invalid value "five" for field: "rating"`, 400},
		{"CONFLICT", "metadataVersion 1 is stale: the item is at version 2", 409},
		{"NOT_FOUND", loupe.MsgNotFound, 404},
		{"NOT_FOUND", loupe.MsgNotFound, 404},
		{"BAD_USER_INPUT", fmt.Sprintf("default_title must be a non-empty string of at most %d bytes", loupe.MaxTitleLength), 400},
		{"BAD_USER_INPUT", "metadataDelta changes nothing: give formId or formData", 400},
		{"", "", 0},
	}
	if len(got.Results) != len(want) || got.WrittenCount != 2 || got.FailedCount != len(want)-2 {
		t.Fatalf("written %d, failed %d, %d results", got.WrittenCount, got.FailedCount, len(got.Results))
	}
	for i, w := range want {
		r := got.Results[i]
		if w.code == "" {
			if r.Error != nil || r.Item == nil || r.Item.MetadataVersion != 2 {
				t.Fatalf("result %d: %+v, want written", i, r)
			}
			continue
		}
		if r.Item != nil || r.Error == nil || r.Error.Code != w.code || r.Error.StatusCode != w.status ||
			r.Error.Message != w.message {
			t.Fatalf("result %d: %+v %+v, want %s %q", i, r, r.Error, w.code, w.message)
		}
	}
	// What the form said, as updateItemMetadata's extensions say it.
	if e := got.Results[3].Error; e.DeveloperMessage == nil || !slices.Equal(e.Messages, []string{`invalid value "five" for field: "rating"`}) {
		t.Fatalf("form error: %+v", e)
	}
	if e := got.Results[4].Error; e.MetadataVersion == nil || *e.MetadataVersion != 2 {
		t.Fatalf("conflict: %+v", e)
	}
	// The single-item mutation answers the same for the same edit.
	single := a.GraphQL(t, `mutation($in: UpdateItemMetadataInput!) { updateItemMetadata(input: $in) { item { id } } }`,
		map[string]any{"in": map[string]any{"id": rated, "metadataDelta": delta(map[string]any{"rating": "five"})}})
	if msg := wantError(t, single, "BAD_USER_INPUT", 400); msg != got.Results[3].Error.Message {
		t.Fatalf("single write says %q, bulk %q", msg, got.Results[3].Error.Message)
	}

	// Only the good ones were written, and audited.
	for _, c := range []struct {
		id      string
		version int
		audits  int
	}{{good, 2, 1}, {rated, 1, 0}, {stale, 2, 1}, {also, 1, 0}, {binned, 1, 0}, {empty, 1, 0}, {last, 2, 1}} {
		if n := api.Count(t, `SELECT metadata_version FROM items WHERE id = $1`, c.id); n != c.version {
			t.Errorf("item %s at version %d, want %d", c.id, n, c.version)
		}
		if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE item_id = $1 AND action_type = 'metadataUpdated'`, c.id); n != c.audits {
			t.Errorf("item %s: %d metadataUpdated records, want %d", c.id, n, c.audits)
		}
	}
	if n := api.Count(t, `SELECT metadata_version FROM items WHERE id = $1`, theirs); n != 1 {
		t.Fatalf("the other tenant's item changed: version %d", n)
	}
}

// Atomic: one bad edit writes nothing; each result says why.
func TestUpdateItemsMetadataAtomic(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ids := seedItems(t, api, a, 5, "Clip")
	edits := make([]any, len(ids))
	for i, id := range ids {
		edits[i] = map[string]any{"id": id, "metadataDelta": map[string]any{"formData": map[string]any{"default_description": "all"}}}
	}
	edits[2] = map[string]any{"id": ids[2], "requiredMetadataVersion": 7, "metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}}
	edits[4] = map[string]any{"id": ids[4], "metadataDelta": map[string]any{"formData": map[string]any{"default_title": ""}}}
	events := api.Count(t, `SELECT count(*) FROM events WHERE tenant_id = $1`, a.TenantID)

	got := bulkEdit(t, a, map[string]any{"edits": edits, "atomic": true})
	if got.WrittenCount != 0 || got.FailedCount != len(ids) {
		t.Fatalf("atomic: written %d, failed %d", got.WrittenCount, got.FailedCount)
	}
	for i, r := range got.Results {
		want := "NOT_WRITTEN"
		switch i {
		case 2:
			want = "CONFLICT"
		case 4:
			want = "BAD_USER_INPUT"
		}
		if r.Item != nil || r.Error == nil || r.Error.Code != want {
			t.Fatalf("result %d: %+v, want %s", i, r, want)
		}
		if want == "NOT_WRITTEN" && (r.Error.Message != "not written: another item failed" || r.Error.StatusCode != 424) {
			t.Fatalf("result %d: %+v", i, r.Error)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND metadata_version <> 1`, a.TenantID); n != 0 {
		t.Fatalf("a failed atomic request wrote %d items", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE tenant_id = $1 AND action_type = 'metadataUpdated'`, a.TenantID); n != 0 {
		t.Fatalf("a failed atomic request wrote %d audit records", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM events WHERE tenant_id = $1`, a.TenantID); n != events {
		t.Fatalf("a failed atomic request wrote %d events", n-events)
	}

	// Fixed, the same request writes them all.
	edits[2] = map[string]any{"id": ids[2], "requiredMetadataVersion": 1, "metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}}
	edits[4] = map[string]any{"id": ids[4], "metadataDelta": map[string]any{"formData": map[string]any{"default_title": "Fine"}}}
	if got := bulkEdit(t, a, map[string]any{"edits": edits, "atomic": true}); got.WrittenCount != len(ids) || got.FailedCount != 0 {
		t.Fatalf("atomic, all good: written %d, failed %d", got.WrittenCount, got.FailedCount)
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND metadata_version = 2`, a.TenantID); n != len(ids) {
		t.Fatalf("%d items written", n)
	}
}

// Refused requests write nothing: more than 1,000 edits, an item edited
// twice, both shapes or neither, a bad shared delta.
func TestUpdateItemsMetadataRefusesBadRequests(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ids := seedItems(t, api, a, store.MaxMetadataEdits+1, "Clip")
	delta := map[string]any{"formData": map[string]any{"default_description": "x"}}
	edits := make([]any, len(ids))
	for i, id := range ids {
		edits[i] = map[string]any{"id": id, "metadataDelta": delta}
	}
	cases := []struct {
		name    string
		input   map[string]any
		message string
	}{
		{"over the limit", map[string]any{"edits": edits}, "at most 1000 items per request, got 1001: send the others in another request"},
		{"over the limit, shared delta", map[string]any{"ids": ids, "metadataDelta": delta}, "at most 1000 items per request, got 1001: send the others in another request"},
		{"twice", map[string]any{"edits": []any{edits[0], edits[1], map[string]any{"id": strings.ToUpper(ids[0]), "metadataDelta": delta}}},
			fmt.Sprintf("item %s is edited twice (at 0 and 2, counting from 0): one edit per item", strings.ToUpper(ids[0]))},
		{"both shapes", map[string]any{"edits": edits[:1], "ids": ids[1:2], "metadataDelta": delta}, "give edits, or ids with metadataDelta, not both"},
		{"ids without a delta", map[string]any{"ids": ids[:2]}, "ids needs metadataDelta: the delta for every item of ids"},
		{"a delta without ids", map[string]any{"metadataDelta": delta}, "metadataDelta needs ids: the items it is for"},
		{"bad shared delta", map[string]any{"ids": ids[:2], "metadataDelta": map[string]any{"formData": "x"}}, "metadataDelta.formData must be an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api.Statements.Reset()
			r := a.GraphQL(t, bulkMutation, map[string]any{"in": c.input})
			if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
			if n := api.Statements.Count(); n != 0 {
				t.Fatalf("a refused request cost %d statements", n)
			}
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND metadata_version <> 1`, a.TenantID); n != 0 {
		t.Fatalf("refused requests wrote %d items", n)
	}
	// No edits is no work.
	for _, in := range []map[string]any{{"edits": []any{}}, {"ids": []any{}, "metadataDelta": delta}, {"atomic": true}} {
		api.Statements.Reset()
		if got := bulkEdit(t, a, in); len(got.Results) != 0 || got.WrittenCount != 0 || api.Statements.Count() != 0 {
			t.Fatalf("no edits (%v): %+v, %d statements", in, got, api.Statements.Count())
		}
	}
}

// A user's edits of items it may not change fail (FORBIDDEN), of items it
// may not see fail as missing ones do (NOT_FOUND, in capitals too), and
// the others are written; the access of all of them costs one statement.
func TestUpdateItemsMetadataChecksAccessPerItem(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	user := a.User(t, "ed@a.test", []string{"news"}, false)
	group := func(n string) []string { return []string{a.TenantID + ":" + n} }
	locked := a.CreateItem(t, map[string]any{"title": "Locked", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+locked, map[string]any{
		"updatableBy": map[string]any{"level": "selected_groups", "groups": group("nobody")}}).Status(200)
	hidden := a.CreateItem(t, map[string]any{"title": "Hidden", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+hidden, map[string]any{
		"visibleTo":   map[string]any{"level": "selected_groups", "groups": group("editors")},
		"updatableBy": map[string]any{"level": "selected_groups", "groups": group("editors")}}).Status(200)
	open := a.CreateItem(t, map[string]any{"title": "Open", "itemType": "video"})
	readOnly := a.CreateItem(t, map[string]any{"title": "Read only", "itemType": "video", "folderParents": []string{locked}})
	secret := a.CreateItem(t, map[string]any{"title": "Secret", "itemType": "video", "folderParents": []string{hidden}})
	open2 := a.CreateItem(t, map[string]any{"title": "Open too", "itemType": "video"})

	for _, c := range []struct {
		ids   []string
		codes []string
	}{
		{[]string{open, readOnly, secret, open2}, []string{"", "FORBIDDEN", "NOT_FOUND", ""}},
		{[]string{strings.ToUpper(readOnly), strings.ToUpper(secret)}, []string{"FORBIDDEN", "NOT_FOUND"}},
	} {
		api.Statements.Reset()
		got := bulkEdit(t, user, map[string]any{"ids": c.ids, "metadataDelta": map[string]any{"formData": map[string]any{"default_description": "ed"}}})
		cost := api.Statements.Count()
		for i, want := range c.codes {
			r := got.Results[i]
			switch {
			case want == "" && (r.Error != nil || r.Item == nil):
				t.Fatalf("%v: result %d: %+v, want written", c.ids, i, r.Error)
			case want != "" && (r.Error == nil || r.Error.Code != want || r.Item != nil):
				t.Fatalf("%v: result %d: %+v, want %s", c.ids, i, r, want)
			}
		}
		// Access, lock, forms, write: no statement per item.
		if cost > 5 {
			t.Fatalf("%d statements", cost)
		}
	}
	if got := bulkEdit(t, user, map[string]any{"ids": []string{open, readOnly, secret}, "atomic": true,
		"metadataDelta": map[string]any{"formData": map[string]any{"default_description": "again"}}}); got.WrittenCount != 0 ||
		got.Results[0].Error.Code != "NOT_WRITTEN" || got.Results[1].Error.Code != "FORBIDDEN" || got.Results[2].Error.Code != "NOT_FOUND" {
		t.Fatalf("atomic with a refused item: %+v", got)
	}
	for id, version := range map[string]int{open: 2, open2: 2, readOnly: 1, secret: 1} {
		if n := api.Count(t, `SELECT metadata_version FROM items WHERE id = $1`, id); n != version {
			t.Fatalf("item %s at version %d, want %d", id, n, version)
		}
	}
	// The admin may change them all.
	if got := bulkEdit(t, a, map[string]any{"ids": []string{readOnly, secret}, "metadataDelta": map[string]any{"formData": map[string]any{"x": 1}}}); got.WrittenCount != 2 {
		t.Fatalf("admin: %+v", got)
	}
}
