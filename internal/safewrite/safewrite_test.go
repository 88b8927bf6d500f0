package safewrite

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("encoder failed")
	for _, tc := range []struct {
		name    string
		path    string
		write   func(io.Writer) error
		wantErr string // "" for success
		gone    bool   // the file must not exist afterwards
	}{
		{name: "written", path: filepath.Join(dir, "ok.txt"), write: func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }},
		{name: "writer error removes the file", path: filepath.Join(dir, "half.txt"), write: func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("x", 100_000)) // past bufio's buffer: some bytes reach the disk
			return boom
		}, wantErr: "encoder failed", gone: true},
		{name: "missing directory", path: filepath.Join(dir, "no", "such", "f.txt"), write: func(io.Writer) error { return nil }, wantErr: "no such file or directory", gone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := File(tc.path, 0o644, tc.write)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(tc.path); string(b) != "hello" {
					t.Fatalf("file holds %q", b)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if _, serr := os.Stat(tc.path); tc.gone && !errors.Is(serr, os.ErrNotExist) {
				t.Fatalf("%s left behind (stat: %v)", tc.path, serr)
			}
		})
	}
}

// TestFile_DeviceFull: a write the OS refuses (ENOSPC from /dev/full) is
// the error, with the path; the device itself is left alone.
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
