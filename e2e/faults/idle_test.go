//go:build linux

package faults

import (
	"testing"
	"time"
)

// idleFor is how long TestIdle leaves its browser alone: four times the
// 30 s after which Chrome may stop an idle MV3 service worker.
const idleFor = 120 * time.Second

// TestIdle: a browser left alone for 120 s, then `bua extract` works the
// first time, fast. Chrome may stop an MV3 worker idle for 30 s; the
// extension's heartbeat (an event every 20 s, docs/extension.md §ws-client
// rules) keeps its WebSocket, and so the worker, alive, so the connection
// made before the wait is still the one that serves. The idleness must be
// real, so the test has a browser (and home) of its own, and it is
// parallel: the package's one long wait overlaps the other scenarios.
func TestIdle(t *testing.T) {
	t.Parallel()
	cmd, _ := ownBrowser(t)
	mustOK(t, "open", run(t, cmd, 30*time.Second, "open", siteURL("form.html")))
	mustOK(t, "extract before the wait", run(t, cmd, 30*time.Second, "extract"))
	connected := status(t, cmd).managedSince()

	time.Sleep(idleFor)

	t0 := time.Now()
	r := run(t, cmd, 60*time.Second, "extract")
	took := time.Since(t0)
	mustOK(t, "extract after 120 s idle", r)
	if took > 5*time.Second {
		t.Errorf("extract after %s idle took %s: want it fast, as before the wait", idleFor, took.Round(time.Millisecond))
	}
	if now := status(t, cmd).managedSince(); !now.Equal(connected) {
		t.Errorf("the extension's connection changed during the idle wait (%s -> %s): the worker was stopped despite the heartbeat", connected, now)
	}
	t.Logf("extract after %s idle took %s, on the connection made before the wait", idleFor, took.Round(time.Millisecond))
}
