package migrations_test

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"testing"

	_ "github.com/lib/pq"
	"github.com/pressly/goose/v3"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/migrations"
)

// Several instances starting at once on an empty database all succeed: the
// advisory lock lets one migrate while the others wait and then find nothing
// to do.
func TestConcurrentUpOnEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	u := emptyDatabase(t, "loupe_migrate_race")

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sql.Open("postgres", u.String())
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			errs[i] = migrations.Up(ctx, db)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
		}
	}
	db, err := sql.Open("postgres", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied, files int
	if err := db.QueryRow(`SELECT count(*) FROM goose_db_version WHERE version_id > 0`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	entries, _ := migrations.FS.ReadDir(".")
	for _, e := range entries {
		if !e.IsDir() {
			files++
		}
	}
	if applied != files {
		t.Fatalf("%d migrations recorded, want %d (one each)", applied, files)
	}
}

// emptyDatabase makes a database with no migration applied (not the
// migrated template tests clone) and drops it after the test.
func emptyDatabase(t *testing.T, name string) *url.URL {
	t.Helper()
	admin, err := sql.Open("postgres", pgtest.AdminURL(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck // a leftover, if any
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") //nolint:errcheck // best effort
		admin.Close()
	})
	u, _ := url.Parse(pgtest.AdminURL(t))
	u.Path = "/" + name
	return u
}

// migratedTo opens an empty database (emptyDatabase) migrated up to
// version, and the provider that moves it further.
func migratedTo(t *testing.T, name string, version int64) (*sql.DB, *goose.Provider) {
	t.Helper()
	db, err := sql.Open("postgres", emptyDatabase(t, name).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db, p
}
