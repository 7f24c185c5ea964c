package pgcluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// debianBinGlob is where Debian and Ubuntu put each installed major version;
// those directories are not on PATH.
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// ErrNoPostgres says no PostgreSQL server binaries were found.
var ErrNoPostgres = errors.New("pgcluster: PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in " +
	debianBinGlob + ": install them, e.g. apt-get install postgresql")

// FindBinDir returns the directory holding initdb and pg_ctl: the one on PATH
// if there is one, else the highest version under /usr/lib/postgresql.
func FindBinDir() (string, error) {
	dirs, _ := filepath.Glob(debianBinGlob)
	return findBinDir(exec.LookPath, dirs, isExecutable)
}

func findBinDir(lookPath func(string) (string, error), candidates []string, isExec func(string) bool) (string, error) {
	if p, err := lookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if isExec(filepath.Join(dir, "pg_ctl")) {
			return dir, nil
		}
	}
	candidates = slices.Clone(candidates)
	// Highest major version first: "15" beats "9.6" although it sorts lower.
	slices.SortFunc(candidates, func(a, b string) int {
		return compareVersions(versionOf(b), versionOf(a))
	})
	for _, dir := range candidates {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "pg_ctl")) {
			return dir, nil
		}
	}
	return "", ErrNoPostgres
}

// versionOf extracts "15" from /usr/lib/postgresql/15/bin.
func versionOf(binDir string) string {
	return filepath.Base(filepath.Dir(binDir))
}

// compareVersions compares dotted numeric versions ("9.6" < "10" < "15.2");
// non-numeric parts sort lowest.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		x, y := -1, -1
		if i < len(as) {
			if n, err := strconv.Atoi(as[i]); err == nil {
				x = n
			}
		}
		if i < len(bs) {
			if n, err := strconv.Atoi(bs[i]); err == nil {
				y = n
			}
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
