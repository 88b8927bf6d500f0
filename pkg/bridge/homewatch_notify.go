package bridge

import (
	"github.com/fsnotify/fsnotify"
)

// watchDirs calls poke whenever an entry of one of dirs is deleted or
// renamed away, or a dir itself is, through fsnotify (inotify on Linux,
// kqueue on macOS, ReadDirectoryChangesW on Windows); stop ends the watch.
// Without a watch (no inotify watches left, say) it watches nothing: the
// daemon's periodic check still runs (HomeCheckInterval).
//
// On Windows a file that is deleted while a process holds it open with
// FILE_SHARE_DELETE (the daemon's lock: pkg/home/lock_windows.go) is only
// pending deletion until that handle closes, but its directory entry is
// reported removed at once, and a pending file no longer opens, so
// heldHome.lost sees it gone.
func watchDirs(dirs []string, poke func()) (stop func()) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return func() {}
	}
	for _, dir := range dirs {
		if err := w.Add(dir); err != nil {
			w.Close()
			return func() {}
		}
	}
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					poke()
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// An overflow or a watched dir gone: look now.
				poke()
			}
		}
	}()
	return func() { w.Close() }
}
