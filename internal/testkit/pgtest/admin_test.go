package pgtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestWithDBName(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://loupe@127.0.0.1:5432/postgres?sslmode=disable", "postgres://loupe@127.0.0.1:5432/x?sslmode=disable"},
		{"postgresql://u:p%40ss@h/db", "postgresql://u:p%40ss@h/x"},
		{"postgres://u@h:1", "postgres://u@h:1/x"},
		{"host=h user=u dbname=postgres", "host=h user=u dbname=postgres dbname='x'"},
	} {
		if got := withDBName(tc.dsn, "x"); got != tc.want {
			t.Errorf("withDBName(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}

// fatalTB records Fatal instead of failing the real test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func TestAdminURLUnset(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		AdminURL(f)
	}()
	<-done
	if !strings.Contains(f.msg, "run `make test`") {
		t.Fatalf("AdminURL without DATABASE_URL: Fatal(%q), want a hint to run make test", f.msg)
	}
}
