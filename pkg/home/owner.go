package home

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// Whoever owns a directory on the way to the socket can listen on the
// socket's path and read what the CLI sends, a typed secret included, and
// answer in the daemon's place. A predictable path in a shared directory
// (/tmp/bua-UID) is one that another local user can create first, so the
// client checks the way before it speaks (CheckSocket, CheckServer) and the
// daemon before it serves (Ensure).

// UnsafeError is a path bua will not trust with what the CLI sends: a
// directory or socket that another local user owns, a symlink or a file
// where bua keeps a directory, or a daemon running as someone else. The
// CLI reports it as bridge_unavailable with reason unsafe_socket (exit 4).
type UnsafeError struct {
	Path string // the directory, symlink or socket refused
	// Problem names the path, its owner, and whose doing it is ("belongs
	// to another local user, uid 1001 (alice)").
	Problem string
	// Fix is what to do: never to delete what is not the user's.
	Fix string
}

func (e *UnsafeError) Error() string { return e.Problem + ": " + e.Fix }

// uid is this process's uid: every file bua trusts is owned by it.
var uid = uint32(os.Getuid())

// ownerOf is the uid that owns the file fi describes.
func ownerOf(fi fs.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }

// whoIs names a uid for a message: "uid 1001 (alice)", or "uid 1001" when
// the system has no name for it.
func whoIs(id uint32) string {
	s := strconv.FormatUint(uint64(id), 10)
	if u, err := user.LookupId(s); err == nil && u.Username != "" {
		return "uid " + s + " (" + u.Username + ")"
	}
	return "uid " + s
}

// label is how a message names dir: by the variable the user set, or by
// its part in bua.
func (d Dirs) label(dir string) string {
	switch {
	case dir == d.Runtime && d.homeLayout():
		return "BUA_HOME"
	case dir == d.Runtime:
		return "bua's runtime directory"
	case dir == d.State:
		return "bua's state directory"
	case dir == d.Config:
		return "bua's config directory"
	}
	return "the socket's directory"
}

// homeLayout reports whether d comes from $BUA_HOME (one directory for all).
func (d Dirs) homeLayout() bool { return d.Config == d.Runtime && d.State == d.Runtime }

// elsewhere is how the user points bua at another runtime directory.
func (d Dirs) elsewhere() string {
	if d.homeLayout() {
		return fmt.Sprintf("set BUA_HOME to a new directory of yours with a short path (the socket's path must fit in %d bytes), then retry", maxSocketPath)
	}
	return "set XDG_RUNTIME_DIR to a private directory of yours (mode 0700, such as /run/user/" + strconv.FormatUint(uint64(uid), 10) + " where your system has one), or BUA_HOME to a new directory of yours, then retry"
}

// notYours is the way out of another user's path: the user cannot remove
// it, so bua must look somewhere else.
func (d Dirs) notYours() string {
	return "you cannot remove another user's files: " + d.elsewhere() + "; and tell your administrator"
}

// foreign is the refusal of path (fi), owned by another user.
func (d Dirs) foreign(path, what string, fi fs.FileInfo) *UnsafeError {
	is := "belongs"
	if fi.Mode()&fs.ModeSymlink != 0 {
		is = "is a symlink that belongs"
	}
	return &UnsafeError{Path: path, Fix: d.notYours(), Problem: fmt.Sprintf(
		"%s %s %s to another local user, %s, not to you, %s: whoever owns it could read what you send to bua and answer in the daemon's place, so bua will not use it",
		what, path, is, whoIs(ownerOf(fi)), whoIs(uid))}
}

// checkDir checks dir, one of the directories bua keeps its socket and
// lock in: a real directory (Lstat: never a symlink, which another user
// could point anywhere), owned by this user, with no group or other bits.
// A missing dir is fs.ErrNotExist, one that is another user's or a
// symlink an *UnsafeError. A dir of the user's own that is too open is a
// plain error naming the chmod that fixes it, or with tighten is chmodded
// to 0700: only the user could have opened it, and nothing another user
// put inside it is trusted (the socket's owner and the daemon's uid are
// checked).
func (d Dirs) checkDir(dir string, tighten bool) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	what := d.label(dir)
	switch {
	case ownerOf(fi) != uid:
		return d.foreign(dir, what, fi)
	case fi.Mode()&fs.ModeSymlink != 0:
		fix := d.elsewhere()
		if what == "BUA_HOME" {
			if to, err := filepath.EvalSymlinks(dir); err == nil {
				fix = "set BUA_HOME to the directory it leads to, " + to + ", then retry"
			}
		}
		return &UnsafeError{Path: dir, Fix: fix, Problem: fmt.Sprintf(
			"%s %s is a symlink, not a directory: bua keeps its socket only in a real directory of yours, which no one can point elsewhere", what, dir)}
	case !fi.IsDir():
		return &UnsafeError{Path: dir, Fix: "move it aside, then retry", Problem: fmt.Sprintf("%s %s is not a directory", what, dir)}
	case fi.Mode().Perm()&0o077 != 0:
		if tighten {
			return os.Chmod(dir, 0o700)
		}
		return fmt.Errorf("%s %s has mode %04o, open to other local users: it is yours, run `chmod 700 %s`", what, dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// socketDirs are the directories on the way to the socket that bua
// creates and keeps private: the runtime dir and, for a socket moved to a
// short path (Socket), that path's directory.
func (d Dirs) socketDirs() []string {
	if sd := filepath.Dir(d.Socket()); sd != d.Runtime {
		return []string{d.Runtime, sd}
	}
	return []string{d.Runtime}
}

// CheckSocket is what the client checks before it dials: every directory
// on the way to the socket that bua creates (socketDirs) is a real
// directory of this user's at 0700, and the socket, when it exists, is
// this user's. A missing directory or socket is fs.ErrNotExist (no daemon
// has made them yet); another user's directory or socket, or a symlink, is
// an *UnsafeError. A directory of the user's own that is too open is an
// error naming the chmod that fixes it, or with tighten is chmodded to
// 0700 as Ensure would: what a client does before it dials (`bua doctor`
// only reports). The daemon's uid is checked after the dial too
// (CheckServer), since a path can change between the check and the dial.
func (d Dirs) CheckSocket(tighten bool) error {
	for _, dir := range d.socketDirs() {
		if err := d.checkDir(dir, tighten); err != nil {
			return err
		}
	}
	// Only the owner: a stale file of the user's own at the path fails the
	// dial, and the daemon that starts then replaces it.
	sock := d.Socket()
	fi, err := os.Lstat(sock)
	if err != nil {
		return err
	}
	if ownerOf(fi) != uid {
		return d.foreign(sock, "the socket", fi)
	}
	return nil
}

// ownDir is Ensure's check of a directory bua does not keep the socket
// in (config, state under XDG): it may be a symlink of the user's (a
// dotfiles manager's), but what it leads to must be the user's own, at
// 0700.
func (d Dirs) ownDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if ownerOf(fi) != uid {
		return d.foreign(dir, d.label(dir), fi)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
