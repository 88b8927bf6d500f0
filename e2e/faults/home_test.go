package faults

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// TestHomeDeleted: deleting BUA_HOME under a running daemon and managed
// browser stops both within seconds, so no ghost keeps the port and the
// browser while the next command starts a second daemon for the home.
func TestHomeDeleted(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	cmd := harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(home)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if r := cmd.Run(ctx, "browser", "start", "--headless"); r.Code != 0 {
		harness.DumpLogs(home)
		t.Fatalf("browser start: exit %d\n%s", r.Code, r.Output())
	}
	st := status(t, cmd)
	if st.PID <= 0 || st.Managed.PID <= 0 {
		t.Fatalf("status --json = %+v: want the daemon's and the browser's pids", st)
	}
	t.Cleanup(func() {
		for _, pid := range []int{st.PID, st.Managed.PID} {
			if browser.Alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	start := time.Now()
	// The browser may still write into its profile while the tree goes:
	// delete until nothing is left, as a user's `rm -rf` run twice would.
	for err := os.RemoveAll(home); err != nil; err = os.RemoveAll(home) {
		if time.Since(start) > 5*time.Second {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for time.Since(start) < 10*time.Second && (browser.Alive(st.PID) || browser.Alive(st.Managed.PID)) {
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(start)
	if browser.Alive(st.PID) || browser.Alive(st.Managed.PID) {
		t.Fatalf("after deleting BUA_HOME: daemon alive %v, browser alive %v, %s later", browser.Alive(st.PID), browser.Alive(st.Managed.PID), took.Round(time.Millisecond))
	}
	if took > 5*time.Second {
		t.Fatalf("daemon and browser took %s to stop, want a few seconds", took)
	}
	t.Logf("daemon and browser gone %s after BUA_HOME was deleted", took.Round(time.Millisecond))
}
