//go:build linux

package faults

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// TestNoDevToolsPort: the managed browser, launched with the plain
// Chromium bua finds (not the test wrapper), opens no DevTools endpoint:
// no DevToolsActivePort in its profile and no listening TCP socket in its
// whole process group. An open port would let any local user drive it
// over CDP, past the pairing token and the socket's uid check.
func TestNoDevToolsPort(t *testing.T) {
	// The detector is not blind: the shared browser, started through
	// harness.DevToolsChrome, does listen.
	sharedPID := managedPID(t, shared)
	if ports := listeningTCP(browser.GroupMembers(sharedPID)); len(ports) == 0 {
		t.Fatalf("no listening socket found for the shared browser %d, which has a DevTools port: the check cannot see one", sharedPID)
	}

	exe, err := browser.Find(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "h")
	cmd := harness.Cmd{Bin: buaBin, Env: append(harness.FreshEnv(home), "BUA_CHROME="+exe)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	t.Cleanup(func() {
		cmd.Run(context.Background(), "stop")
	})
	if r := cmd.Run(ctx, "browser", "start", "--headless"); r.Code != 0 {
		harness.DumpLogs(home)
		t.Fatalf("browser start: exit %d\n%s", r.Code, r.Output())
	}
	pid := managedPID(t, cmd)
	// The extension connected (browser start waited for it), so the
	// browser is past start-up: a port would be open by now.
	profile := harness.ManagedProfile(home)
	if _, err := os.Stat(filepath.Join(profile, "DevToolsActivePort")); !os.IsNotExist(err) {
		t.Errorf("DevToolsActivePort in %s (%v): the managed browser opened a DevTools port", profile, err)
	}
	members := browser.GroupMembers(pid)
	if len(members) < 2 {
		t.Fatalf("browser group %d has %v: want the browser and its helpers", pid, members)
	}
	if ports := listeningTCP(members); len(ports) > 0 {
		t.Errorf("the managed browser's processes %v listen on TCP ports %v", members, ports)
	}
	t.Logf("browser group %d: %d processes, no listening TCP socket, no DevToolsActivePort", pid, len(members))
}

// managedPID is the managed browser's pid from `bua status --json`.
func managedPID(t *testing.T, cmd harness.Cmd) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := cmd.Run(ctx, "status", "--json")
	var st struct {
		Managed struct {
			PID int `json:"pid"`
		} `json:"managed"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.Managed.PID <= 0 {
		t.Fatalf("status --json = %s (%v): want the managed browser's pid", r.Stdout, err)
	}
	return st.Managed.PID
}
