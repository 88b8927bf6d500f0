package safewrite

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("encoder failed")
	missing := filepath.Join(dir, "no", "such", "f.txt")
	// What the OS says when asked to create a file in a folder that is not
	// there, naming the path: "open …/f.txt: no such file or directory",
	// "open …\f.txt: The system cannot find the path specified."
	_, notThere := os.OpenFile(missing, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if !errors.Is(notThere, fs.ErrNotExist) {
		t.Fatalf("creating %s: %v, want the OS's not-found error", missing, notThere)
	}
	for _, tc := range []struct {
		name    string
		path    string
		write   func(io.Writer) error
		wantIs  error  // nil for success; else what the error is (errors.Is)
		wantErr string // and its whole text
		gone    bool   // the file must not exist afterwards
	}{
		{name: "written", path: filepath.Join(dir, "ok.txt"), write: func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }},
		{name: "writer error removes the file", path: filepath.Join(dir, "half.txt"), write: func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("x", 100_000)) // past bufio's buffer: some bytes reach the disk
			return boom
		}, wantIs: boom, wantErr: boom.Error(), gone: true},
		{name: "missing directory", path: missing, write: func(io.Writer) error { return nil }, wantIs: fs.ErrNotExist, wantErr: notThere.Error(), gone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := File(tc.path, 0o644, tc.write)
			if tc.wantIs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(tc.path); string(b) != "hello" {
					t.Fatalf("file holds %q", b)
				}
				return
			}
			if !errors.Is(err, tc.wantIs) || err.Error() != tc.wantErr {
				t.Fatalf("err = %v, want %q (%v)", err, tc.wantErr, tc.wantIs)
			}
			if _, serr := os.Stat(tc.path); tc.gone && !errors.Is(serr, os.ErrNotExist) {
				t.Fatalf("%s left behind (stat: %v)", tc.path, serr)
			}
		})
	}
}

// diskFull is a file whose writes fail as a full disk's do: half of what
// each is given reaches the disk, then the OS's error for a full disk
// (errDiskFull: ENOSPC, or ERROR_DISK_FULL on Windows) comes back as
// *os.File's errors do, naming the path.
type diskFull struct{ *os.File }

func (f diskFull) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: errDiskFull}
}

// fillDisk makes File's files diskFull for the rest of t, each opened
// with flag (File's own is os.O_WRONLY|os.O_CREATE|os.O_TRUNC).
func fillDisk(t *testing.T, flag int) {
	old := create
	create = func(path string, perm os.FileMode) (file, error) {
		f, err := os.OpenFile(path, flag, perm)
		if err != nil {
			return nil, err
		}
		return diskFull{f}, nil
	}
	t.Cleanup(func() { create = old })
}

// TestFile_DiskFull: a write the OS refuses as a full disk's, on every OS
// (TestFile_DeviceFull fills Linux's /dev/full, which Windows and macOS
// lack), is the error, naming the path and the OS's cause; the part that
// was written is removed, after the file is closed, as Windows needs, and
// nothing else is joined to the error.
func TestFile_DiskFull(t *testing.T) {
	fillDisk(t, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	path := filepath.Join(t.TempDir(), "junit.xml")
	err := Bytes(path, 0o644, []byte(strings.Repeat("report ", 1000)))
	want := (&os.PathError{Op: "write", Path: path, Err: errDiskFull}).Error()
	if !errors.Is(err, errDiskFull) || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if got := Cause(path, err); got != errDiskFull.Error() {
		t.Errorf("Cause = %q, want the OS's %q", got, errDiskFull.Error())
	}
	if _, serr := os.Stat(path); !errors.Is(serr, fs.ErrNotExist) {
		t.Fatalf("the partial %s was left behind (stat: %v)", path, serr)
	}
}
