//go:build !windows

package safewrite

import "syscall"

// errDiskFull is the OS's error for a write to a full disk.
var errDiskFull error = syscall.ENOSPC
