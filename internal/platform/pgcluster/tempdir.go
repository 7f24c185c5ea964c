package pgcluster

import (
	"fmt"
	"os"
)

// MkdirTemp creates a directory to hold a throwaway cluster's data directory
// (and its log beside it), named pattern as for os.MkdirTemp. It is on the
// tmpfs /dev/shm when that has room, since creating files is most of what
// initdb and CREATE DATABASE do and is many times faster there than on disk
// (docs/performance.md); otherwise under /tmp rather than $TMPDIR,
// which may be private to us. It is mode 0755 so that the postgres OS user
// can reach it when we are root. Remove it with os.RemoveAll after stopping
// the cluster.
func MkdirTemp(pattern string) (string, error) {
	parent := "/tmp"
	if memoryTempDirFits() {
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	return dir, nil
}

// minMemoryTempFree is the free space /dev/shm needs for us to use it: the
// cluster is ~40MB and each test database ~8MB, but tests may write more, and
// Docker's default /dev/shm of 64MB must not be picked.
const minMemoryTempFree = 2 << 30
