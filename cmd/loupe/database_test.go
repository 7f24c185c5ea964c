package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
)

// TestEmbeddedPGDir: the embedded cluster lives in the data directory
// unless, run as root, the postgres OS user cannot reach it; then under
// /var/lib/loupe, one per data directory.
func TestEmbeddedPGDir(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		t.Skip(err)
	}
	open, err := pgcluster.MkdirTemp("loupe-pgdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	closed := filepath.Join(open, "home")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		c       config
		want    string // "" for the fallback
		asRoot  bool   // the case only holds when we are root
		notRoot bool
	}{
		{name: "reachable", c: config{DataDir: filepath.Join(open, "my checkout", ".loupe")}, want: filepath.Join(open, "my checkout", ".loupe", "pg")},
		{name: "explicit", c: config{DataDir: closed, PGDir: filepath.Join(closed, "pg")}, want: filepath.Join(closed, "pg")},
		{name: "0700 as root", c: config{DataDir: filepath.Join(closed, "loupe", ".loupe")}, asRoot: true},
		{name: "0700 as a user", c: config{DataDir: filepath.Join(closed, "loupe", ".loupe")}, want: filepath.Join(closed, "loupe", ".loupe", "pg"), notRoot: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := os.Geteuid() == 0
			if tc.asRoot && !root || tc.notRoot && root {
				t.Skip("holds for the other kind of user")
			}
			got, err := embeddedPGDir(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if !strings.HasPrefix(got, fallbackPGRoot+"/") || filepath.Base(got) != "pg" {
					t.Fatalf("embeddedPGDir = %s, want one under %s", got, fallbackPGRoot)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("embeddedPGDir = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestClusterKey(t *testing.T) {
	a := clusterKey("/root/loupe/.loupe")
	if !strings.HasPrefix(a, "root-loupe-.loupe-") {
		t.Errorf("clusterKey = %s, want the path readable in it", a)
	}
	for _, other := range []string{"/root/loupe-/.loupe", "/root/loupe/.loupe2", "/root/lou pe/.loupe"} {
		if b := clusterKey(other); b == a || strings.ContainsAny(b, " /") {
			t.Errorf("clusterKey(%s) = %s (beside %s)", other, b, a)
		}
	}
	if long := clusterKey("/" + strings.Repeat("x", 300)); len(long) > 80 {
		t.Errorf("clusterKey of a long path is %d bytes", len(long))
	}
}
