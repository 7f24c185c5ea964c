//go:build !unix

package tool

import "os/exec"

// Elsewhere a program has no group of its own nor a lowered priority:
// cancelling kills the program alone.

func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func lower(int) {}
