package home

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Dirs are bua's three directories. With $BUA_HOME set all three are that
// directory; otherwise they follow XDG: config ($XDG_CONFIG_HOME/bua or
// ~/.config/bua), state ($XDG_STATE_HOME/bua or ~/.local/state/bua) and
// runtime ($XDG_RUNTIME_DIR/bua, else the state dir's run/).
//
// The runtime dir holds the socket, and whoever owns a directory on the
// way to the socket can read what the CLI sends. Without XDG_RUNTIME_DIR
// (a private per-user tmpfs where the system provides one) it is therefore
// under the user's own home, where no other user can create it first, not
// /tmp/bua-UID, a predictable name in a directory everyone may write to.
// /tmp/bua-UID is only the short path a socket moves to when the natural
// one would not fit in sun_path (Socket), and is checked like the rest.
type Dirs struct {
	Config  string // token files
	State   string // logs, event log, managed browser profile
	Runtime string // socket, lock, daemon.json
}

// maxSocketPath keeps socket paths under the 104/108-byte sun_path limits of
// macOS and Linux, with room for the terminating NUL.
const maxSocketPath = 100

// Resolve reads $BUA_HOME and the XDG variables through getenv.
func Resolve(getenv func(string) string) (Dirs, error) {
	if h := getenv("BUA_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return Dirs{}, fmt.Errorf("BUA_HOME %q: %w", h, err)
		}
		return Dirs{Config: abs, State: abs, Runtime: abs}, nil
	}
	userHome := getenv("HOME")
	if userHome == "" {
		var err error
		if userHome, err = os.UserHomeDir(); err != nil {
			return Dirs{}, fmt.Errorf("no home directory: set BUA_HOME: %w", err)
		}
	}
	pick := func(env, fallback string) string {
		if v := getenv(env); v != "" {
			return filepath.Join(v, "bua")
		}
		return fallback
	}
	state := pick("XDG_STATE_HOME", filepath.Join(userHome, ".local", "state", "bua"))
	return Dirs{
		Config:  pick("XDG_CONFIG_HOME", filepath.Join(userHome, ".config", "bua")),
		State:   state,
		Runtime: pick("XDG_RUNTIME_DIR", filepath.Join(state, "run")),
	}, nil
}

// Ensure creates the directories at 0700 and tightens this user's own if
// they exist with wider modes, because the token and socket inside grant
// control of a logged-in browser. A directory of another user's, or a
// symlink on the way to the socket, is an *UnsafeError: the daemon does
// not serve from it (root's chmod would succeed, and leave it theirs).
func (d Dirs) Ensure() error {
	for _, dir := range []string{d.Config, d.State} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := d.ownDir(dir); err != nil {
			return err
		}
	}
	for _, dir := range d.socketDirs() {
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

// Socket is the CLI's unix socket. When the natural path would pass the
// sun_path limit (a deep $BUA_HOME), it moves to a short path under the
// temp dir named by a hash of the runtime dir, so it stays unique per home.
func (d Dirs) Socket() string {
	p := filepath.Join(d.Runtime, "bua.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(d.Runtime))
	return filepath.Join(os.TempDir(), "bua-"+strconv.Itoa(os.Getuid()), fmt.Sprintf("%x.sock", sum[:6]))
}

// WriteFile writes data at 0600, atomically (temp file and rename), so a
// reader never sees half a token.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
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

// CheckPrivate reports whether path exists, is this user's and has no
// group or other bits set (0600 files, 0700 directories). A missing file
// is fs.ErrNotExist.
func CheckPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if owner := ownerOf(fi); owner != uid {
		return fmt.Errorf("%s belongs to %s, not to you, %s, so bua cannot rely on it: ask its owner to remove it, or set BUA_HOME to a new directory of yours", path, whoIs(owner), whoIs(uid))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o: run `chmod go-rwx %s`", path, fi.Mode().Perm(), path)
	}
	return nil
}

// IsNotExist reports whether err means a file is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
