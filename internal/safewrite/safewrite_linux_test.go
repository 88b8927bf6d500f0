package safewrite

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestFile_DeviceFull: a write the OS refuses (ENOSPC from /dev/full) is
// the error, with the path; the device itself is left alone. /dev/full is
// Linux's (macOS and Windows have none): TestFile_DiskFull fails writes on
// every OS, and TestFile_DeviceNUL leaves Windows' NUL alone.
func TestFile_DeviceFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Fatalf("this test needs /dev/full: %v", err)
	}
	err := Bytes("/dev/full", 0o644, []byte("report"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "/dev/full") {
		t.Fatalf("err = %v, want ENOSPC naming /dev/full", err)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/full after the write: %v %v", fi, err)
	}
}
