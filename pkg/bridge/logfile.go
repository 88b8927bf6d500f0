package bridge

import (
	"io"
	"os"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/bua-dev/bua/pkg/home"
)

// The daemon's log (home.Dirs.LogFile, daemon.log) rotates at a size cap
// (docs/decisions/daemon-limits.md), so no peer and no long run can fill a disk with it: past
// LogMaxMiB it is renamed daemon-<UTC time>.log beside it and a fresh
// daemon.log begins; the LogBackups newest rotated files are kept. So the
// log takes at most (LogBackups+1) × LogMaxMiB = 20 MiB. Every file is
// 0600, in the state directory (0700).
const (
	LogMaxMiB  = 5
	LogBackups = 3
)

// OpenLog opens the daemon's log at path for appending, rotating as above.
// Its files are private to the user (home.MakePrivate): an existing log
// that is more open is tightened first, since rotated files keep the
// mode of the file they were.
func OpenLog(path string) (io.WriteCloser, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := home.MakePrivate(path); err != nil {
		return nil, err
	}
	return &lumberjack.Logger{Filename: path, MaxSize: LogMaxMiB, MaxBackups: LogBackups}, nil
}
