package bridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

// TestLogFileRotates: OpenLog's writer rotates daemon.log past LogMaxMiB
// into a file beside it, private to the user (0600 on Unix), and the live
// file starts again, private too.
func TestLogFileRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openUp(t, path) // as 0644 is on Unix
	w, err := bridge.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := home.CheckPrivate(path); err != nil {
		t.Errorf("daemon.log before anything is written: %v", err)
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
			if err := home.CheckPrivate(filepath.Join(dir, e.Name())); err != nil {
				t.Errorf("rotated: %v", err)
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
	if fi.Size() >= bridge.LogMaxMiB<<20 || fi.Size() == 0 {
		t.Errorf("live daemon.log: %d bytes: want under %d MiB, not empty", fi.Size(), bridge.LogMaxMiB)
	}
	if err := home.CheckPrivate(path); err != nil {
		t.Errorf("live daemon.log: %v", err)
	}
}
