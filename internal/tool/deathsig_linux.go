package tool

import (
	"os/exec"
	"syscall"
)

// dieWithUs has the kernel kill cmd when this process dies (a kept program
// waits for more on its stdin and would otherwise outlive a killed node).
func dieWithUs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
