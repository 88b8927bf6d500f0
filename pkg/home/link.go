package home

import (
	"context"
	"errors"
	"net"
)

// The CLI's link to the daemon is private on every OS, by the same rule:
// before the first byte of a request, the client has proved that the
// listener is the user's own daemon, and the daemon that the client is
// the user (docs/architecture.md#the-clis-link-to-the-daemon). On Unix it
// is a unix socket in a private directory, and the kernel tells each end
// the other's uid (link_unix.go). On Windows it is loopback TCP, and each
// end proves that it holds the link key, which only the user can read
// (link_windows.go, pkg/linkauth).

// LinkListener is the daemon's end of the link (ListenLink). Accept
// returns connections as they come; Admit must pass on each before the
// daemon reads a request from it.
type LinkListener struct {
	net.Listener
	admit func(ctx context.Context, c net.Conn) error
}

// Admit checks that the client on c is this user: on Unix its uid, on
// Windows its proof of the link key (which may wait up to ctx's deadline
// for the client). A refused connection must be closed unread.
func (l *LinkListener) Admit(ctx context.Context, c net.Conn) error { return l.admit(ctx, c) }

// ErrUnresponsive means the listener took the connection but did not open
// the link (on Windows, prove the link key) by the caller's deadline: the
// daemon is suspended or stuck. DialLink's error wraps it; nothing of a
// request was sent.
var ErrUnresponsive = errors.New("the daemon accepted the connection but did not answer")
