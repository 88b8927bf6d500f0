//go:build linux

// Package faults puts bua through faults in real headless Chromium with the
// real extension. Each scenario says how its fault is caused and asserts
// what the user sees (the code, the exit status, failing fast rather than
// at the full deadline) and that every request got exactly one answer.
//
// Scenarios that only hurt a tab or a connection share the package's one
// browser (TestMain), started through harness.DevToolsChrome so a test can
// reach the browser over CDP of its own (to stop the service worker, detach
// the debugger). Scenarios that kill the daemon or delete its home take a
// BUA_HOME of their own, so the fault cannot leak into the others.
//
// The socket scenarios (TestSquat) run bua as two throwaway non-root users
// through setpriv, an attacker and a victim, so the package must run as
// root (as CI does): the test binary is the attacker's listener too. The
// replay scenarios (TestReplay_*) cut the extension's connection with
// iproute2's `ss -K`, which needs root too.
//
// The scenarios that hurt the shared browser (stop its worker, flood its
// daemon, detach its debugger) are parallel but take it in turns
// (exclusive); the ones with a home of their own run beside them, so the
// one long wait, TestIdle's 120 s, overlaps the rest.
//
// Budget: about 150-180 s on a 2-core machine: TestIdle's 120 s plus the
// browsers' start-up; the shared-browser scenarios take about 45 s in all
// (the replay ones, a cut connection and a worker restart mid-action,
// about 20 s of it), the floods of limits_test.go (which take their turn
// too) about 10 s, and TestSecondConnection about 10 s, inside that wait.
package faults

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

var (
	buaBin     string      // the binary built by TestMain
	sharedHome string      // the shared browser's BUA_HOME
	shared     harness.Cmd // runs bua against the shared browser
	sitePort   int         // the fixture server's port on 127.0.0.1
	devChrome  string      // harness.DevToolsChrome's wrapper
)

func TestMain(m *testing.M) {
	if os.Getenv(squatEnv) != "" { // this binary, run as TestSquat's attacker
		os.Exit(squat())
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	harness.RequireBrowser("faults")
	tmp := harness.TempDir("buafault")
	defer os.RemoveAll(tmp)
	buaBin = harness.BuildBua("../..", tmp)
	devChrome = harness.DevToolsChrome(tmp)
	port, stop := harness.ServeSites("../../testdata/sites")
	defer stop()
	sitePort = port

	sharedHome = filepath.Join(tmp, "shared")
	shared = harness.Cmd{Bin: buaBin, Env: append(harness.FreshEnv(sharedHome), "BUA_CHROME="+devChrome)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	r := shared.Run(ctx, "browser", "start", "--headless")
	cancel()
	if r.Code != 0 {
		harness.DumpLogs(sharedHome)
		log.Fatalf("faults: bua browser start exited %d:\n%s", r.Code, r.Output())
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shared.Run(ctx, "browser", "stop")
		shared.Run(ctx, "stop")
	}()
	code := m.Run()
	if code != 0 {
		harness.DumpLogs(sharedHome)
	}
	return code
}

// siteURL is path on the fixture server, e.g. siteURL("form.html").
func siteURL(path string) string { return fmt.Sprintf("http://127.0.0.1:%d/%s", sitePort, path) }

// sharedCDP connects to the shared browser over its test-only DevTools
// port.
func sharedCDP(t *testing.T) *harness.CDP {
	t.Helper()
	u, err := harness.DevToolsURL(harness.ManagedProfile(sharedHome))
	if err != nil {
		t.Fatal(err)
	}
	c, err := harness.DialCDP(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
