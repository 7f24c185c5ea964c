package postgraphile

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/lib/pq"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// cacheDir is the repository's .loupe/bench/postgraphile (ignored by git),
// shared with `make bench`; LOUPE_POSTGRAPHILE_DIR overrides it.
func cacheDir(t *testing.T) string {
	if d := os.Getenv("LOUPE_POSTGRAPHILE_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".loupe", "bench", "postgraphile")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(t.TempDir(), "postgraphile")
		}
		dir = parent
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// seeded is a small tenant: a folder of items, one of them also in a second
// folder, with comments and a relation.
type seeded struct {
	tenant, user, folder, folder2 string
	items                         []string // in folder, by title (Clip 0..4)
	titles                        []string
}

func seed(t *testing.T, db *sql.DB) seeded {
	t.Helper()
	s := seeded{tenant: newID(), user: newID(), folder: newID(), folder2: newID()}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("seed: %v\n%s", err, q)
		}
	}
	exec(`INSERT INTO tenants (id, name) VALUES ($1, $2)`, s.tenant, "pg-"+s.tenant)
	exec(`INSERT INTO users (tenant_id, id, email, is_admin) VALUES ($1, $2, 'admin@example.com', true)`, s.tenant, s.user)
	item := func(id, typ, title string) {
		exec(`INSERT INTO items (tenant_id, id, item_type, title, original_file_name, created_by, created_on, modified_on,
		        metadata_form_data)
		      VALUES ($1, $2, $3, $4, $5, $6, now(), now(), '{"default_description": "d"}')`,
			s.tenant, id, typ, title, title+".mp4", s.user)
	}
	item(s.folder, "folder", "Shoot")
	item(s.folder2, "folder", "Selects")
	for i := range 5 {
		id, title := newID(), fmt.Sprintf("Clip %d", i)
		item(id, "video", title)
		s.items, s.titles = append(s.items, id), append(s.titles, title)
		exec(`INSERT INTO item_folders (tenant_id, item_id, folder_id, position) VALUES ($1, $2, $3, 0)`, s.tenant, id, s.folder)
	}
	exec(`INSERT INTO item_folders (tenant_id, item_id, folder_id, position) VALUES ($1, $2, $3, 1)`, s.tenant, s.items[0], s.folder2)
	for i := range 4 {
		exec(`INSERT INTO comments (tenant_id, id, item_id, type, text, author_id, created_on, modified_on)
		      VALUES ($1, $2, $3, 'top', $4, $5, now(), now())`, s.tenant, newID(), s.items[0], fmt.Sprintf("note %d", i), s.user)
	}
	exec(`INSERT INTO item_relations (tenant_id, item_id, relation_type, related_item_id, created_by, created_on)
	      VALUES ($1, $2, 'source', $3, $4, now())`, s.tenant, s.items[0], s.items[1], s.user)
	exec(`UPDATE items SET has_relations = true WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
		s.tenant, "{"+s.items[0]+","+s.items[1]+"}")
	return s
}

func post(t testing.TB, client *http.Client, url, query string, vars map[string]any, into any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if resp.StatusCode != 200 || len(raw.Errors) > 0 {
		t.Fatalf("status %d, errors %+v", resp.StatusCode, raw.Errors)
	}
	if err := json.Unmarshal(raw.Data, into); err != nil {
		t.Fatalf("%v: %s", err, raw.Data)
	}
}

type gridData struct {
	Item *struct {
		Title string
		Page  struct {
			TotalCount int
			PageInfo   struct{ HasNextPage, HasPreviousPage bool }
			Nodes      []struct {
				Item struct {
					ID, Title string
					Folders   struct {
						Nodes []struct {
							Folder struct{ Title string } `json:"itemByTenantIdAndFolderId"`
						}
					} `json:"itemFoldersByTenantIdAndItemId"`
					Comments struct {
						TotalCount int
						Nodes      []struct{ Text string }
					} `json:"commentsByTenantIdAndItemId"`
					Relations struct {
						Nodes []struct {
							RelationType string
							Related      struct{ Title string } `json:"itemByTenantIdAndRelatedItemId"`
						}
					} `json:"itemRelationsByTenantIdAndItemId"`
				} `json:"itemByTenantIdAndItemId"`
			}
		} `json:"itemFoldersByTenantIdAndFolderId"`
	} `json:"itemByTenantIdAndId"`
}

func TestPostGraphile(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("skipped: npm is not installed, so PostGraphile cannot be installed")
	}
	dbURL := pgtest.DB(t)
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	s := seed(t, db)
	db.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log bytes.Buffer
	installCtx, cancelInstall := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelInstall()
	cli, err := Install(installCtx, cacheDir(t), &log)
	// A registry that does not answer in time is as unreachable as one that
	// refuses: the test needs npm, the suite must not hang on it.
	if errors.Is(err, ErrNoNPM) || errors.Is(err, ErrRegistry) || errors.Is(installCtx.Err(), context.DeadlineExceeded) {
		t.Skipf("skipped: could not install %s from the npm registry (is it reachable?): %v", Package, err)
	}
	if err != nil {
		t.Fatalf("install: %v\n%s", err, log.String())
	}
	// A second Install finds it in place.
	if again, err := Install(ctx, cacheDir(t), nil); err != nil || again != cli {
		t.Fatalf("second Install = %q, %v; want %q", again, err, cli)
	}

	port := freePort(t)
	stop, err := Start(ctx, cli, dbURL, port, &log)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after pgtest.DB's cleanup, so it runs first: the server lets
	// go of the database before it is dropped.
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("postgraphile output:\n%s", log.String())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/graphql", port)
	client := &http.Client{Timeout: 10 * time.Second}

	// Read-only: no mutations exposed.
	var typ struct {
		Schema struct{ MutationType *struct{ Name string } } `json:"__schema"`
	}
	post(t, client, url, `{__schema{mutationType{name}}}`, nil, &typ)
	if typ.Schema.MutationType != nil {
		t.Errorf("mutation type %q exposed; want none", typ.Schema.MutationType.Name)
	}

	byID, grid := Queries()
	t.Run("byID", func(t *testing.T) {
		var got struct {
			Item *struct {
				ID, Title, OriginalFileName, ItemType, MetadataFormID, LanguageCode string
				MetadataFormData                                                    map[string]any
				MetadataVersion                                                     int
				Folders                                                             []struct{ FolderID string } `json:"itemFoldersByTenantIdAndItemIdList"`
			} `json:"itemByTenantIdAndId"`
		}
		q, vars := byID(s.tenant, s.items[0])
		post(t, client, url, q, vars, &got)
		it := got.Item
		if it == nil {
			t.Fatal("item not found")
		}
		if it.ID != s.items[0] || it.Title != "Clip 0" || it.OriginalFileName != "Clip 0.mp4" || it.ItemType != "video" ||
			it.MetadataFormID != "default" || it.MetadataVersion != 1 || it.LanguageCode != "en-US" ||
			it.MetadataFormData["default_description"] != "d" {
			t.Errorf("item = %+v", *it)
		}
		if len(it.Folders) != 2 || it.Folders[0].FolderID != s.folder || it.Folders[1].FolderID != s.folder2 {
			t.Errorf("folders = %+v, want [%s %s]", it.Folders, s.folder, s.folder2)
		}
		// Another tenant's id finds nothing.
		q, vars = byID(newID(), s.items[0])
		post(t, client, url, q, vars, &got)
		if got.Item != nil {
			t.Errorf("item found under another tenant")
		}
	})

	t.Run("grid", func(t *testing.T) {
		var got gridData
		q, vars := grid(s.tenant, s.folder, 0)
		post(t, client, url, q, vars, &got)
		if got.Item == nil || got.Item.Title != "Shoot" {
			t.Fatalf("folder = %+v", got.Item)
		}
		p := got.Item.Page
		if p.TotalCount != 5 || p.PageInfo.HasNextPage || p.PageInfo.HasPreviousPage {
			t.Errorf("totalCount %d, pageInfo %+v; want 5, no other pages", p.TotalCount, p.PageInfo)
		}
		var titles []string
		for _, n := range p.Nodes {
			titles = append(titles, n.Item.Title)
		}
		if !slices.Equal(titles, s.titles) {
			t.Fatalf("titles = %q, want %q", titles, s.titles)
		}
		first := p.Nodes[0].Item
		var folders []string
		for _, f := range first.Folders.Nodes {
			folders = append(folders, f.Folder.Title)
		}
		if !slices.Equal(folders, []string{"Shoot", "Selects"}) {
			t.Errorf("folders of Clip 0 = %q", folders)
		}
		var notes []string
		for _, c := range first.Comments.Nodes {
			notes = append(notes, c.Text)
		}
		if first.Comments.TotalCount != 4 || !slices.Equal(notes, []string{"note 3", "note 2", "note 1"}) {
			t.Errorf("comments of Clip 0 = %d %q, want 4, the 3 latest", first.Comments.TotalCount, notes)
		}
		if r := first.Relations.Nodes; len(r) != 1 || r[0].RelationType != "source" || r[0].Related.Title != "Clip 1" {
			t.Errorf("relations of Clip 0 = %+v", r)
		}
		if n := p.Nodes[1].Item; len(n.Comments.Nodes) != 0 || len(n.Relations.Nodes) != 0 || len(n.Folders.Nodes) != 1 {
			t.Errorf("Clip 1 = %+v", n)
		}

		// Offset paging.
		q, vars = grid(s.tenant, s.folder, 3)
		post(t, client, url, q, vars, &got)
		titles = titles[:0]
		for _, n := range got.Item.Page.Nodes {
			titles = append(titles, n.Item.Title)
		}
		if !slices.Equal(titles, s.titles[3:]) || !got.Item.Page.PageInfo.HasPreviousPage {
			t.Errorf("offset 3: titles %q, pageInfo %+v; want %q", titles, got.Item.Page.PageInfo, s.titles[3:])
		}
	})
}

func TestQueries(t *testing.T) {
	byID, grid := Queries()
	q, vars := byID("t", "i")
	if q != ByIDQuery || vars["tenantId"] != "t" || vars["id"] != "i" {
		t.Errorf("byID vars = %v", vars)
	}
	q, vars = grid("t", "f", 100)
	if q != GridQuery || vars["tenantId"] != "t" || vars["folderId"] != "f" || vars["offset"] != 100 || vars["first"] != PageSize {
		t.Errorf("grid vars = %v", vars)
	}
}

func TestRegistryFailure(t *testing.T) {
	for out, want := range map[string]bool{
		"npm error code ENOTFOUND\nnpm error request to https://registry.npmjs.org/postgraphile failed": true,
		"npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/postgraphile":    true,
		"npm error code ETARGET\nnpm error notarget No matching version found":                          true,
		"npm error code ENOSPC\nnpm error nospc no space left on device":                                false,
	} {
		if got := registryFailure(out); got != want {
			t.Errorf("registryFailure(%q) = %v, want %v", out, got, want)
		}
	}
}
