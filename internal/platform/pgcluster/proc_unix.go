//go:build unix

package pgcluster

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cancelling cmd kill everything it started, not just
// the runuser wrapper (which would leave initdb writing into a directory the
// caller is about to remove). pg_ctl detaches the server into its own session,
// so a running cluster survives this.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func fileOwner(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
