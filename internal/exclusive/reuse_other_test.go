//go:build !windows

package exclusive

import (
	"context"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// reuseListen binds addr with SO_REUSEADDR, as a squatter would try.
func reuseListen(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1) })
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}
