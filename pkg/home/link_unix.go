//go:build unix

package home

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// LinkName is what a message calls the link's endpoint on this OS.
const LinkName = "socket"

// LinkCheck names `bua doctor`'s check of the link on this OS.
const LinkCheck = "socket"

// maxSocketPath keeps socket paths under the 104/108-byte sun_path limits of
// macOS and Linux, with room for the terminating NUL.
const maxSocketPath = 100

// shortPathAdvice is what a new BUA_HOME must also be on this OS.
var shortPathAdvice = fmt.Sprintf(" with a short path (the socket's path must fit in %d bytes)", maxSocketPath)

// Link is the CLI's unix socket. When the natural path would pass the
// sun_path limit (a deep $BUA_HOME), it moves to a short path under the
// temp dir named by a hash of the runtime dir, so it stays unique per home.
func (d Dirs) Link() string {
	p := filepath.Join(d.Runtime, "bua.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(d.Runtime))
	return filepath.Join(os.TempDir(), "bua-"+me.id(), fmt.Sprintf("%x.sock", sum[:6]))
}

// linkDirs are the directories on the way to the socket that bua creates
// and keeps private: the runtime dir and, for a socket moved to a short
// path (Link), that path's directory.
func (d Dirs) linkDirs() []string {
	if sd := filepath.Dir(d.Link()); sd != d.Runtime {
		return []string{d.Runtime, sd}
	}
	return []string{d.Runtime}
}

// CheckLink is what the client checks before it dials: every directory on
// the way to the socket that bua creates (linkDirs) is a real directory of
// this user's at 0700, and the socket, when it exists, is this user's. A
// missing directory or socket is fs.ErrNotExist (no daemon has made them
// yet); another user's directory or socket, or a symlink, is an
// *UnsafeError. A directory of the user's own that is too open is an
// error naming the chmod that fixes it, or with tighten is chmodded to
// 0700 as Ensure would: what a client does before it dials (`bua doctor`
// only reports). The daemon's uid is checked after the dial too
// (DialLink), since a path can change between the check and the dial.
func (d Dirs) CheckLink(tighten bool) error {
	for _, dir := range d.linkDirs() {
		if err := d.checkDir(dir, tighten); err != nil {
			return err
		}
	}
	// Only the owner: a stale file of the user's own at the path fails the
	// dial, and the daemon that starts then replaces it.
	sock := d.Link()
	fi, err := os.Lstat(sock)
	if err != nil {
		return err
	}
	if owner, _, err := inspect(sock, fi); err != nil {
		return err
	} else if !isMine(owner) {
		return d.foreign(sock, "the socket", fi, owner)
	}
	return nil
}

// ListenLink listens on the unix socket at d.Link(), created at 0600: the
// umask is set before bind so the socket never exists with wider modes, not
// even for an instant. A stale socket file from a dead daemon is removed;
// the caller must hold the daemon lock. Closing the listener leaves the
// file: by then the path may be another daemon's socket, so the caller
// removes it when it is still its own.
func ListenLink(d Dirs) (*LinkListener, error) {
	path := d.Link()
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
	return &LinkListener{Listener: ln, admit: func(_ context.Context, c net.Conn) error { return CheckPeer(c) }}, nil
}

// DialLink connects to the daemon's socket, after checking the way to it
// (CheckLink, tightening the user's own directories there as the daemon
// does) and, before handing the connection on, the daemon's uid
// (CheckServer): another user's socket gets no byte. The errors are an
// *UnsafeError for a way or a daemon that is not the user's alone,
// fs.ErrNotExist when no daemon has made the socket, and the dial's error
// when none listens on it.
func DialLink(ctx context.Context, d Dirs) (net.Conn, error) {
	if err := d.CheckLink(true); err != nil {
		return nil, err
	}
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", d.Link())
	if err != nil {
		return nil, err
	}
	if err := d.CheckServer(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// CheckPeer refuses a unix connection from another user: the directory
// modes should already prevent it, and this is the second lock on the door.
func CheckPeer(c net.Conn) error {
	id, err := connUID(c)
	if err != nil {
		return err
	}
	if !isMine(id) {
		return fmt.Errorf("peer %s is not the daemon's user, %s", id, me)
	}
	return nil
}

// CheckServer is the client's second lock after CheckLink: the process
// that answered on the socket (c, dialled at d.Link()) must run as this
// user, or the client sends it nothing. A path can change between
// CheckLink and the dial; the uid the kernel recorded when that process
// listened cannot (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS). The
// error is an *UnsafeError.
func (d Dirs) CheckServer(c net.Conn) error {
	id, err := connUID(c)
	if err != nil {
		return &UnsafeError{Path: d.Link(), Fix: "run `bua doctor`, then retry", Problem: fmt.Sprintf(
			"cannot tell which user answers on %s (%v), so bua sent nothing", d.Link(), err)}
	}
	if !isMine(id) {
		return &UnsafeError{Path: d.Link(), Fix: d.elsewhere() + "; and tell your administrator", Problem: fmt.Sprintf(
			"the process answering on %s runs as another local user, %s, not as you, %s: it could read what you send to bua and answer in the daemon's place, so bua sent it nothing",
			d.Link(), id, me)}
	}
	return nil
}

// connUID is the uid of the process at the other end of unix connection c.
func connUID(c net.Conn) (principal, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("not a unix connection")
	}
	id, err := peerUID(uc)
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	return principal(id), nil
}
