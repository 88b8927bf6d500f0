//go:build linux

package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/extension"
)

// TestUpgradeRefreshesExtension: Chromium starts the extension's service
// worker it stored in the profile, even when the unpacked extension's
// files and version changed, so a new bua would drive its managed browser
// with the old build's extension. The fault is caused by writing an older
// version into the extension folder an earlier start wrote (as an older
// bua would have left it): the next start must forget the stored workers
// and run this build, which says so in its hello; a start of the same
// build keeps them.
func TestUpgradeRefreshesExtension(t *testing.T) {
	t.Parallel()
	cmd, home := ownBrowser(t)
	profile := harness.ManagedProfile(home)
	stored := filepath.Join(profile, "Default", "Service Worker")
	manifest := filepath.Join(home, "browser", "extension", "manifest.json")
	restart := func(olderBuild bool) (markerKept bool) {
		t.Helper()
		mustOK(t, "browser stop", run(t, cmd, 30*time.Second, "browser", "stop"))
		marker := filepath.Join(stored, "bua-test-marker")
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatalf("the browser stored no service worker at %s: %v", stored, err)
		}
		if olderBuild {
			raw, err := os.ReadFile(manifest)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			m["version"] = "0.0.0.1"
			raw, _ = json.Marshal(m)
			if err := os.WriteFile(manifest, raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		mustOK(t, "browser start", run(t, cmd, 90*time.Second, "browser", "start", "--headless"))
		st := status(t, cmd)
		if len(st.Connections) != 1 || st.Connections[0].ClientVersion != extension.Version() {
			t.Fatalf("after the restart the extension says %+v, want this build's %s", st.Connections, extension.Version())
		}
		_, err := os.Stat(marker)
		return err == nil
	}
	if restart(true) {
		t.Error("a start after an older build kept the profile's stored service workers")
	}
	if !restart(false) {
		t.Error("a start of the same build forgot the profile's stored service workers")
	}
}
