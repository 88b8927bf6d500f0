package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckUploadFilesWindowsPaths: on Windows a drive-letter path, with
// either slash, and a UNC path are absolute (filepath.IsAbs), so the daemon
// looks for the file; a path rooted without a drive (/x, \x) or with a
// drive and no root (C:x) depends on the daemon's current drive or
// directory, so it is refused as relative, as Chrome could not read it as
// the caller meant.
func TestCheckUploadFilesWindowsPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := uploadCheck(t, file, filepath.ToSlash(file)); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, p := range []string{`C:\nonexistent-bua-test\y.txt`, "C:/nonexistent-bua-test/y.txt", `\\localhost\nonexistent-bua-test\f.txt`} {
		err := uploadCheck(t, p)
		if err == nil || strings.Contains(err.Message, "not an absolute path") {
			t.Errorf("%s: %v, want looked for (absolute here)", p, err)
		}
	}
	for _, p := range []string{"/tmp/a.txt", `\tmp\a.txt`, "C:a.txt", "a.txt"} {
		wantRelative(t, uploadCheck(t, p), p)
	}
}
