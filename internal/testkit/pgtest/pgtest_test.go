package pgtest

import (
	"database/sql"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Parallel tests get separate, migrated databases.
func TestDBParallel(t *testing.T) {
	var (
		mu    sync.Mutex
		names = map[string]bool{}
	)
	for _, sub := range []string{"a", "b", "c", "d"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			db := open(t, DB(t))
			t.Logf("DB: %v", time.Since(start))

			var name string
			if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			if names[name] {
				t.Errorf("database %s handed out twice", name)
			}
			names[name] = true
			mu.Unlock()

			// Migrated, and empty: no other test's rows.
			var n int
			if err := db.QueryRow("SELECT count(*) FROM items").Scan(&n); err != nil {
				t.Fatalf("items table: %v", err)
			}
			if n != 0 {
				t.Errorf("items has %d rows in a fresh database", n)
			}
			if _, err := db.Exec("INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), $1)", sub); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow("SELECT count(*) FROM tenants").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("tenants has %d rows, want only this test's 1", n)
			}
		})
	}
}

// The database is gone after the test, even if the test left a connection
// open.
func TestDBDroppedInCleanup(t *testing.T) {
	var url string
	t.Run("inner", func(t *testing.T) {
		url = DB(t)
		db, err := sql.Open("postgres", url)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(); err != nil { // leaked on purpose
			t.Fatal(err)
		}
	})
	admin := open(t, AdminURL(t))
	var exists bool
	if err := admin.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE $1 LIKE '%/' || datname || '?%')", url).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database of %s still exists after its test", url)
	}
}
