//go:build !linux

package s3test

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; Main
// stops the server elsewhere.
func dieWithParent() *syscall.SysProcAttr { return nil }
