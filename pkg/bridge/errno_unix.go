//go:build unix

package bridge

import "syscall"

// The system errors the daemon tells apart, as this OS numbers them.
var (
	// addrInUseErrnos fail a listen whose address another socket holds.
	addrInUseErrnos = []syscall.Errno{syscall.EADDRINUSE}
	// temporaryAcceptErrnos may clear by themselves: the process or the
	// system is out of descriptors (EMFILE, ENFILE) or buffers, or a
	// connection went before it was accepted.
	temporaryAcceptErrnos = []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR}
)
