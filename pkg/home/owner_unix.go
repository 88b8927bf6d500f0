//go:build unix

package home

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// principal is a local user as the file system records owners: a uid.
type principal uint32

// me is this process's uid: every file bua trusts is owned by it.
var me = principal(os.Getuid())

// isMine reports whether p is this process's user.
func isMine(p principal) bool { return p == me }

// id is p as a number, for messages.
func (p principal) id() string { return strconv.FormatUint(uint64(p), 10) }

// String names p for a message: "uid 1001 (alice)", or "uid 1001" when
// the system has no name for it.
func (p principal) String() string {
	s := p.id()
	if u, err := user.LookupId(s); err == nil && u.Username != "" {
		return "uid " + s + " (" + u.Username + ")"
	}
	return "uid " + s
}

// inspect reads who owns path (fi, from Stat or Lstat) and, when it is
// open to other users, how: "has mode 0755" ("" when private, that is no
// group or other bits).
func inspect(path string, fi fs.FileInfo) (owner principal, open string, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, "", fmt.Errorf("%s: the system gives no owner", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && fi.Mode()&fs.ModeSymlink == 0 {
		open = fmt.Sprintf("has mode %04o", perm)
	}
	return principal(st.Uid), open, nil
}

// makePrivate takes group and other bits off path, a file or directory of
// the user's own.
func makePrivate(path string, dir bool) error {
	mode := fs.FileMode(0o600)
	if dir {
		mode = 0o700
	}
	return os.Chmod(path, mode)
}

// fixCommand is the command that makes path private by hand.
func fixCommand(path string, dir bool) string {
	if dir {
		return "chmod 700 " + path
	}
	return "chmod go-rwx " + path
}

// PrivateFiles says what private means for bua's files on this OS, for
// `bua doctor`.
const PrivateFiles = "0700 directories, 0600 files"

// PrivateFix is the command that makes path, a file of the user's own
// (dir: a directory), private to the user.
func PrivateFix(path string, dir bool) string { return fixCommand(path, dir) }
