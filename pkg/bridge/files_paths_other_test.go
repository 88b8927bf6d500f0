//go:build !windows

package bridge

import "testing"

// TestCheckUploadFilesWindowsPathsHere: the schema admits C:\…, C:/… and
// \\server\share\… on every OS, but off Windows they are relative names
// (a file called "C:\x\y.txt" in the working directory), so the daemon
// refuses them as it would any relative path; /… is absolute here and is
// looked for.
func TestCheckUploadFilesWindowsPathsHere(t *testing.T) {
	for _, p := range []string{`C:\x\y.txt`, "C:/x/y.txt", `\\srv\share\f.txt`} {
		wantRelative(t, uploadCheck(t, p), p)
	}
	if err := uploadCheck(t, "/nonexistent-bua-test/a.txt"); err == nil || err.Reason != "refused" || err.Message != "upload: no file at /nonexistent-bua-test/a.txt: check the path (files are read on the machine bua runs on)" {
		t.Errorf("/abs: %+v, want no file at it", err)
	}
}
