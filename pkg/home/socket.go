package home

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// ListenSocket listens on the unix socket at path, created at 0600: the
// umask is set before bind so the socket never exists with wider modes, not
// even for an instant. A stale socket file from a dead daemon is removed;
// the caller must hold the daemon lock. Closing the listener leaves the
// file: by then the path may be another daemon's socket, so the caller
// removes it when it is still its own.
func ListenSocket(path string) (net.Listener, error) {
	_ = os.Remove(path)
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// CheckPeer refuses a unix connection from another user: the directory
// modes should already prevent it, and this is the second lock on the door.
func CheckPeer(c net.Conn) error {
	id, err := connUID(c)
	if err != nil {
		return err
	}
	if id != uid {
		return fmt.Errorf("peer uid %d is not the daemon's uid %d", id, uid)
	}
	return nil
}

// CheckServer is the client's second lock after CheckSocket: the process
// that answered on the socket (c, dialled at d.Socket()) must run as this
// user, or the client sends it nothing. A path can change between
// CheckSocket and the dial; the uid the kernel recorded when that process
// listened cannot (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS). The
// error is an *UnsafeError.
func (d Dirs) CheckServer(c net.Conn) error {
	id, err := connUID(c)
	if err != nil {
		return &UnsafeError{Path: d.Socket(), Fix: "run `bua doctor`, then retry", Problem: fmt.Sprintf(
			"cannot tell which user answers on %s (%v), so bua sent nothing", d.Socket(), err)}
	}
	if id != uid {
		return &UnsafeError{Path: d.Socket(), Fix: d.elsewhere() + "; and tell your administrator", Problem: fmt.Sprintf(
			"the process answering on %s runs as another local user, %s, not as you, %s: it could read what you send to bua and answer in the daemon's place, so bua sent it nothing",
			d.Socket(), whoIs(id), whoIs(uid))}
	}
	return nil
}

// connUID is the uid of the process at the other end of unix connection c.
func connUID(c net.Conn) (uint32, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("not a unix connection")
	}
	id, err := peerUID(uc)
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	return id, nil
}

// Lock takes the exclusive, non-blocking daemon lock at path. It returns
// ErrLocked when another daemon holds it; the lock lives until the returned
// file is closed or the process exits.
func Lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// ErrLocked means another daemon already serves this home.
var ErrLocked = fmt.Errorf("another bua daemon holds the lock")

// Locked reports whether a daemon holds the lock at path now; it takes and
// releases the lock to find out.
func Locked(path string) bool {
	f, err := Lock(path)
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	f.Close()
	return false
}
