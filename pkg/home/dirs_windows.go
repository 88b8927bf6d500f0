package home

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDirs is %LOCALAPPDATA%\bua with config\, state\ and run\ inside:
// the local application data folder, which stays on this machine (tokens
// must not follow the user to another through a roaming profile), and is
// private to the user by its default access rules (the user, SYSTEM and
// Administrators), which checkDir still verifies.
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
	return Dirs{
		Config:  filepath.Join(root, "config"),
		State:   filepath.Join(root, "state"),
		Runtime: filepath.Join(root, "run"),
	}, nil
}

// runtimeAdvice is how a message tells the user to point bua at another
// runtime directory of theirs.
func runtimeAdvice() string {
	return "set LOCALAPPDATA to your own local application data folder (normally C:\\Users\\<you>\\AppData\\Local)"
}
