package pgbouncertest

import "syscall"

// dieWithParent has the kernel kill pgbouncer when the process that
// started it exits, however it exits.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
