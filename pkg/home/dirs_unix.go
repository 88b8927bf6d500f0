//go:build unix

package home

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDirs is the XDG layout: config ($XDG_CONFIG_HOME/bua or
// ~/.config/bua), state ($XDG_STATE_HOME/bua or ~/.local/state/bua) and
// runtime ($XDG_RUNTIME_DIR/bua, else the state dir's run/).
//
// Without XDG_RUNTIME_DIR (a private per-user tmpfs where the system
// provides one; macOS has none) the runtime dir is under the user's own
// home, where no other user can create it first, not /tmp/bua-UID, a
// predictable name in a directory everyone may write to. /tmp/bua-UID is
// only the short path a socket moves to when the natural one would not fit
// in sun_path (Link), and is checked like the rest.
func defaultDirs(getenv func(string) string) (Dirs, error) {
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

// runtimeAdvice is how a message tells the user to point bua at another
// runtime directory of theirs.
func runtimeAdvice() string {
	return "set XDG_RUNTIME_DIR to a private directory of yours (mode 0700, such as /run/user/" + me.id() + " where your system has one)"
}
