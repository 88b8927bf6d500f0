//go:build unix

package bridge

import "syscall"

// The errors an accept fails with, as this OS numbers them: out of
// descriptors (the process's, the system's), a connection gone before it
// was accepted, and one that is no lack of anything.
const (
	errnoEMFILE       = syscall.EMFILE
	errnoENFILE       = syscall.ENFILE
	errnoECONNABORTED = syscall.ECONNABORTED
	errnoEINVAL       = syscall.EINVAL
)
