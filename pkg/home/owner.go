package home

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Whoever owns a directory on the way to the link can listen in the
// daemon's place and read what the CLI sends, a typed secret included, and
// answer for it. A predictable path in a shared directory (/tmp/bua-UID) is
// one that another local user can create first, so the client checks the
// way before it speaks (CheckLink, DialLink) and the daemon before it
// serves (Ensure). What "the user's own" and "private" mean is the OS's
// (owner_unix.go: uid and mode bits; owner_windows.go: owner SID and
// DACL); what is checked, and what each refusal says, is here.

// UnsafeError is a path bua will not trust with what the CLI sends: a
// directory, socket or link file that another local user owns, a symlink
// or a file where bua keeps a directory, or a daemon running as someone
// else (or, on Windows, one that cannot prove it holds the user's link
// key). The CLI reports it as bridge_unavailable with reason
// unsafe_socket (exit 4).
type UnsafeError struct {
	Path string // the directory, symlink, socket or link file refused
	// Problem names the path, its owner, and whose doing it is ("belongs
	// to another local user, uid 1001 (alice)").
	Problem string
	// Fix is what to do: never to delete what is not the user's.
	Fix string
}

func (e *UnsafeError) Error() string { return e.Problem + ": " + e.Fix }

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
		return "set BUA_HOME to a new directory of yours" + shortPathAdvice + ", then retry"
	}
	return runtimeAdvice() + ", or BUA_HOME to a new directory of yours, then retry"
}

// notYours is the way out of another user's path: the user cannot remove
// it, so bua must look somewhere else.
func (d Dirs) notYours() string {
	return "you cannot remove another user's files: " + d.elsewhere() + "; and tell your administrator"
}

// foreign is the refusal of path (fi), owned by another user, owner.
func (d Dirs) foreign(path, what string, fi fs.FileInfo, owner principal) *UnsafeError {
	is := "belongs"
	if isLink(fi) {
		is = "is a symlink that belongs"
	}
	return &UnsafeError{Path: path, Fix: d.notYours(), Problem: fmt.Sprintf(
		"%s %s %s to another local user, %s, not to you, %s: whoever owns it could read what you send to bua and answer in the daemon's place, so bua will not use it",
		what, path, is, owner, me)}
}

// isLink reports whether fi is a symlink, or on Windows a junction or
// another reparse point Go reports as irregular: either could lead
// anywhere its owner chooses.
func isLink(fi fs.FileInfo) bool { return fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 }

// checkDir checks dir, one of the directories bua keeps its link and lock
// in: a real directory (Lstat: never a symlink, which another user could
// point anywhere), owned by this user, private to the user. A missing dir
// is fs.ErrNotExist, one that is another user's or a symlink an
// *UnsafeError. A dir of the user's own that is too open is a plain error
// naming the command that fixes it, or with tighten is made private: only
// the user could have opened it, and nothing another user put inside it is
// trusted (the socket's owner and the daemon's uid, or the link key's
// proof, are checked).
func (d Dirs) checkDir(dir string, tighten bool) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	owner, open, err := inspect(dir, fi)
	if err != nil {
		return err
	}
	what := d.label(dir)
	switch {
	case !isMine(owner):
		return d.foreign(dir, what, fi, owner)
	case isLink(fi):
		fix := d.elsewhere()
		if what == "BUA_HOME" {
			if to, err := filepath.EvalSymlinks(dir); err == nil {
				fix = "set BUA_HOME to the directory it leads to, " + to + ", then retry"
			}
		}
		return &UnsafeError{Path: dir, Fix: fix, Problem: fmt.Sprintf(
			"%s %s is a symlink, not a directory: bua keeps its link to the daemon only in a real directory of yours, which no one can point elsewhere", what, dir)}
	case !fi.IsDir():
		return &UnsafeError{Path: dir, Fix: "move it aside, then retry", Problem: fmt.Sprintf("%s %s is not a directory", what, dir)}
	case open != "":
		if tighten {
			return makePrivate(dir, true)
		}
		return fmt.Errorf("%s %s %s, open to other local users: it is yours, run `%s`", what, dir, open, fixCommand(dir, true))
	}
	return nil
}

// ownDir is Ensure's check of a directory bua does not keep the link in
// (config, state under XDG): it may be a symlink of the user's (a
// dotfiles manager's), but what it leads to must be the user's own, and
// is made private.
func (d Dirs) ownDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	owner, open, err := inspect(dir, fi)
	if err != nil {
		return err
	}
	if !isMine(owner) {
		return d.foreign(dir, d.label(dir), fi, owner)
	}
	if open != "" {
		return makePrivate(dir, true)
	}
	return nil
}
