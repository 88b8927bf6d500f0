package bridge

import (
	"os"
	"slices"
	"time"

	"github.com/bua-dev/bua/pkg/home"
)

// A daemon serves its home for as long as the home is its own. When the
// home is deleted (rm -rf of BUA_HOME or of the state dir), or another
// daemon takes it over, this one is a ghost: it kills its browser, removes
// what the browser wrote after the deletion, and exits.
//
// Chromium creates its profile's folders again as it writes (a cache
// entry, a session: mkdir -p), so a browser left running in a deleted
// home brings the home back. It is killed at once, with SIGKILL: on
// SIGTERM Chromium would flush its profile there first. On Linux inotify
// wakes the check the moment a file of the home's goes, so the browser
// rarely writes after the deletion at all; what it wrote in between (or,
// elsewhere, within HomeCheckInterval) is removed once it is dead.

// HomeCheckInterval is how often the daemon checks that its home is still
// its own, when no inotify event wakes the check sooner: one daemon per
// BUA_HOME, for as long as the home exists.
const HomeCheckInterval = time.Second

// heldFile is one file of its home the daemon holds, as it was when the
// daemon began to serve.
type heldFile struct {
	what, path string
	info       os.FileInfo
}

// heldHome is what a serving daemon holds in its home: the lock file, the
// socket, and the state and config dirs.
type heldHome []heldFile

// holdHome reads what the daemon holds, once it listens and before anyone
// is told it serves: a caller that replaces the socket at once must find
// it noticed.
func holdHome(dirs home.Dirs, lock *os.File) (heldHome, error) {
	lockInfo, err := lock.Stat()
	if err != nil {
		return nil, err
	}
	h := heldHome{{"lock file", dirs.LockFile(), lockInfo}}
	held := [][2]string{{home.LinkName, dirs.Link()}, {"home directory", dirs.State}} // BUA_HOME: one dir
	switch {
	case dirs.State == dirs.Config && dirs.State != dirs.Runtime: // Windows: %LOCALAPPDATA%\bua, its run\ apart
		held = [][2]string{{home.LinkName, dirs.Link()}, {"state directory", dirs.State}}
	case dirs.State != dirs.Runtime:
		held = [][2]string{{home.LinkName, dirs.Link()}, {"state directory", dirs.State}, {"config directory", dirs.Config}}
	}
	for _, f := range held {
		fi, err := os.Stat(f[1])
		if err != nil {
			return nil, err
		}
		h = append(h, heldFile{f[0], f[1], fi})
	}
	return h, nil
}

// info is what the daemon held at path, or nil.
func (h heldHome) info(path string) os.FileInfo {
	for _, f := range h {
		if f.path == path {
			return f.info
		}
	}
	return nil
}

// still reports whether path is still the file the daemon held there.
func (h heldHome) still(path string) bool {
	held := h.info(path)
	fi, err := os.Stat(path)
	// A file deleted and created again can get the same inode back at
	// once (tmpfs does): its modification time tells them apart. A
	// directory's changes with every file in it, so only the inode counts
	// there.
	return err == nil && held != nil && os.SameFile(fi, held) && (fi.IsDir() || fi.ModTime().Equal(held.ModTime()))
}

// lost says why the daemon no longer owns its home, or "": the lock file
// it holds was deleted or replaced (BUA_HOME removed, or another daemon
// took over), its socket was deleted or replaced (CLI commands now reach
// someone else, or start a second daemon), or its state or config dir was
// deleted (XDG_RUNTIME_DIR keeps the lock and socket elsewhere).
func (h heldHome) lost() string {
	for _, f := range h {
		if _, err := os.Stat(f.path); err != nil {
			return "the " + f.what + " is gone (" + f.path + ")"
		}
		if !h.still(f.path) {
			return "the " + f.what + " was replaced (" + f.path + ")"
		}
	}
	return ""
}

// homeLost is heldHome.lost for the serving daemon, "" before it serves.
func (d *Daemon) homeLost() string {
	if h := d.held.Load(); h != nil {
		return h.lost()
	}
	return ""
}

// lostHome is Run's check: homeLost, or the managed browser's profile
// deleted under it (rm -rf reaching the profile before the lock file).
func (d *Daemon) lostHome() string {
	if why := d.homeLost(); why != "" {
		return why
	}
	return d.managed.profileGone()
}

// watchHome ticks when the daemon should check its home: every
// HomeCheckInterval, and on Linux at once when a file in one of its dirs
// (or a dir itself) is deleted or moved away. stop ends both.
func watchHome(dirs home.Dirs) (check <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	poke := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	unwatch := watchDirs(slices.Compact([]string{dirs.Runtime, dirs.State, dirs.Config}), poke)
	tick := time.NewTicker(HomeCheckInterval)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				poke()
			case <-done:
				return
			}
		}
	}()
	return ch, func() {
		tick.Stop()
		close(done)
		unwatch()
	}
}

// clearLostHome removes what the killed browser, and this daemon's event
// log, wrote where the deleted home was: the browser's folder (profile,
// extension copy, record) and the downloads, then the state dir itself if
// that leaves it empty. It does so only when the state dir there now is a
// new one (the held one was deleted) and no other daemon has claimed the
// home (its lock file is absent, or still this daemon's): then only this
// daemon and its browser, both done writing, can have written there.
func (d *Daemon) clearLostHome(h heldHome) {
	dirs := d.cfg.Dirs
	if _, err := os.Stat(dirs.State); err != nil || h.still(dirs.State) {
		return // still gone, or never deleted
	}
	if _, err := os.Stat(dirs.LockFile()); err == nil && !h.still(dirs.LockFile()) {
		return // another daemon's home now
	}
	var removed []string
	for _, p := range []string{dirs.BrowserDir(), dirs.BrowsersDir(), dirs.Downloads(), dirs.EventLog(), dirs.EventLog() + ".1"} {
		if _, err := os.Lstat(p); err == nil && os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	if os.Remove(dirs.State) == nil { // only when empty
		removed = append(removed, dirs.State)
	}
	if len(removed) > 0 {
		d.log.Warn("removed what was written into the deleted home before the browser was killed", "paths", removed)
	}
}
