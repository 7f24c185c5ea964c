// Package pgtest gives each test its own real PostgreSQL database with the
// schema applied, fast enough to use one per test.
//
// Migrating a database takes a while; cloning one is quick. So the migrations
// run once per server into a template database, and each test gets a copy
// (CREATE DATABASE ... TEMPLATE) that is dropped when the test ends. The
// server is the one DATABASE_URL points at, which `make test` provides by
// running the tests under `loupe with-postgres`.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"
)

// DB returns the URL of a fresh database cloned from a template that has all
// migrations applied; it is dropped in t.Cleanup.
func DB(t testing.TB) string {
	t.Helper()
	admin := AdminURL(t)
	s, err := serverFor(admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := "loupe_t_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.clone(ctx, name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.drop(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return withDBName(admin, name)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}
