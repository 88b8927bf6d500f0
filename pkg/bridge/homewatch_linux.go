package bridge

import (
	"os"

	"golang.org/x/sys/unix"
)

// watchDirs calls poke whenever an entry of one of dirs is deleted or
// moved away, or a dir itself is, through inotify; stop ends the watch.
// Without inotify (no watches left, say) it watches nothing: the daemon's
// periodic check still runs.
func watchDirs(dirs []string, poke func()) (stop func()) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return func() {}
	}
	for _, dir := range dirs {
		if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR); err != nil {
			unix.Close(fd)
			return func() {}
		}
	}
	// Non-blocking, so the runtime's poller serves Read and Close ends it.
	f := os.NewFile(uintptr(fd), "inotify")
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			poke()
		}
	}()
	return func() { f.Close() }
}
