package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestWorkerStopped: the extension's MV3 service worker is stopped while a
// `bua wait-for '#never'` is in flight on a tab (Target.closeTarget on the
// worker, as stopWorker explains). Per docs/extension.md#state-ownership the
// request is rejected on the daemon's side with internal_error ("extension
// disconnected before answering"), at once rather than at its 30 s
// deadline, and exits 1. Chrome then starts the worker on its next event
// (startWorker stands for it), the worker reconnects by itself, and the
// next action on the tab works.
func TestWorkerStopped(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	url := siteURL("form.html?worker")
	tab := openTab(t, shared, url)
	strayBefore := strays(t, sharedHome)
	connectedBefore := status(t, shared).managedSince()

	wait := start(shared, 60*time.Second, "--json", "wait-for", "--tab", tab, "#never", "--timeout", "30s")
	waitInFlight(t, shared, 1)
	stopped := stopWorker(t, cdp)
	r := <-wait
	e := harness.Failure(t, r.Result)
	if e.Error.Code != "internal_error" || r.Code != 1 || !strings.Contains(e.Error.Message, "disconnected") {
		t.Errorf("wait-for after the worker stopped: exit %d, %s %q: want exit 1, internal_error saying the extension disconnected", r.Code, e.Error.Code, e.Error.Message)
	}
	failedIn := r.ended.Sub(stopped)
	if failedIn > 5*time.Second {
		t.Errorf("wait-for failed %s after the worker stopped: want at once, not at its 30 s deadline", failedIn.Round(time.Millisecond))
	}

	restarted := time.Now()
	startWorker(t, cdp, url)
	back, ok := reconnectedAfter(t, shared, restarted, 10*time.Second)
	if !ok {
		t.Fatalf("the extension did not reconnect within 10 s of its worker starting again (connected at %s before)", connectedBefore)
	}
	t0 := time.Now()
	mustOK(t, "extract after the worker restarted", run(t, shared, 30*time.Second, "extract", "--tab", tab))
	t.Logf("wait-for failed %s after the worker stopped; the worker reconnected %s after it started again; the next extract took %s",
		failedIn.Round(time.Millisecond), back.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	everyAnswered(t, shared, sharedHome, strayBefore)
}
