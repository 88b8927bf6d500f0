package home

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dirs are bua's three directories. With $BUA_HOME set all three are that
// directory; otherwise each OS has its own layout (dirs_unix.go,
// dirs_windows.go): XDG on Linux and macOS, %LOCALAPPDATA%\bua on
// Windows (local, never the roaming profile: tokens must not roam).
//
// The runtime dir holds the CLI's link to the daemon (Link), and whoever
// owns a directory on the way to it could read what the CLI sends, so it
// is always a directory only the user can create: never a predictable
// name in a directory everyone may write to.
type Dirs struct {
	Config  string // token files
	State   string // logs, event log, managed browser profile
	Runtime string // the link (unix socket, or the link file), lock, daemon.json
}

// Resolve reads $BUA_HOME and the OS's own variables (XDG_* and HOME on
// Unix, LOCALAPPDATA on Windows) through getenv.
func Resolve(getenv func(string) string) (Dirs, error) {
	if h := getenv("BUA_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return Dirs{}, fmt.Errorf("BUA_HOME %q: %w", h, err)
		}
		return Dirs{Config: abs, State: abs, Runtime: abs}, nil
	}
	return defaultDirs(getenv)
}

// Ensure creates the directories private to the user (0700 on Unix; on
// Windows a protected DACL for the user, SYSTEM and Administrators) and
// tightens this user's own if they exist more open, because the token and
// the link inside grant control of a logged-in browser. A directory of
// another user's, or a symlink on the way to the link, is an
// *UnsafeError: the daemon does not serve from it (root's chmod would
// succeed, and leave it theirs).
func (d Dirs) Ensure() error {
	for _, dir := range []string{d.Config, d.State} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := d.ownDir(dir); err != nil {
			return err
		}
	}
	for _, dir := range d.linkDirs() {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := d.checkDir(dir, true); err != nil {
			return err
		}
	}
	return nil
}

// TokenFile holds the user pairing's 256-bit token, hex, at 0600.
func (d Dirs) TokenFile() string { return filepath.Join(d.Config, "token") }

// ManagedTokenFile holds the managed browser pairing's token, hex, at 0600.
func (d Dirs) ManagedTokenFile() string { return filepath.Join(d.Config, "managed-token") }

// MCPTokenFile holds `bua mcp --port`'s bearer token, 256 bits in hex,
// at 0600: every HTTP request of an MCP client must carry it.
func (d Dirs) MCPTokenFile() string { return filepath.Join(d.Config, "mcp-token") }

// PairingsDir holds the tokens of the user pairings that have a name of
// their own (`bua pair --name work`), one file per name, at 0600.
func (d Dirs) PairingsDir() string { return filepath.Join(d.Config, "pairings") }

// LockFile guarantees one daemon per Dirs.
func (d Dirs) LockFile() string { return filepath.Join(d.Runtime, "daemon.lock") }

// InfoFile is the running daemon's {pid, listen, url, version}, at 0600.
func (d Dirs) InfoFile() string { return filepath.Join(d.Runtime, "daemon.json") }

// LogFile is the daemon's log.
func (d Dirs) LogFile() string { return filepath.Join(d.State, "daemon.log") }

// EventLog is the JSON-lines event log.
func (d Dirs) EventLog() string { return filepath.Join(d.State, "events.jsonl") }

// BrowserDir holds the managed browser's profile and extension copy.
func (d Dirs) BrowserDir() string { return filepath.Join(d.State, "browser") }

// BrowsersDir holds the folders of the managed browsers beyond the first
// (managed-1, managed-2, …), each with its own profile, extension copy and
// record, laid out as BrowserDir is.
func (d Dirs) BrowsersDir() string { return filepath.Join(d.State, "browsers") }

// Downloads is where the managed browser saves downloads (protocol
// result.download reports each file's path there).
func (d Dirs) Downloads() string { return filepath.Join(d.State, "downloads") }

// BrowserRecord is the running managed browser's record (pid, process
// start time, profile), at 0600: written by the daemon that launched it,
// read by the next daemon or `bua browser stop` when that daemon died.
func (d Dirs) BrowserRecord() string { return filepath.Join(d.BrowserDir(), "browser.json") }

// WriteFile writes data to a file private to the user (0600; on Windows
// a protected DACL, whatever the folder's access rules would give it),
// atomically (temp file and rename), so a reader never sees half a token
// and no other user can read a recorded flow's values.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := makePrivate(tmp.Name(), false); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckPrivate reports whether path exists, is this user's and is
// private to the user: no group or other bits on Unix (0600 files, 0700
// directories), no access rule for anyone but the user, SYSTEM and
// Administrators on Windows. A missing file is fs.ErrNotExist; a file
// that is not private is an error naming the command that fixes it.
func CheckPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	owner, open, err := inspect(path, fi)
	if err != nil {
		return err
	}
	if !isMine(owner) {
		return fmt.Errorf("%s belongs to %s, not to you, %s, so bua cannot rely on it: ask its owner to remove it, or set BUA_HOME to a new directory of yours", path, owner, me)
	}
	if open != "" {
		return fmt.Errorf("%s %s: run `%s`", path, open, fixCommand(path, fi.IsDir()))
	}
	return nil
}

// IsNotExist reports whether err means a file is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// MakePrivate makes path, a file or directory of the user's own, private
// to the user: 0600 (0700 for a directory) on Unix, a protected DACL for
// the user, SYSTEM and Administrators on Windows. A file that already
// exists keeps what it grants otherwise (a rotated log keeps the mode of
// the file it was), so a writer that may find one open calls this first.
func MakePrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return makePrivate(path, fi.IsDir())
}
