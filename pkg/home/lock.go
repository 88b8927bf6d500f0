package home

import (
	"errors"
	"fmt"
)

// ErrLocked means another daemon already serves this home.
var ErrLocked = fmt.Errorf("another bua daemon holds the lock")

// Locked reports whether a daemon holds the lock at path now; it takes and
// releases the lock to find out.
func Locked(path string) bool {
	f, err := Lock(path)
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	f.Close()
	return false
}
