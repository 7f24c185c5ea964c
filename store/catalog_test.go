package store

import (
	"context"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// Tenants can be spread over several database nodes (Citus, docs/scaling.md)
// only if every table of a tenant's data is keyed by tenant first: its
// primary key and every unique index lead with tenant_id. The exceptions
// are listed here with why; a new table or index that breaks the rule fails
// this test until it is fixed or listed (and docs/scaling.md says how it
// distributes).
var (
	// globalTables hold no tenant's rows (or every tenant's, as a log):
	// reference tables, or kept on the coordinator.
	globalTables = []string{
		"tenants",                 // the tenants themselves
		"system_keys",             // the system scope's keys
		"event_readers",           // each node's reading position in the outbox
		"job_nodes",               // each job node's heartbeat
		"cache_nodes",             // each caching node's beat and applied sync marker
		"share_password_failures", // throttling by client address and share, before any tenant is known
		"goose_db_version",        // migrations

		// The job queue.
		"river_job", "river_leader", "river_migration", "river_notification", "river_queue",
	}
	// credentialKeys are unique keys looked up from a credential that names
	// no tenant: the key, share token or session is found first, its tenant
	// after.
	credentialKeys = []string{
		"api_keys_id_key",     // an API key <prefix>.<keyId>.<secret>
		"share_tokens_pkey",   // a share link's token hash
		"share_sessions_pkey", // an outsider's session hash
		"events_pkey",         // the outbox: one commit order for every tenant's events
	}
)

func TestEveryTenantKeyLeadsWithTenantID(t *testing.T) {
	ctx := context.Background()
	db, err := Open(DSN(pgtest.DB(t)), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var untenanted []string
	if err := db.SelectContext(ctx, &untenanted, `
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
WHERE c.relkind IN ('r', 'p') AND NOT EXISTS (
  SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range untenanted {
		if !slices.Contains(globalTables, tbl) {
			t.Errorf("table %s has no tenant_id and is not among the global tables", tbl)
		}
	}

	var keys []struct{ Table, Index, Def string }
	if err := db.SelectContext(ctx, &keys, `
SELECT c.relname AS table, i.relname AS index, pg_get_indexdef(ix.indexrelid) AS def
FROM pg_index ix
JOIN pg_class c ON c.oid = ix.indrelid
JOIN pg_class i ON i.oid = ix.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
WHERE ix.indisunique
  AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
  AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum = ix.indkey[0] AND a.attname = 'tenant_id')
ORDER BY 1, 2`); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !slices.Contains(credentialKeys, k.Index) {
			t.Errorf("table %s: the unique key %s does not lead with tenant_id: %s", k.Table, k.Index, k.Def)
		}
	}
	// The lists name nothing that is gone.
	if len(keys) != len(credentialKeys) {
		t.Errorf("credentialKeys lists %d keys, the catalog has %d such", len(credentialKeys), len(keys))
	}
	for _, g := range globalTables {
		if !slices.Contains(untenanted, g) {
			t.Errorf("globalTables lists %s, which is not a table without tenant_id", g)
		}
	}
}
