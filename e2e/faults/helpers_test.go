//go:build linux

package faults

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/home"
)

// sharedMu serializes the scenarios that hurt the shared browser (stop its
// worker, flood its daemon) while the ones with a home of their own (the
// 120 s idle) run beside them: each such test calls exclusive first.
var sharedMu sync.Mutex

// exclusive marks t parallel, so it overlaps the tests with their own
// homes, and gives it the shared browser to itself until it ends.
func exclusive(t *testing.T) {
	t.Helper()
	t.Parallel()
	sharedMu.Lock()
	t.Cleanup(sharedMu.Unlock)
}

// run runs bua with args against cmd's home within d.
func run(t *testing.T, cmd harness.Cmd, d time.Duration, args ...string) harness.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return cmd.Run(ctx, args...)
}

// timed is one CLI run, how long it took and when it ended.
type timed struct {
	harness.Result
	took  time.Duration
	ended time.Time
}

// start runs bua in the background; the channel yields its result.
func start(cmd harness.Cmd, d time.Duration, args ...string) <-chan timed {
	ch := make(chan timed, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		t0 := time.Now()
		r := cmd.Run(ctx, args...)
		ch <- timed{r, time.Since(t0), time.Now()}
	}()
	return ch
}

// mustOK fails t unless r exited 0.
func mustOK(t *testing.T, what string, r harness.Result) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("%s: exit %d\n%s", what, r.Code, r.Output())
	}
}

// daemonStatus is the part of `bua status --json` the scenarios read.
type daemonStatus struct {
	PID         int    `json:"pid"`
	Listen      string `json:"listen"`
	ExtensionID string `json:"extensionId"`
	InFlight    int    `json:"inFlight"`
	Managed     struct {
		PID int `json:"pid"`
	} `json:"managed"`
	Connections []struct {
		Kind          string    `json:"kind"`
		ClientVersion string    `json:"clientVersion"`
		ConnectedAt   time.Time `json:"connectedAt"`
	} `json:"connections"`
}

func status(t *testing.T, cmd harness.Cmd) daemonStatus {
	t.Helper()
	r := run(t, cmd, 10*time.Second, "status", "--json")
	var st daemonStatus
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.PID == 0 {
		t.Fatalf("status --json: exit %d, %v\n%s", r.Code, err, r.Output())
	}
	return st
}

// managedSince is when the managed extension's current connection began,
// or the zero time when none is connected.
func (s daemonStatus) managedSince() time.Time {
	for _, c := range s.Connections {
		if c.Kind == "managed" {
			return c.ConnectedAt
		}
	}
	return time.Time{}
}

// waitFor polls cond every 50 ms for at most d; false when it never held.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// waitInFlight waits until the daemon has n requests in flight: a fault
// aimed "mid-request" must land while the request is really out.
func waitInFlight(t *testing.T, cmd harness.Cmd, n int) {
	t.Helper()
	var got int
	if !waitFor(10*time.Second, func() bool { got = status(t, cmd).InFlight; return got == n }) {
		t.Fatalf("in flight = %d, want %d", got, n)
	}
}

// reconnectedAfter waits until the managed extension has a connection made
// after t0 and returns how long after t0 it came.
func reconnectedAfter(t *testing.T, cmd harness.Cmd, t0 time.Time, d time.Duration) (time.Duration, bool) {
	t.Helper()
	var since time.Time
	ok := waitFor(d, func() bool { since = status(t, cmd).managedSince(); return since.After(t0) })
	return since.Sub(t0), ok
}

// strays counts the daemon log's late or unknown responses: a request
// answered twice, or after the pool gave up on it (conn.go's deliver).
func strays(t *testing.T, home string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "stray or late response")
}

// everyAnswered checks that the daemon ends with nothing in flight and no
// stray response logged since before (strays' count then).
func everyAnswered(t *testing.T, cmd harness.Cmd, home string, before int) {
	t.Helper()
	waitInFlight(t, cmd, 0)
	if n := strays(t, home) - before; n != 0 {
		t.Errorf("daemon.log has %d new stray responses: a request was answered twice or after its caller left", n)
	}
}

// openTab opens url in a new tab of cmd's browser, closed when t ends.
func openTab(t *testing.T, cmd harness.Cmd, url string) string {
	t.Helper()
	r := run(t, cmd, 30*time.Second, "--json", "open", url)
	mustOK(t, "open "+url, r)
	var res struct {
		TabID int `json:"tabId"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil || res.TabID == 0 {
		t.Fatalf("open: %v\n%s", err, r.Stdout)
	}
	tab := strconv.Itoa(res.TabID)
	t.Cleanup(func() { run(t, cmd, 10*time.Second, "close", tab) })
	return tab
}

// extensionOrigin is the Origin the daemon accepts on its WebSocket.
const extensionOrigin = "chrome-extension://" + extension.ID

// managedToken reads the managed pairing's token from a home, as the
// daemon wrote it for the browser it launches.
func managedToken(t *testing.T, dir string) string {
	t.Helper()
	dirs, err := home.Resolve(func(k string) string {
		if k == "BUA_HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(dirs.ManagedTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// workerTarget is the extension's service worker in cdp's browser.
func workerTarget(t *testing.T, cdp *harness.CDP) (harness.Target, bool) {
	t.Helper()
	ts, err := cdp.Targets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type == "service_worker" && strings.HasPrefix(tg.URL, extensionOrigin+"/") {
			return tg, true
		}
	}
	return harness.Target{}, false
}

// waitStarted waits until the extension's service worker holds n started
// marks of requests without an answer in chrome.storage.session (the
// replay cache, extension/src/transport/replay-cache.js): its actions have begun.
// The daemon counts a request in flight once it has sent it, and a worker
// stopped before its begin() stored the mark never started it, which the
// restarted worker rightly runs again; a test about a request that began
// waits for this instead.
func waitStarted(t *testing.T, cdp *harness.CDP, n int) {
	t.Helper()
	sw, ok := workerTarget(t, cdp)
	if !ok {
		t.Fatal("the extension's service worker target is not running")
	}
	session, err := cdp.Attach(sw.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	defer cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": session})
	const count = `chrome.storage.session.get(null).then(all => Object.entries(all).filter(([k, v]) => k.startsWith("replay:") && v && v.state === "started").length)`
	var got int
	if !waitFor(10*time.Second, func() bool {
		res, err := cdp.Call(session, "Runtime.evaluate", map[string]any{"expression": count, "awaitPromise": true, "returnByValue": true})
		if err != nil {
			return false
		}
		var r struct {
			Result struct {
				Value int `json:"value"`
			} `json:"result"`
		}
		got = -1
		if json.Unmarshal(res, &r) == nil {
			got = r.Result.Value
		}
		return got >= n
	}) {
		t.Fatalf("the worker holds %d started marks, want %d: its actions never began", got, n)
	}
}

// stopWorker stops the extension's MV3 service worker the way Chrome does
// when it retires an idle worker: Target.closeTarget on the worker's
// target terminates it (checked in this Chromium: the target disappears
// and the worker's WebSocket closes at once). ServiceWorker.stopAllWorkers
// on the browser's session or the worker's own does not stop it.
func stopWorker(t *testing.T, cdp *harness.CDP) time.Time {
	t.Helper()
	var sw harness.Target
	if !waitFor(10*time.Second, func() bool { var ok bool; sw, ok = workerTarget(t, cdp); return ok }) {
		t.Fatal("the extension's service worker target is not running")
	}
	t0 := time.Now()
	if _, err := cdp.Call("", "Target.closeTarget", map[string]any{"targetId": sw.TargetID}); err != nil {
		t.Fatalf("stop the service worker: %v", err)
	}
	return t0
}

// startWorker starts the extension's stopped service worker, as Chrome
// does when an event it listens to arrives: ServiceWorker.startWorker
// from a page session (url names the page). Without an event a stopped
// worker sleeps until its 30 s keepalive alarm (background.js; measured
// 20-30 s here), and sometimes a detached debugger's onDetach wakes it
// sooner; the scenarios measure the restart, not the alarm.
func startWorker(t *testing.T, cdp *harness.CDP, url string) {
	t.Helper()
	ts, err := cdp.Targets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type != "page" || tg.URL != url {
			continue
		}
		sess, err := cdp.Attach(tg.TargetID)
		if err != nil {
			t.Fatal(err)
		}
		defer cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess})
		if _, err := cdp.CallAll(sess, []harness.CDPCmd{
			{Method: "ServiceWorker.enable"},
			{Method: "ServiceWorker.startWorker", Params: map[string]any{"scopeURL": extensionOrigin + "/"}},
		}); err != nil {
			t.Fatalf("start the service worker: %v", err)
		}
		return
	}
	t.Fatalf("no page at %s to start the worker from", url)
}

// ownBrowser starts a headless managed browser in a BUA_HOME of its own,
// for a scenario whose fault must not reach the shared browser, and stops
// it (and removes the home) when t ends. env is added to the bua
// environment (e.g. a BUA_CHROME). It returns the command runner and the
// home.
func ownBrowser(t *testing.T, env ...string) (harness.Cmd, string) {
	t.Helper()
	dir := harness.TempDir("buaown") // short: the socket path must fit sun_path
	home := filepath.Join(dir, "h")
	cmd := harness.Cmd{Bin: buaBin, Env: append(harness.FreshEnv(home), env...)}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd.Run(ctx, "browser", "stop")
		cmd.Run(ctx, "stop")
		os.RemoveAll(dir)
	})
	mustOK(t, "browser start", run(t, cmd, 90*time.Second, "browser", "start", "--headless"))
	return cmd, home
}
