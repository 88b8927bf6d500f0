//go:build linux

package faults

import (
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestWorkerStopped: the extension's MV3 service worker is stopped while a
// `bua wait-for '#never'` is in flight on a tab (Target.closeTarget on the
// worker, as stopWorker explains). The daemon holds the request for the
// worker to come back (pool.go's ReconnectGrace, 5 s; docs/cancellation.md#reconnect)
// rather than fail it at once or wait out its 30 s deadline.
// The worker comes back by itself or is started (startWorker stands for
// Chrome's next event); either the restarted worker finds the request's
// started mark with no answer, or the grace passes first: both answer
// internal_error, reason outcome_unknown ("may or may not have run"),
// exit 1, and the wait never runs twice. The next action on the tab works.
func TestWorkerStopped(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	url := siteURL("form.html?worker")
	tab := openTab(t, shared, url)
	strayBefore := strays(t, sharedHome)

	wait := start(shared, 60*time.Second, "--json", "wait-for", "--tab", tab, "#never", "--timeout", "30s")
	waitInFlight(t, shared, 1)
	waitStarted(t, cdp, 1) // begun, not only sent: else it rightly runs again
	stopped := stopWorker(t, cdp)
	r := <-wait
	e := harness.Failure(t, r.Result)
	if e.Error.Code != "internal_error" || e.Error.Reason != "outcome_unknown" || r.Code != 1 {
		t.Errorf("wait-for after the worker stopped: exit %d, %s (%s) %q: want exit 1, internal_error, reason outcome_unknown", r.Code, e.Error.Code, e.Error.Reason, e.Error.Message)
	}
	failedIn := r.ended.Sub(stopped)
	if failedIn > 8*time.Second {
		t.Errorf("wait-for failed %s after the worker stopped: want within the 5 s reconnect grace, not at its 30 s deadline", failedIn.Round(time.Millisecond))
	}

	// A detached debugger's onDetach sometimes wakes the worker by itself.
	if _, ok := reconnectedAfter(t, shared, stopped, 200*time.Millisecond); !ok {
		startWorker(t, cdp, url)
	}
	back, ok := reconnectedAfter(t, shared, stopped, 10*time.Second)
	if !ok {
		t.Fatal("the extension did not reconnect within 10 s of its worker stopping")
	}
	t0 := time.Now()
	mustOK(t, "extract after the worker restarted", run(t, shared, 30*time.Second, "extract", "--tab", tab))
	t.Logf("wait-for failed %s after the worker stopped (%s); the worker reconnected %s after it stopped; the next extract took %s",
		failedIn.Round(time.Millisecond), e.Error.Message, back.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	everyAnswered(t, shared, sharedHome, strayBefore)
}
