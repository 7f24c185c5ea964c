//go:build !linux

package tool

import "os/exec"

// Only Linux kills a child when its parent dies: elsewhere a kept program
// ends when it finds its stdin closed.
func dieWithUs(*exec.Cmd) {}
