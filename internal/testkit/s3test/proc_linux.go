package s3test

import "syscall"

// dieWithParent has the kernel kill the server when the test process
// exits, however it exits.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
