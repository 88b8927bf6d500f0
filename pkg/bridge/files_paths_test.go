package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// uploadCheck is checkUploadFiles' answer for an upload of files.
func uploadCheck(t *testing.T, files ...string) *protocol.Error {
	t.Helper()
	raw, err := json.Marshal(protocol.Upload(protocol.Target{Selector: "input"}, files))
	if err != nil {
		t.Fatal(err)
	}
	return checkUploadFiles(raw)
}

// wantRelative fails t unless err refuses path as not absolute on this
// OS: invalid_action, reason refused, naming the path, whose fault it is
// and what to send instead.
func wantRelative(t *testing.T, err *protocol.Error, path string) {
	t.Helper()
	if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused {
		t.Fatalf("%s: %+v, want invalid_action reason refused", path, err)
	}
	for _, want := range []string{path + " is not an absolute path on this machine (" + runtime.GOOS + ")", "the request is at fault", "send the file's absolute path"} {
		if !strings.Contains(err.Message, want) {
			t.Errorf("message %q does not say %q", err.Message, want)
		}
	}
}

// TestCheckUploadFilesRelative: a relative path is refused on every OS,
// before the daemon looks for it (it would be read against the daemon's
// working directory, not the caller's); the absolute path of an existing
// file, as filepath.Join writes it here, passes. The OS-specific cases are
// in files_paths_windows_test.go and files_paths_other_test.go.
func TestCheckUploadFilesRelative(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sub", "a.txt")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := uploadCheck(t, file); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, rel := range []string{"a.txt", filepath.Join("sub", "a.txt"), "./a.txt"} {
		wantRelative(t, uploadCheck(t, file, rel), rel)
	}
}
