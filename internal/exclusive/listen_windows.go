package exclusive

import (
	"context"
	"net"
	"syscall"

	"golang.org/x/sys/windows"
)

// soExclusiveAddrUse is SO_EXCLUSIVEADDRUSE, ((int)(~SO_REUSEADDR)) in
// winsock2.h, which golang.org/x/sys/windows does not define.
const soExclusiveAddrUse = ^windows.SO_REUSEADDR

// Listen is net.Listen with SO_EXCLUSIVEADDRUSE set before bind, so that
// no other socket, of any user, can bind the same address while this one
// is open (Go's net package sets no SO_REUSEADDR on Windows, which would
// conflict with it).
func Listen(ctx context.Context, network, addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = windows.SetsockoptInt(windows.Handle(fd), windows.SOL_SOCKET, soExclusiveAddrUse, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	return lc.Listen(ctx, network, addr)
}
