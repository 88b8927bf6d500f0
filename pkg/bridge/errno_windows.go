package bridge

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// The system errors the daemon tells apart, as Winsock numbers them: Go's
// syscall.EADDRINUSE and friends are invented numbers on Windows that no
// Winsock call returns, so errors.Is against them never matches there.
var (
	// addrInUseErrnos fail a listen whose address another socket holds
	// (WSAEADDRINUSE), or holds exclusively or has reserved for Hyper-V
	// and WSL (WSAEACCES, `netsh int ipv4 show excludedportrange
	// protocol=tcp` lists those ranges): either way another port is the
	// way out.
	addrInUseErrnos = []syscall.Errno{windows.WSAEADDRINUSE, windows.WSAEACCES}
	// temporaryAcceptErrnos may clear by themselves: out of sockets
	// (WSAEMFILE) or buffers (WSAENOBUFS), or a connection that went
	// before it was accepted (WSAECONNABORTED, WSAECONNRESET,
	// ERROR_NETNAME_DELETED), or an interrupted call.
	temporaryAcceptErrnos = []syscall.Errno{windows.WSAEMFILE, windows.WSAENOBUFS, windows.WSAECONNABORTED, windows.WSAECONNRESET, windows.ERROR_NETNAME_DELETED, windows.WSAEINTR}
)
