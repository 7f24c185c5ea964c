package main

import (
	"context"
	"testing"
)

// with-postgres runs the command with DATABASE_URL set (to a throwaway
// cluster of its own when none is given) and answers its exit status as a
// shell would.
func TestWithPostgres(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  string // DATABASE_URL given
		args []string
		code int
	}{
		{name: "given", url: "postgres://given", args: []string{"--", "sh", "-c", `test "$DATABASE_URL" = postgres://given && exit 7`}, code: 7},
		{name: "own cluster", args: []string{"sh", "-c", `case "$DATABASE_URL" in postgres://loupe@127.0.0.1:*) ;; *) exit 1 ;; esac
			! command -v psql >/dev/null || psql -XtAc 'SELECT 41 + 1' "$DATABASE_URL" | grep -qx 42`}},
		{name: "killed", url: "postgres://given", args: []string{"sh", "-c", "kill -TERM $$"}, code: 128 + 15},
		{name: "not found", url: "postgres://given", args: []string{"loupe-no-such-program"}, code: 127},
		{name: "no command", url: "postgres://given", args: []string{"--"}, code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", tc.url)
			if code := cmdWithPostgres(context.Background(), tc.args); code != tc.code {
				t.Fatalf("exit status %d, want %d", code, tc.code)
			}
		})
	}
}
