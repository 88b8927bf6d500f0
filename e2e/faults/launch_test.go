//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// deadAtLaunch is how soon a browser that exits at launch must fail the
// command: within 10 s, saying why (/bin/false well under 1 s).
const deadAtLaunch = 10 * time.Second

// TestBrowserDeadAtLaunch: a managed browser that exits as it starts fails
// `bua browser start` and an action that launches it at once, exit 4,
// with its exit status and the last lines of its own log, instead of
// "did not connect within 30s"; headful Chromium with no display says so,
// and suggests --headless or Xvfb. Each case has a home of its own.
func TestBrowserDeadAtLaunch(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "chrome")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'fake chrome: cannot start, profile is on fire' >&2\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		chrome string // BUA_CHROME; "" finds Chromium
		args   []string
		want   []string
	}{
		{"/bin/false, browser start", "/bin/false", []string{"browser", "start", "--headless"},
			[]string{"exited at launch (exit status 1)", "log", "BUA_CHROME"}},
		{"/bin/false, an action", "/bin/false", []string{"open", "about:blank"},
			[]string{"exited at launch (exit status 1)"}},
		{"a script that says why and exits 3", script, []string{"browser", "start", "--headless"},
			[]string{"exit status 3", "fake chrome: cannot start, profile is on fire"}},
		{"headful Chromium, no display", "", []string{"browser", "start"},
			[]string{"needs a display", "Missing X server or $DISPLAY", "--headless", "xvfb-run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := harness.TempDir("buadead") // short: the socket path must fit sun_path
			home := filepath.Join(dir, "h")
			// No display for any case: only the headful one needs it gone,
			// and a headless launch never looks.
			var env []string
			for _, kv := range harness.FreshEnv(home) {
				if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") && !strings.HasPrefix(kv, "BUA_CHROME=") {
					env = append(env, kv)
				}
			}
			if tc.chrome != "" {
				env = append(env, "BUA_CHROME="+tc.chrome)
			}
			cmd := harness.Cmd{Bin: buaBin, Env: env}
			t.Cleanup(func() {
				run(t, cmd, 30*time.Second, "stop")
				os.RemoveAll(dir)
			})
			t0 := time.Now()
			r := run(t, cmd, 60*time.Second, tc.args...)
			took := time.Since(t0)
			out := r.Output()
			if r.Code != 4 || !strings.Contains(out, "bridge_unavailable") {
				t.Fatalf("exit %d after %s\n%s\nwant 4, bridge_unavailable", r.Code, took, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "did not connect within") {
				t.Errorf("the error still blames the connect timeout:\n%s", out)
			}
			if took > deadAtLaunch {
				t.Errorf("failed after %s, want within %s", took, deadAtLaunch)
			}
			if left := homeProcs(harness.ManagedProfile(home)); len(left) > 0 {
				t.Errorf("browser processes %v left on the profile", left)
			}
			t.Logf("%s: failed in %s", tc.name, took.Round(time.Millisecond))
		})
	}
}
