package home

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/bua-dev/bua/internal/exclusive"
	"github.com/bua-dev/bua/pkg/linkauth"
)

// On Windows the link is loopback TCP with a mutual proof of the link key
// (pkg/linkauth), not a named pipe: docs/architecture.md#the-clis-link-to-the-daemon
// says why. The daemon listens on a free port of 127.0.0.1 with
// SO_EXCLUSIVEADDRUSE, and writes the port and a fresh key into the link
// file, in the private runtime directory; the client checks that
// directory and the file (owner SID, DACL) before it reads them, and the
// daemon's proof before it sends a request.

// LinkName is what a message calls the link's endpoint on this OS.
const LinkName = "link file"

// LinkCheck names `bua doctor`'s check of the link on this OS.
const LinkCheck = "link"

// shortPathAdvice is empty on Windows: the link file's path has no limit
// a socket's would.
const shortPathAdvice = ""

// Link is the link file: the daemon's address and link key, private to
// the user.
func (d Dirs) Link() string { return filepath.Join(d.Runtime, "link.json") }

// linkDirs are the directories on the way to the link file that bua
// creates and keeps private.
func (d Dirs) linkDirs() []string { return []string{d.Runtime} }

// linkFile is what the link file holds.
type linkFile struct {
	// Addr is the daemon's loopback address, "127.0.0.1:PORT".
	Addr string `json:"addr"`
	// Key is the link key, hex: linkauth.KeySize random bytes, new with
	// each daemon.
	Key string `json:"key"`
	// PID and Created (the process's creation time, 100 ns since 1601)
	// name the daemon that wrote the file, so that a client can tell a
	// stale file (its daemon gone, its port since taken by another
	// program) from a squatter beside a live daemon.
	PID     int   `json:"pid"`
	Created int64 `json:"created"`
}

// CheckLink is what the client checks before it reads the link file: the
// runtime directory is a real directory of this user's, private to the
// user (tightened when tighten is set, as Ensure would), and the link
// file, when it exists, is this user's and private. A missing directory
// or file is fs.ErrNotExist (no daemon has made them yet); another user's
// directory or file, a symlink, or a link file others can read (its key
// could be known to them) is an *UnsafeError.
func (d Dirs) CheckLink(tighten bool) error {
	if err := d.checkDir(d.Runtime, tighten); err != nil {
		return err
	}
	path := d.Link()
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	owner, open, err := inspect(path, fi)
	switch {
	case err != nil:
		return err
	case !isMine(owner) || isLink(fi):
		return d.foreign(path, "the link file", fi, owner)
	case open != "":
		return &UnsafeError{Path: path, Problem: fmt.Sprintf(
			"the link file %s %s: whoever can read it could answer in the daemon's place, so bua will not use it", path, open),
			Fix: fmt.Sprintf("run `%s`, then end the bua daemon (Task Manager, bua.exe) so that the next one writes a new key", fixCommand(d.Runtime, true))}
	}
	return nil
}

// ListenLink listens on a free port of 127.0.0.1 that no other socket may
// share (SO_EXCLUSIVEADDRUSE), with a new link key, and writes both into
// the link file, private to the user, replacing a stale one; the caller
// must hold the daemon lock. Admit runs the daemon's side of the proof.
// Closing the listener leaves the file: the caller removes it when it is
// still its own.
func ListenLink(d Dirs) (*LinkListener, error) {
	path := d.Link()
	_ = os.Remove(path)
	key, err := linkauth.NewKey()
	if err != nil {
		return nil, err
	}
	ln, err := exclusive.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the CLI on 127.0.0.1: %w", err)
	}
	addr := ln.Addr().String()
	data, _ := json.Marshal(linkFile{Addr: addr, Key: hex.EncodeToString(key), PID: os.Getpid(), Created: created(os.Getpid())})
	if err := WriteFile(path, data); err != nil {
		ln.Close()
		return nil, err
	}
	if err := CheckPrivate(path); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, err
	}
	admit := func(ctx context.Context, c net.Conn) error { return linkauth.Server(ctx, c, key, addr) }
	return &LinkListener{Listener: ln, admit: admit}, nil
}

// DialLink connects to the daemon the link file names, after checking the
// way to it (CheckLink), and proves the link key with it (linkauth.Client)
// before handing the connection on: a listener that cannot prove the key
// gets no byte of a request. The errors are an *UnsafeError for a way or
// a listener that is not the user's alone, fs.ErrNotExist when no daemon
// has written the file or its daemon is gone, and the dial's error when
// none listens.
func DialLink(ctx context.Context, d Dirs) (net.Conn, error) {
	if err := d.CheckLink(true); err != nil {
		return nil, err
	}
	path := d.Link()
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lf linkFile
	if err := json.Unmarshal(raw, &lf); err != nil || lf.Addr == "" {
		// Half a file from a daemon that died writing it: the next daemon
		// writes a new one.
		return nil, fmt.Errorf("%w: the link file %s does not read (%v)", fs.ErrNotExist, path, err)
	}
	key, kerr := hex.DecodeString(lf.Key)
	if kerr != nil || len(key) != linkauth.KeySize {
		return nil, fmt.Errorf("%w: the link file %s holds no key", fs.ErrNotExist, path)
	}
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", lf.Addr)
	if err != nil {
		return nil, err
	}
	err = linkauth.Client(ctx, conn, key, lf.Addr)
	if err == nil {
		return conn, nil
	}
	conn.Close()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return nil, fmt.Errorf("%w (%s, its proof of the link key): %v", ErrUnresponsive, lf.Addr, err)
	}
	if !errors.Is(err, linkauth.ErrServerProof) {
		return nil, err
	}
	if lf.PID <= 0 || lf.Created == 0 || created(lf.PID) != lf.Created {
		// The daemon that wrote the file is gone, and another program has
		// its port now: no daemon, and only a nonce was sent.
		return nil, fmt.Errorf("%w: the daemon that wrote %s (pid %d) is gone", fs.ErrNotExist, path, lf.PID)
	}
	return nil, &UnsafeError{Path: path,
		Problem: fmt.Sprintf("the process answering on %s, where your bua daemon (pid %d) should listen, cannot prove it holds your link key (%v): another program, or another local user, holds the port, so bua sent it nothing", lf.Addr, lf.PID, err),
		Fix:     fmt.Sprintf("end the bua daemon (pid %d, bua.exe in Task Manager) so that the next one listens on a new port with a new key, then retry; and tell your administrator", lf.PID)}
}

// created is process pid's creation time (100 ns since 1601), 0 when it
// cannot be read: the process is gone, or not this user's to query.
func created(pid int) int64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		return 0
	}
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != 259 { // STILL_ACTIVE
		return 0
	}
	return int64(c.HighDateTime)<<32 | int64(c.LowDateTime)
}
