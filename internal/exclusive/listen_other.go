//go:build !windows

package exclusive

import (
	"context"
	"net"
)

// Listen is net.Listen: on Unix a listening port cannot be bound again by
// another user's process (SO_REUSEPORT requires the same effective uid).
func Listen(ctx context.Context, network, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, network, addr)
}
