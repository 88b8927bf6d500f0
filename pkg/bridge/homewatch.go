package bridge

import (
	"os"
	"time"

	"github.com/bua-dev/bua/pkg/home"
)

// HomeCheckInterval is how often the daemon checks that its home is still
// its own: one daemon per BUA_HOME, for as long as the home exists.
const HomeCheckInterval = time.Second

// heldFile is one file of its home the daemon holds, as it was when the
// daemon began to serve.
type heldFile struct {
	what, path string
	info       os.FileInfo
}

// heldHome is what a serving daemon holds in its home: the lock file, the
// socket, and the state and config dirs where they are not the runtime
// dir (XDG_RUNTIME_DIR apart from the state dir, where deleting the state
// dir leaves the lock and socket in place).
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
	for _, f := range []struct{ what, path string }{
		{"socket", dirs.Socket()},
		{"state directory", dirs.State},
		{"config directory", dirs.Config},
	} {
		if f.path == dirs.Runtime {
			continue // the lock file and the socket stand for it
		}
		fi, err := os.Stat(f.path)
		if err != nil {
			return nil, err
		}
		h = append(h, heldFile{f.what, f.path, fi})
	}
	return h, nil
}

// lost says why the daemon no longer owns its home, or "": the lock file
// it holds was deleted or replaced (BUA_HOME removed, or another daemon
// took over), its socket was deleted or replaced (CLI commands now reach
// someone else, or start a second daemon), or its state or config dir was
// deleted. Either way this one is a ghost: it kills its browser, before
// Chromium writes a new profile where the old home was, and exits.
func (h heldHome) lost() string {
	for _, f := range h {
		fi, err := os.Stat(f.path)
		if err != nil {
			return "the " + f.what + " is gone (" + f.path + ")"
		}
		// A file deleted and created again can get the same inode back
		// at once (tmpfs does): its modification time tells them apart.
		// A directory's changes with every file in it, so only the inode
		// counts there.
		if !os.SameFile(fi, f.info) || (!fi.IsDir() && !fi.ModTime().Equal(f.info.ModTime())) {
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
