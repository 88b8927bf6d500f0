// Package safewrite writes the files a run leaves behind (reports,
// evidence bundles) so that a write that fails is an error naming the path,
// and leaves no partial file: a full disk must not pass for a report.
package safewrite

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
)

// file is what File needs of the *os.File it writes.
type file interface {
	io.Writer
	Stat() (fs.FileInfo, error)
	Close() error
}

// create opens path for File: os.OpenFile, which a test swaps for a file
// whose writes fail as a full disk's do on every OS (Windows has no
// /dev/full to fill).
var create = func(path string, perm os.FileMode) (file, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// File creates (or truncates) path with perm and fills it through write.
// Every write, the flush and Close are checked; when any fails, or write
// returns an error, the file is removed (when it is a regular file) and the
// error returned. The OS's errors (*os.PathError) name the path and the
// cause, e.g. "write out/junit.xml: no space left on device".
func File(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := create(path, perm)
	if err != nil {
		return err
	}
	// Only a regular file is removed on failure: a path naming a device
	// (/dev/full, /dev/stdout, NUL) or a pipe is the caller's, not ours.
	// It is removed after Close: Windows removes no file that is open.
	fi, err := f.Stat()
	regular := err == nil && fi.Mode().IsRegular()
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && regular {
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return errors.Join(err, rerr)
		}
	}
	return err
}

// Bytes writes data to path as File does.
func Bytes(path string, perm os.FileMode, data []byte) error {
	return File(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Cause is what err says about path, for a message that names path itself:
// an *os.PathError on path gives its cause alone ("no space left on
// device"), any other error its whole text.
func Cause(path string, err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err.Error()
	}
	return err.Error()
}
