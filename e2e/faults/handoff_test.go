//go:build linux

package faults

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/home"
)

// pressStopAll presses the popup's Stop all the way the popup does: it
// sends the worker its runtime message from an extension page (the options
// page, opened over the test's DevTools socket). The one place that knows
// the message's shape.
func pressStopAll(t *testing.T, cdp *harness.CDP) {
	t.Helper()
	evalInExtensionPage(t, cdp, `chrome.runtime.sendMessage({kind: "bua_bridge_request", op: "stop_all", args: {}})`)
}

// evalInExtensionPage opens the extension's options page, evaluates expr
// there (awaiting its promise) and closes the page.
func evalInExtensionPage(t *testing.T, cdp *harness.CDP, expr string) {
	t.Helper()
	res, err := cdp.Call("", "Target.createTarget", map[string]any{"url": extensionOrigin + "/src/ui/options/options.html"})
	if err != nil {
		t.Fatalf("open the options page: %v", err)
	}
	var tg struct {
		TargetID string `json:"targetId"`
	}
	_ = json.Unmarshal(res, &tg)
	defer cdp.Call("", "Target.closeTarget", map[string]any{"targetId": tg.TargetID})
	// A new target answers at about:blank until its page commits, where
	// chrome.runtime is undefined: wait for the extension page first.
	sess, err := cdp.Attach(tg.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	defer cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess})
	loaded := func() bool {
		out, err := cdp.Call(sess, "Runtime.evaluate", map[string]any{"expression": `location.protocol === "chrome-extension:" && typeof chrome.runtime?.sendMessage === "function"`, "returnByValue": true})
		return err == nil && strings.Contains(string(out), `"value":true`)
	}
	if !waitFor(10*time.Second, loaded) {
		t.Fatal("the options page did not load within 10 s")
	}
	evalOnTarget(t, cdp, tg.TargetID, expr)
}

// evalOnTarget evaluates expr in a target's page, awaiting its promise.
func evalOnTarget(t *testing.T, cdp *harness.CDP, targetID, expr string) {
	t.Helper()
	sess, err := cdp.Attach(targetID)
	if err != nil {
		t.Fatal(err)
	}
	defer cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess})
	out, err := cdp.Call(sess, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil || strings.Contains(string(out), `"exceptionDetails"`) {
		t.Fatalf("evaluate %s: %v %s", expr, err, out)
	}
}

// TestStopAll: the popup's Stop all reaches the daemon as global_stop, and
// a request in flight (a 30 s wait_for) is answered at once with
// internal_error reason global_stop and the CLI's hint that the person
// stopped it.
func TestStopAll(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	tab := openTab(t, shared, siteURL("blank.html"))
	ch := start(shared, 40*time.Second, "--json", "wait-for", "#never", "--timeout", "30s", "--tab", tab)
	waitInFlight(t, shared, 1)
	pressed := time.Now()
	pressStopAll(t, cdp)
	r := <-ch
	after := r.ended.Sub(pressed)
	e := harness.Failure(t, r.Result)
	if r.Code != 1 || e.Error.Code != "internal_error" || e.Error.Reason != "global_stop" {
		t.Fatalf("exit %d %+v, want exit 1, internal_error reason global_stop", r.Code, e.Error)
	}
	if !strings.Contains(e.Error.Message, "stopped by the user") || !strings.Contains(e.Error.Hint, "pressed Stop all") {
		t.Fatalf("message %q / hint %q, want the person's stop named", e.Error.Message, e.Error.Hint)
	}
	if after > 5*time.Second {
		t.Fatalf("answered %s after Stop all, want at once (the wait had 30 s)", after)
	}
	t.Logf("Stop all answered the in-flight wait_for %s after the press", after.Round(time.Millisecond))
	if n := status(t, shared).InFlight; n != 0 {
		t.Fatalf("in flight = %d after Stop all, want 0", n)
	}
}

// handoffEvents reads the handoff events of tab from a home's event log.
func handoffEvents(t *testing.T, bua string, tab string) []map[string]any {
	t.Helper()
	dirs, err := home.Resolve(func(k string) string {
		if k == "BUA_HOME" {
			return bua
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dirs.EventLog())
	var out []map[string]any
	for _, line := range strings.Split(string(data), "\n") {
		var rec struct {
			Event map[string]any `json:"event"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		typ, _ := rec.Event["type"].(string)
		id, _ := rec.Event["tabId"].(float64)
		if strings.HasPrefix(typ, "handoff_") && strconv.Itoa(int(id)) == tab {
			out = append(out, rec.Event)
		}
	}
	return out
}

// TestHandoff: on the fixture captcha, a headless managed browser acts as
// stop (nobody can see it) with the reason; with BUA_HANDOFF=force (tests
// and demos only) the tab is handed over, a click on the page as a person
// would make it clears the captcha, the wait ends resolved and the page
// comes back cleared; a person who never comes ends it blocked at the short
// timeout, and the tab is handed back abandoned.
func TestHandoff(t *testing.T) {
	exclusive(t)
	forced := shared
	forced.Env = append(slices.Clone(shared.Env), "BUA_HANDOFF=force")
	captcha := siteURL("handoff/shop.html")

	t.Run("HeadlessActsAsStop", func(t *testing.T) {
		tab := openTab(t, shared, captcha)
		t0 := time.Now()
		r := run(t, shared, 30*time.Second, "extract", "--handoff", "--tab", tab)
		if r.Code != 3 || !strings.Contains(r.Stderr, "blocked: captcha (high)") || !strings.Contains(r.Stderr, "runs headless, so nobody can see it") {
			t.Fatalf("exit %d, want 3 and the headless reason:\n%s", r.Code, r.Output())
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Fatalf("took %s, want at once", d)
		}
		if ev := handoffEvents(t, sharedHome, tab); len(ev) != 0 {
			t.Fatalf("handoff events %v, want none: nothing was handed over", ev)
		}
	})

	t.Run("TimeoutAbandons", func(t *testing.T) {
		tab := openTab(t, shared, captcha)
		t0 := time.Now()
		r := run(t, forced, 30*time.Second, "extract", "--handoff", "--handoff-timeout", "2s", "--tab", tab)
		took := time.Since(t0)
		if r.Code != 3 || !strings.Contains(r.Stderr, "nobody cleared it within 2s") {
			t.Fatalf("exit %d, want 3 and the timeout named:\n%s", r.Code, r.Output())
		}
		if took < 2*time.Second || took > 10*time.Second {
			t.Fatalf("took %s, want a little over the 2s timeout", took)
		}
		var ev []map[string]any
		waitFor(5*time.Second, func() bool { ev = handoffEvents(t, sharedHome, tab); return len(ev) == 2 })
		if len(ev) != 2 || ev[0]["type"] != "handoff_requested" || ev[0]["obstacleType"] != "captcha" || ev[1]["outcome"] != "abandoned" {
			t.Fatalf("events %v, want requested (captcha) then resolved with outcome abandoned", ev)
		}
	})

	t.Run("PersonClears", func(t *testing.T) {
		cdp := sharedCDP(t)
		tab := openTab(t, shared, captcha)
		ch := start(forced, 60*time.Second, "--json", "wait-for-human", "--timeout", "45s", "--tab", tab)
		if !waitFor(15*time.Second, func() bool { return len(handoffEvents(t, sharedHome, tab)) == 1 }) {
			t.Fatal("no handoff_requested event within 15s")
		}
		// The person clicks "I am human" on the page.
		var page string
		ts, err := cdp.Targets()
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range ts {
			if tg.Type == "page" && tg.URL == captcha {
				page = tg.TargetID
			}
		}
		if page == "" {
			t.Fatalf("no page target at %s", captcha)
		}
		clicked := time.Now()
		evalOnTarget(t, cdp, page, `document.getElementById("solve").click()`)
		r := <-ch
		var out struct {
			TabID    int    `json:"tabId"`
			Outcome  string `json:"outcome"`
			Obstacle string `json:"obstacle"`
			WaitedMs int64  `json:"waitedMs"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || out.Outcome != "resolved" || out.Obstacle != "captcha" {
			t.Fatalf("exit %d, want 0 and outcome resolved:\n%s", r.Code, r.Output())
		}
		noticed := r.ended.Sub(clicked)
		if noticed > 5*time.Second {
			t.Fatalf("the wait ended %s after the click, want within the 2 s poll", noticed)
		}
		ev := handoffEvents(t, sharedHome, tab)
		if len(ev) != 2 || ev[1]["type"] != "handoff_resolved" || ev[1]["outcome"] != "resolved" {
			t.Fatalf("events %v, want requested then resolved", ev)
		}
		t.Logf("handed over for %d ms; the wait noticed the click %s later", out.WaitedMs, noticed.Round(time.Millisecond))
		// The page the person cleared is the one bua reads now.
		ex := run(t, shared, 30*time.Second, "extract", "--format", "markdown", "--tab", tab)
		if ex.Code != 0 || !strings.Contains(ex.Stdout, "Fixture shop") {
			t.Fatalf("extract after the handoff: exit %d\n%s", ex.Code, ex.Output())
		}
	})
}
