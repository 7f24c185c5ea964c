//go:build !unix

package pgcluster

import (
	"os"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd) {}

func fileOwner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
