package pgcluster

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"15", "15", 0},
		{"9.6", "10", -1},
		{"16", "15", 1},
		{"15.2", "15", 1},
		{"15", "15.0", -1},
		{"x", "9", -1},
	} {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestFindBinDir(t *testing.T) {
	notFound := func(string) (string, error) { return "", os.ErrNotExist }
	onPath := func(dir string) func(string) (string, error) {
		return func(name string) (string, error) { return dir + "/" + name, nil }
	}
	for _, tc := range []struct {
		name       string
		lookPath   func(string) (string, error)
		candidates []string
		execs      []string // files that exist and are executable
		want       string
		wantErr    error
	}{
		{
			name:       "PATH wins over /usr/lib/postgresql",
			lookPath:   onPath("/usr/local/bin"),
			candidates: []string{"/usr/lib/postgresql/16/bin"},
			execs:      []string{"/usr/local/bin/initdb", "/usr/local/bin/pg_ctl", "/usr/lib/postgresql/16/bin/initdb", "/usr/lib/postgresql/16/bin/pg_ctl"},
			want:       "/usr/local/bin",
		},
		{
			name:       "initdb on PATH without pg_ctl beside it is skipped",
			lookPath:   onPath("/opt/bin"),
			candidates: []string{"/usr/lib/postgresql/15/bin"},
			execs:      []string{"/opt/bin/initdb", "/usr/lib/postgresql/15/bin/initdb", "/usr/lib/postgresql/15/bin/pg_ctl"},
			want:       "/usr/lib/postgresql/15/bin",
		},
		{
			name:       "highest version, numerically",
			lookPath:   notFound,
			candidates: []string{"/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/9.6/bin"},
			execs: []string{
				"/usr/lib/postgresql/10/bin/initdb", "/usr/lib/postgresql/10/bin/pg_ctl",
				"/usr/lib/postgresql/15/bin/initdb", "/usr/lib/postgresql/15/bin/pg_ctl",
				"/usr/lib/postgresql/9.6/bin/initdb", "/usr/lib/postgresql/9.6/bin/pg_ctl",
			},
			want: "/usr/lib/postgresql/15/bin",
		},
		{
			name:       "client-only install has no initdb",
			lookPath:   notFound,
			candidates: []string{"/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"},
			execs:      []string{"/usr/lib/postgresql/16/bin/pg_ctl", "/usr/lib/postgresql/15/bin/initdb", "/usr/lib/postgresql/15/bin/pg_ctl"},
			want:       "/usr/lib/postgresql/15/bin",
		},
		{
			name:     "nothing installed",
			lookPath: notFound,
			wantErr:  ErrNoPostgres,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isExec := func(p string) bool {
				for _, e := range tc.execs {
					if e == p {
						return true
					}
				}
				return false
			}
			got, err := findBinDir(tc.lookPath, tc.candidates, isExec)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("findBinDir = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestErrNoPostgresNamesPackage(t *testing.T) {
	if !strings.Contains(ErrNoPostgres.Error(), "apt-get install postgresql") {
		t.Fatalf("error does not say what to install: %v", ErrNoPostgres)
	}
}
