//go:build linux

package person

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestManagedHeadfulViewport: a headful managed browser, the one a person
// without a paired Chrome sees on their desktop, shows bua's pages at
// 1280×720 (Playwright's default viewport) under a real window manager,
// whose frame and Chrome's toolbar the extension's window sizing accounts
// for (extension/src/windows/window-manager.js VIEWPORT). It runs its own daemon
// and browser beside the person's, and stops both.
func TestManagedHeadfulViewport(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	managed := harness.Cmd{Bin: buaCmd.Bin, Env: append(personEnv(home), "DISPLAY="+display)}
	run := func(args ...string) harness.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return managed.Run(ctx, args...)
	}
	t.Cleanup(func() {
		run("browser", "stop")
		run("stop")
	})
	mustOK(t, "bua browser start (headful)", run("browser", "start"))
	mustOK(t, "navigate", run("--browser", "managed", "navigate", siteURL("index.html")))
	r := run("--browser", "managed", "eval", "return innerWidth + 'x' + innerHeight + (navigator.userAgent.includes('Headless') ? ' headless' : '')")
	mustOK(t, "eval", r)
	if got := strings.TrimSpace(r.Stdout); got != "1280x720" {
		t.Errorf("a headful managed browser's page is %q, want 1280x720 (headful)", got)
	}
}
