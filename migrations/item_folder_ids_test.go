package migrations_test

import (
	"context"
	"testing"
)

// items.folder_ids (migration 00016) is filled for the links that exist,
// in their order, and follows every later change of item_folders.
func TestItemFolderIDsFollowTheLinks(t *testing.T) {
	ctx := context.Background()
	db, p := migratedTo(t, "loupe_migrate_folder_ids", 15)
	const (
		tenant = "01a20242-9dca-771b-bd4e-ca31c13a5601"
		a      = "01a20242-9dca-771b-bd4e-ca31c13a5a01"
		b      = "01a20242-9dca-771b-bd4e-ca31c13a5a02"
		c      = "01a20242-9dca-771b-bd4e-ca31c13a5a03"
		clip   = "01a20242-9dca-771b-bd4e-ca31c13a5b01"
		other  = "01a20242-9dca-771b-bd4e-ca31c13a5b02"
	)
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`INSERT INTO tenants (id, name) VALUES ($1, 't')`, tenant)
	for _, it := range [][2]string{{a, "folder"}, {b, "folder"}, {c, "folder"}, {clip, "video"}, {other, "video"}} {
		exec(`INSERT INTO items (tenant_id, id, item_type, title, created_by, created_on, modified_on)
			VALUES ($1, $2, $3, 'x', $1, now(), now())`, tenant, it[0], it[1])
	}
	exec(`INSERT INTO item_folders (tenant_id, item_id, folder_id, position) VALUES ($1, $2, $3, 2), ($1, $2, $4, 1)`, tenant, clip, a, b)
	if _, err := p.UpTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	ids := func(item string) string {
		t.Helper()
		var s string
		if err := db.QueryRowContext(ctx, `SELECT folder_ids::text FROM items WHERE tenant_id = $1 AND id = $2`, tenant, item).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Each change names the tenant, the clip and folder c.
	steps := []struct {
		name, change string
		want         string // clip's folders
	}{
		{"migrated, in position order", ``, "{" + b + "," + a + "}"},
		{"link added", `INSERT INTO item_folders (tenant_id, item_id, folder_id, position) VALUES ($1, $2, $3, 3)`, "{" + b + "," + a + "," + c + "}"},
		{"link removed", `DELETE FROM item_folders WHERE tenant_id = $1 AND item_id = $2 AND folder_id = $3`, "{" + b + "," + a + "}"},
		{"moved to another folder", `UPDATE item_folders SET folder_id = $3 WHERE tenant_id = $1 AND item_id = $2 AND folder_id = '` + a + `'`, "{" + b + "," + c + "}"},
		{"reordered", `UPDATE item_folders SET position = 9 WHERE tenant_id = $1 AND item_id = $2 AND folder_id <> $3`, "{" + c + "," + b + "}"},
	}
	for _, s := range steps {
		if s.change != "" {
			exec(s.change, tenant, clip, c) // $3 is always folder c
		}
		if got := ids(clip); got != s.want {
			t.Fatalf("%s: folder_ids %s, want %s", s.name, got, s.want)
		}
		if got := ids(other); got != "{}" {
			t.Fatalf("%s: an item in no folder has folder_ids %s", s.name, got)
		}
	}
	if _, err := p.DownTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(clip), "{"+c+","+b+"}"; got != want {
		t.Fatalf("down and up again: folder_ids %s, want %s", got, want)
	}
}
