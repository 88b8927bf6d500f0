package home

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes the exclusive, non-blocking daemon lock at path (LockFileEx
// on the file's first byte). It returns ErrLocked when another daemon
// holds it; the lock lives until the returned file is closed or the
// process exits.
//
// The file is opened with FILE_SHARE_DELETE, which os.OpenFile never
// asks for: the daemon holds it open for its whole life, and without it
// deleting the home (rm -r, Remove-Item) would fail on this file while
// the daemon runs, and "home lost" (pkg/bridge/homewatch.go) would never
// fire.
func Lock(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var ol windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol); err != nil {
		windows.CloseHandle(h)
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, ErrLocked
		}
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
