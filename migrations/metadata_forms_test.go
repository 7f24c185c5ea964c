package migrations_test

import (
	"context"
	"testing"
)

// Tenants that exist before forms do get the default forms from the
// migration (new tenants get them from store.CreateTenant); the migration
// also goes down and up again.
func TestMetadataFormsMigrationGivesExistingTenantsTheDefaultForms(t *testing.T) {
	ctx := context.Background()
	db, p := migratedTo(t, "loupe_migrate_mdfs", 10)
	for _, id := range []string{"01a20242-9dca-771b-bd4e-ca31c13a5601", "01a20242-9dca-771b-bd4e-ca31c13a5602"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO tenants (id, name) VALUES ($1, $2)`, id, "t"+id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 11); err != nil {
		t.Fatal(err)
	}
	count := func(query string) int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM mdfs WHERE is_default`); n != 14 {
		t.Fatalf("%d default forms for 2 tenants, want 14", n)
	}
	if n := count(`SELECT count(*) FROM mdfs m, jsonb_array_elements(m.fields) f
		WHERE m.id = 'default' AND f->>'id' IN ('default_title', 'default_description') AND f->>'type' = 'text'`); n != 4 {
		t.Fatalf("%d system fields in the default forms of 2 tenants, want 4", n)
	}
	if _, err := p.DownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM information_schema.tables WHERE table_name IN ('mdfs', 'option_lists', 'definition_changes')`); n != 0 {
		t.Fatalf("%d form tables left after down", n)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM mdfs`); n != 14 {
		t.Fatalf("%d forms after up again, want 14", n)
	}
}
