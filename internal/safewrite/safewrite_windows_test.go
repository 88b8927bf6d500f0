package safewrite

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// errDiskFull is the OS's error for a write to a full disk: WriteFile's
// ERROR_DISK_FULL.
var errDiskFull error = windows.ERROR_DISK_FULL

// TestFile_DeviceNUL: Windows' NUL device (os.DevNull), named as the
// path of a report, is the caller's: a write to it that fails is the
// error, alone, and NUL is not removed (Windows would refuse, and that
// refusal would be joined to the error). /dev/full's test does the same
// on Linux.
func TestFile_DeviceNUL(t *testing.T) {
	// Opened as the device it is: there is nothing to create or truncate
	// (Go's O_TRUNC leaves a device alone where Windows declines to
	// truncate it, but Wine 8 answers that truncation "Invalid handle").
	fillDisk(t, os.O_WRONLY)
	err := Bytes(os.DevNull, 0o644, []byte("report"))
	want := (&os.PathError{Op: "write", Path: os.DevNull, Err: errDiskFull}).Error()
	if !errors.Is(err, errDiskFull) || err.Error() != want {
		t.Fatalf("err = %v, want %q alone", err, want)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s after the write: %v %v", os.DevNull, fi, err)
	}
}
