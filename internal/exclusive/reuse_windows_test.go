package exclusive

import (
	"context"
	"net"
	"syscall"

	"golang.org/x/sys/windows"
)

// reuseListen binds addr with SO_REUSEADDR, which on Windows would share
// a port whose first socket did not set SO_EXCLUSIVEADDRUSE.
func reuseListen(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			_ = windows.SetsockoptInt(windows.Handle(fd), windows.SOL_SOCKET, windows.SO_REUSEADDR, 1)
		})
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}
