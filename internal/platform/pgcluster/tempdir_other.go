//go:build !linux

package pgcluster

// memoryTempDirFits: /dev/shm is a Linux convention.
func memoryTempDirFits() bool { return false }
