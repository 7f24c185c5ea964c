package pgcluster

import "syscall"

const tmpfsMagic = 0x01021994

// memoryTempDirFits reports whether /dev/shm is a writable tmpfs with at
// least minMemoryTempFree bytes free.
func memoryTempDirFits() bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil {
		return false
	}
	if st.Type != tmpfsMagic || syscall.Access("/dev/shm", 2 /* W_OK */) != nil {
		return false
	}
	return uint64(st.Bavail)*uint64(st.Bsize) >= minMemoryTempFree
}
