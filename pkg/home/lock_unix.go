//go:build unix

package home

import (
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes the exclusive, non-blocking daemon lock at path (flock(2)).
// It returns ErrLocked when another daemon holds it; the lock lives until
// the returned file is closed or the process exits.
func Lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}
