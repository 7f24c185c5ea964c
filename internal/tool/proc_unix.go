//go:build unix

package tool

import (
	"os/exec"
	"syscall"
)

// ownGroup puts cmd in a process group of its own, which cancelling kills:
// what the program started goes with it (runuser's initdb, a shell's
// children), where killing the program alone would leave them running.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// lower sets pid's priority to Niceness.
func lower(pid int) {
	syscall.Setpriority(syscall.PRIO_PROCESS, pid, Niceness) //nolint:errcheck // best effort
}
