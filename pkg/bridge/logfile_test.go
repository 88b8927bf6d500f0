package bridge_test

import (
	"os"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
)

// TestLogFileRotates: OpenLog's writer rotates daemon.log past LogMaxMiB
// into a 0600 file beside it, and the live file starts again.
func TestLogFileRotates(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/daemon.log"
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := bridge.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("daemon.log mode %v, want 0600 before anything is written", fi.Mode().Perm())
	}
	line := []byte(strings.Repeat("l", 1023) + "\n")
	for range (bridge.LogMaxMiB<<20)/len(line) + 10 {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var rotated []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "daemon-") && strings.HasSuffix(e.Name(), ".log") {
			rotated = append(rotated, e.Name())
			fi, _ := e.Info()
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
			}
		}
	}
	if len(rotated) != 1 {
		t.Fatalf("rotated files %v, want one", rotated)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= bridge.LogMaxMiB<<20 || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("live daemon.log: %d bytes, mode %v: want under %d MiB, not empty, 0600", fi.Size(), fi.Mode().Perm(), bridge.LogMaxMiB)
	}
}
