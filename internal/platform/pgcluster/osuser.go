package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
)

// osUser is the account the PostgreSQL tools run as when we are root.
type osUser struct {
	name     string
	uid, gid int
	gids     []int // primary and supplementary groups
}

func lookupPostgresUser() (*osUser, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgcluster: running as root, so PostgreSQL must run as the OS user \"postgres\", which is missing (apt-get install postgresql creates it): %w", err)
	}
	ou := &osUser{name: u.Username}
	if ou.uid, err = strconv.Atoi(u.Uid); err != nil {
		return nil, fmt.Errorf("pgcluster: postgres uid %q: %w", u.Uid, err)
	}
	if ou.gid, err = strconv.Atoi(u.Gid); err != nil {
		return nil, fmt.Errorf("pgcluster: postgres gid %q: %w", u.Gid, err)
	}
	ou.gids = []int{ou.gid}
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if g, err := strconv.Atoi(id); err == nil && !slices.Contains(ou.gids, g) {
				ou.gids = append(ou.gids, g)
			}
		}
	}
	return ou, nil
}

// ErrUnreachable says the OS user the server runs as cannot reach a data
// directory's place (errors.Is on what Reachable and Start return).
var ErrUnreachable = errors.New("unreachable for the server's OS user")

// Reachable reports whether a cluster can live in dir: when we are root the
// server runs as the OS user "postgres", which must be able to reach dir's
// parent (a checkout in /root or in a mode-0700 directory is out of its
// reach). Not being root, the server runs as us, so any dir will do.
func Reachable(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	u, err := lookupPostgresUser()
	if err != nil {
		return err
	}
	return u.checkTraversable(nearestExisting(filepath.Dir(abs)))
}

// nearestExisting is dir or its closest ancestor that exists: what decides
// reachability of a directory not made yet.
func nearestExisting(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// checkTraversable makes sure u can reach entries of dir, i.e. may search dir
// and every directory above it. We don't loosen permissions of directories we
// did not create (think of /root); the caller should pick another place.
func (u *osUser) checkTraversable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		uid, gid, ok := fileOwner(fi)
		if ok && !canSearch(fi.Mode(), uid, gid, u.uid, u.gids) {
			return fmt.Errorf("pgcluster: OS user %s cannot reach %s (mode %v): %w", u.name, d, fi.Mode().Perm(), ErrUnreachable)
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// canSearch applies the Unix permission check for "x" on a directory.
func canSearch(mode os.FileMode, fileUID, fileGID, uid int, gids []int) bool {
	switch {
	case fileUID == uid:
		return mode&0o100 != 0
	case slices.Contains(gids, fileGID):
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}
