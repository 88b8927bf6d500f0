package home

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDirs is %LOCALAPPDATA%\bua for config and state, and its run\
// for the runtime dir: the local application data folder, which stays on
// this machine (tokens must not follow the user to another through a
// roaming profile), and is private to the user by its default access
// rules (the user, SYSTEM and Administrators), which checkDir still
// verifies. One folder, with the daemon's lock inside it, so that
// deleting any of bua's folders deletes the lock, which the daemon
// notices (pkg/bridge/homewatch.go) even while Windows keeps the files
// it cannot delete yet: the daemon's log, the browser's profile.
func defaultDirs(getenv func(string) string) (Dirs, error) {
	base := getenv("LOCALAPPDATA")
	if base == "" {
		var err error
		// %LocalAppData% through the known-folder API.
		if base, err = os.UserCacheDir(); err != nil {
			return Dirs{}, fmt.Errorf("no local application data folder (LOCALAPPDATA is unset): set BUA_HOME: %w", err)
		}
	}
	root := filepath.Join(base, "bua")
	return Dirs{Config: root, State: root, Runtime: filepath.Join(root, "run")}, nil
}

// runtimeAdvice is how a message tells the user to point bua at another
// runtime directory of theirs.
func runtimeAdvice() string {
	return "set LOCALAPPDATA to your own local application data folder (normally C:\\Users\\<you>\\AppData\\Local)"
}
