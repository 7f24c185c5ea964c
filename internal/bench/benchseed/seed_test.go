package benchseed_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	_ "github.com/lib/pq"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/server"
	"github.com/loupe-mam/loupe/store"
)

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// serveSeeded runs the production handler on the seeded database.
func serveSeeded(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("postgres", store.DSN(dsn))
	if err != nil {
		t.Fatal(err)
	}
	sdb := store.NewDB(db, 4)
	t.Cleanup(func() { sdb.Close() })
	srv := httptest.NewUnstartedServer(nil)
	cfg := server.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg.Blobs = blob.NewSigner([]byte("benchseed-test-key-0123456789abcdef"), "http://"+srv.Listener.Addr().String())
	srv.Config.Handler = server.New(t.Context(), cfg, store.New(sdb))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// get calls the API with the seeded key and decodes a 200 answer into v.
func get(t *testing.T, base, key, path string, v any) {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

// The seeded tenant reads back through the API as if made there.
func TestSeedReadsBackThroughAPI(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DB(t)
	db := openDB(t, dsn)
	spec := benchseed.Quick()
	s, err := benchseed.Seed(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %+v in %v", spec, s.Took)

	if len(s.ItemIDs) != spec.Items || len(s.FolderIDs) != spec.Folders || s.BigFolder != s.FolderIDs[0] ||
		s.BusiestItem == "" || s.APIKey == "" {
		t.Fatalf("Seeded = %d items, %d folders, big %q, busiest %q", len(s.ItemIDs), len(s.FolderIDs), s.BigFolder, s.BusiestItem)
	}

	// Row counts, as the spec says.
	for _, tc := range []struct {
		what  string
		query string
		want  int
	}{
		{"media items", `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type <> 'folder'`, spec.Items},
		{"folders (and the archive)", `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type = 'folder'`, spec.Folders + 1},
		{"comments", `SELECT count(*) FROM comments WHERE tenant_id = $1`, spec.Comments},
		{"audit records", `SELECT count(*) FROM audit_records WHERE tenant_id = $1`, spec.AuditRecords},
		{"relations", `SELECT count(*) FROM item_relations WHERE tenant_id = $1`, spec.Relations},
		{"big folder children", `SELECT count(*) FROM item_folders WHERE tenant_id = $1 AND folder_id = '` + s.BigFolder + `'`, spec.BigFolderItems},
		{"items without a version (the archive folder's none, as CreateTenant makes it)",
			`SELECT count(*) FROM items i WHERE tenant_id = $1 AND NOT EXISTS
			 (SELECT 1 FROM item_versions v WHERE v.tenant_id = i.tenant_id AND v.item_id = i.id)`, 1},
		{"media items outside 1–3 folders", `SELECT count(*) FROM items i WHERE tenant_id = $1 AND item_type <> 'folder'
			AND (SELECT count(*) FROM item_folders l WHERE l.tenant_id = i.tenant_id AND l.item_id = i.id) NOT BETWEEN 1 AND 3`, 0},
		{"links with a position outside 1..n", `SELECT count(*) FROM item_folders l WHERE tenant_id = $1 AND position >
			(SELECT count(*) FROM item_folders o WHERE o.tenant_id = l.tenant_id AND o.item_id = l.item_id)`, 0},
		{"links the trigger did not fill", `SELECT count(*) FROM item_folders l JOIN items i ON i.tenant_id = l.tenant_id
			AND i.id = l.item_id WHERE l.tenant_id = $1 AND (l.child_name <> i.title OR l.child_type <> i.item_type)`, 0},
		{"has_relations out of step", `SELECT count(*) FROM items i WHERE tenant_id = $1 AND has_relations <> EXISTS
			(SELECT 1 FROM item_relations r WHERE r.tenant_id = i.tenant_id AND i.id IN (r.item_id, r.related_item_id))`, 0},
		{"replies to other than a top comment of the same item", `SELECT count(*) FROM comments c JOIN comments p
			ON p.tenant_id = c.tenant_id AND p.id = c.parent_id WHERE c.tenant_id = $1 AND (p.type <> 'top' OR p.item_id <> c.item_id)`, 0},
		{"comments older than their item", `SELECT count(*) FROM comments c JOIN items i ON i.tenant_id = c.tenant_id
			AND i.id = c.item_id WHERE c.tenant_id = $1 AND c.created_on < i.created_on`, 0},
		{"folders deeper than six levels", `WITH RECURSIVE d(id, depth) AS (
			SELECT id, 1 FROM items i WHERE tenant_id = $1 AND item_type = 'folder' AND NOT EXISTS
			  (SELECT 1 FROM item_folders l WHERE l.tenant_id = i.tenant_id AND l.item_id = i.id)
			UNION ALL
			SELECT l.item_id, d.depth + 1 FROM d JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = d.id
			WHERE l.child_type = 'folder')
			SELECT count(*) FROM d WHERE depth > 6`, 0},
		{"folders six levels deep", `WITH RECURSIVE d(id, depth) AS (
			SELECT id, 1 FROM items i WHERE tenant_id = $1 AND item_type = 'folder' AND NOT EXISTS
			  (SELECT 1 FROM item_folders l WHERE l.tenant_id = i.tenant_id AND l.item_id = i.id)
			UNION ALL
			SELECT l.item_id, d.depth + 1 FROM d JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = d.id
			WHERE l.child_type = 'folder')
			SELECT least(count(*), 1) FROM d WHERE depth = 6`, 1},
		{"items whose folder ids are not their links", `SELECT count(*) FROM items i WHERE i.tenant_id = $1
			AND i.folder_ids <> ARRAY(SELECT l.folder_id FROM item_folders l
			                          WHERE l.tenant_id = i.tenant_id AND l.item_id = i.id ORDER BY l.position)`, 0},
		{"items written twice (a link's trigger rewrote them)", `SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'items'
			AND $1::uuid IS NOT NULL`, 0},
		{"ids out of creation order", `SELECT count(*) FROM (SELECT id, created_on, lag(created_on) OVER (ORDER BY id) AS prev
			FROM items WHERE tenant_id = $1 AND item_type <> 'folder') x WHERE created_on < prev`, 0},
	} {
		if got := count(t, db, tc.query, s.TenantID); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
	if got := count(t, db, `SELECT count(DISTINCT item_type) FROM items WHERE tenant_id = $1`, s.TenantID); got != 5 {
		t.Errorf("%d item types, want video, audio, image, document and folder", got)
	}
	if got := count(t, db, `SELECT count(*) FROM comment_reactions WHERE tenant_id = $1`, s.TenantID); got == 0 {
		t.Error("no reactions")
	}
	if got := count(t, db, `SELECT count(*) FROM pg_stat_user_tables WHERE relname = 'items' AND last_analyze IS NULL AND last_autoanalyze IS NULL`); got != 0 {
		t.Error("items not analyzed")
	}

	base := serveSeeded(t, dsn)

	// An item in the big folder, as GET /api/v1/items/{id} shows it.
	var item struct {
		ID            string   `json:"id"`
		Title         string   `json:"title"`
		ItemType      string   `json:"itemType"`
		FolderParents []string `json:"folderParents"`
		Metadata      struct {
			FormID   string         `json:"formId"`
			FormData map[string]any `json:"formData"`
		} `json:"metadata"`
		MetadataVersion int `json:"metadataVersion"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+s.ItemIDs[0], &item)
	if item.ID != s.ItemIDs[0] || item.Title == "" || item.MetadataVersion != 1 || item.Metadata.FormID != "default" ||
		item.Metadata.FormData["default_title"] != item.Title || item.Metadata.FormData["default_description"] == nil ||
		len(item.FolderParents) < 1 || len(item.FolderParents) > 3 || item.FolderParents[0] != s.BigFolder {
		t.Errorf("item %s: %+v", s.ItemIDs[0], item)
	}

	// The big folder's content: every child, a page of them.
	var content struct {
		Total int `json:"total"`
		Hits  []struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			ItemType string `json:"itemType"`
		} `json:"hits"`
	}
	get(t, base, s.APIKey, "/api/v1/folders/"+s.BigFolder+"/content?size=50&sort=name&order=asc", &content)
	if content.Total != spec.BigFolderItems || len(content.Hits) != 50 || content.Hits[0].Name == "" {
		t.Errorf("big folder content: total %d, %d hits: %+v", content.Total, len(content.Hits), content.Hits[:min(3, len(content.Hits))])
	}

	// The busiest item's comments, first page.
	var comments struct {
		Comments []struct {
			ID        string          `json:"id"`
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Context   json.RawMessage `json:"context"`
			Reactions []any           `json:"reactions"`
		} `json:"comments"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+s.BusiestItem+"/comments?size=100", &comments)
	want := min(100, count(t, db, `SELECT count(*) FROM comments WHERE tenant_id = $1 AND item_id = $2`, s.TenantID, s.BusiestItem))
	if len(comments.Comments) != want || want < 3 {
		t.Errorf("busiest item: %d comments, want %d (at least 3)", len(comments.Comments), want)
	}
	for _, c := range comments.Comments {
		if c.Text == "" || (c.Type != "top" && c.Type != "reply") {
			t.Errorf("comment %+v", c)
		}
	}

	// A comment with a timeline context and reactions reads back whole.
	var withContext struct{ Item, Comment string }
	if err := db.QueryRow(`SELECT c.item_id, c.id FROM comments c WHERE c.tenant_id = $1 AND c.context IS NOT NULL
		AND EXISTS (SELECT 1 FROM comment_reactions r WHERE r.tenant_id = c.tenant_id AND r.comment_id = c.id)
		ORDER BY c.id LIMIT 1`, s.TenantID).Scan(&withContext.Item, &withContext.Comment); err != nil {
		t.Fatalf("no comment with context and reactions: %v", err)
	}
	var page struct {
		Comments []struct {
			ID      string `json:"id"`
			Context struct {
				Type        string `json:"type"`
				StartSecond struct{ Approximate float64 }
				EndSecond   struct{ Approximate float64 }
			} `json:"context"`
			Reactions []struct{ Reaction, UserID string } `json:"reactions"`
		} `json:"comments"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+withContext.Item+"/comments?size=100", &page)
	found := false
	for _, c := range page.Comments {
		if c.ID == withContext.Comment {
			found = true
			if c.Context.Type != "timeline" || c.Context.EndSecond.Approximate <= c.Context.StartSecond.Approximate || len(c.Reactions) == 0 {
				t.Errorf("comment %s: %+v", c.ID, c)
			}
		}
	}
	if !found {
		t.Errorf("comment %s not among its item's comments", withContext.Comment)
	}

	// Audit history, all of it and one item's.
	var audit struct {
		Total int `json:"total"`
		Hits  []struct {
			ItemID     string `json:"itemId"`
			ActionType string `json:"actionType"`
			ItemTitle  string `json:"itemTitle"`
			Email      string `json:"email"`
		} `json:"hits"`
	}
	get(t, base, s.APIKey, "/auxiliary/api/v1/itemAnalyticsSearch?size=20", &audit)
	if audit.Total != spec.AuditRecords || len(audit.Hits) != 20 || audit.Hits[0].Email == "" {
		t.Errorf("audit search: total %d, %d hits", audit.Total, len(audit.Hits))
	}
	get(t, base, s.APIKey, "/auxiliary/api/v1/itemAnalyticsSearch?actionType=create&itemId="+url.QueryEscape(s.ItemIDs[0]), &audit)
	if audit.Total != 1 || audit.Hits[0].ItemTitle != item.Title {
		t.Errorf("create record of %s: %+v", s.ItemIDs[0], audit)
	}

	// Transcripts are searched (weight D) and text detection results
	// read back as the analysis worker's entries.
	for _, tc := range []struct {
		what  string
		query string
		want  int
	}{
		{"items with a transcript", `SELECT count(*) FROM transcripts WHERE tenant_id = $1 AND language_code = 'en-US'`, spec.Transcripts},
		{"transcripts the items' search text misses", `SELECT count(*) FROM transcripts t JOIN items i ON i.tenant_id = t.tenant_id
			AND i.id = t.item_id WHERE t.tenant_id = $1 AND (i.transcript_text IS DISTINCT FROM (SELECT string_agg(seg->>'content', ' ' ORDER BY n)
			FROM jsonb_array_elements(t.segments) WITH ORDINALITY AS x(seg, n)) OR NOT i.search @@ to_tsquery('simple', split_part(i.transcript_text, ' ', 3)))`, 0},
		{"items with detected text", `SELECT count(DISTINCT item_id) FROM timed_metadata WHERE tenant_id = $1 AND form_id = 'default_detected_text'`, spec.DetectedTexts},
	} {
		var got int
		if err := db.QueryRow(tc.query, s.TenantID).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
	var detected string
	if err := db.QueryRow(`SELECT item_id FROM timed_metadata WHERE tenant_id = $1 LIMIT 1`, s.TenantID).Scan(&detected); err != nil {
		t.Fatal(err)
	}
	var timed struct {
		Items []struct {
			ID       string `json:"id"`
			StartMs  int64  `json:"startMs"`
			EndMs    int64  `json:"endMs"`
			Metadata struct {
				FormID   string         `json:"formId"`
				FormData map[string]any `json:"formData"`
			} `json:"data"`
		} `json:"items"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+detected+"/timedMetadata", &timed)
	if len(timed.Items) != 3 || timed.Items[1].ID != "detected-text-10000" || timed.Items[1].EndMs != 20000 ||
		timed.Items[1].Metadata.FormID != "default_detected_text" || timed.Items[1].Metadata.FormData["default_text"] == nil {
		t.Errorf("detected text of %s: %+v", detected, timed)
	}

	// Relations, from either end.
	var related string
	if err := db.QueryRow(`SELECT related_item_id FROM item_relations WHERE tenant_id = $1 LIMIT 1`, s.TenantID).Scan(&related); err != nil {
		t.Fatal(err)
	}
	var rels struct {
		Relations []struct{ RelationType, Direction, RelatedItemID string } `json:"relations"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+related+"/relations", &rels)
	if len(rels.Relations) == 0 {
		t.Errorf("item %s: no relations", related)
	}
	var withRel struct {
		HasRelations bool `json:"hasRelations"`
	}
	get(t, base, s.APIKey, "/api/v1/items/"+related, &withRel)
	if !withRel.HasRelations {
		t.Errorf("item %s: hasRelations false", related)
	}
}

// Seeding twice into one database makes two tenants. The pool here is
// opened as loupe opens its own (binary_parameters=yes), which COPY must
// not mind.
func TestSeedTwice(t *testing.T) {
	t.Parallel()
	db := openDB(t, store.DSN(pgtest.DB(t)))
	spec := benchseed.Spec{Items: 50, Folders: 5, BigFolderItems: 20, Comments: 40, AuditRecords: 10, Relations: 5}
	a, err := benchseed.Seed(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := benchseed.Seed(context.Background(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if a.TenantID == b.TenantID {
		t.Fatal("same tenant twice")
	}
	if got := count(t, db, `SELECT count(*) FROM items WHERE item_type <> 'folder'`); got != 2*spec.Items {
		t.Errorf("%d items, want %d", got, 2*spec.Items)
	}
}

func TestSpecErrors(t *testing.T) {
	for _, spec := range []benchseed.Spec{
		{Items: -1},
		{Items: 10, Folders: 5, BigFolderItems: 11},
		{Items: 10, Folders: 1},
		{Comments: 1},
		{Items: 2, Folders: 2, Relations: 5},
	} {
		// Rejected before the database is asked: nil is never used.
		if _, err := benchseed.Seed(context.Background(), nil, spec); err == nil {
			t.Errorf("Seed(%+v): no error", spec)
		}
	}
}

// TestSeedFull seeds the bench's tenant and reports the time; it runs only
// with BENCHSEED_FULL=1 (it takes a while and a few hundred MB).
func TestSeedFull(t *testing.T) {
	if os.Getenv("BENCHSEED_FULL") == "" {
		t.Skip("set BENCHSEED_FULL=1 to seed benchseed.Full()")
	}
	db := openDB(t, pgtest.DB(t))
	s, err := benchseed.Seed(context.Background(), db, benchseed.Full())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Full() seeded in %v", s.Took)
}
