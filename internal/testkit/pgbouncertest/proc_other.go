//go:build !linux

package pgbouncertest

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; Stop
// stops pgbouncer elsewhere.
func dieWithParent() *syscall.SysProcAttr { return nil }
