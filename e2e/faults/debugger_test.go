//go:build linux

package faults

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// pageSession attaches cdp to the page target whose URL is url.
func pageSession(t *testing.T, cdp *harness.CDP, url string) (targetID, session string) {
	t.Helper()
	ts, err := cdp.Targets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type == "page" && tg.URL == url {
			s, err := cdp.Attach(tg.TargetID)
			if err != nil {
				t.Fatal(err)
			}
			return tg.TargetID, s
		}
	}
	t.Fatalf("no page target at %s", url)
	return "", ""
}

// cdpNavigate navigates the page of session to url over the test's own
// CDP, as a person typing into the address bar would, and waits until the
// new document has loaded.
func cdpNavigate(t *testing.T, cdp *harness.CDP, session, url string) {
	t.Helper()
	if _, err := cdp.Call(session, "Page.navigate", map[string]any{"url": url}); err != nil {
		t.Fatalf("navigate to %s: %v", url, err)
	}
	loaded := waitFor(10*time.Second, func() bool {
		res, err := cdp.Call(session, "Runtime.evaluate", map[string]any{"expression": "location.href + ' ' + document.readyState", "returnByValue": true})
		var r struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		return err == nil && json.Unmarshal(res, &r) == nil && r.Result.Value == url+" complete"
	})
	if !loaded {
		t.Fatalf("%s did not load within 10 s", url)
	}
}

// debuggerAttached reports whether any client other than the test's own
// session is attached to the target: with the test's session detached
// first, that is whether the extension's chrome.debugger still holds it.
func debuggerAttached(t *testing.T, cdp *harness.CDP, targetID string) bool {
	t.Helper()
	res, err := cdp.Call("", "Target.getTargetInfo", map[string]any{"targetId": targetID})
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		TargetInfo struct {
			Attached bool `json:"attached"`
		} `json:"targetInfo"`
	}
	if err := json.Unmarshal(res, &info); err != nil {
		t.Fatal(err)
	}
	return info.TargetInfo.Attached
}

// TestDebuggerDetached: the extension's chrome.debugger session is torn
// off a tab by navigating the tab, over the test's own CDP, to
// chrome://version: Chrome lets no extension debug chrome:// pages and
// force-detaches it (the only detach another client can cause: a session
// belongs to the client that made it, and a headless browser has no
// "cancel" bar). Mid-action, the running wait-for fails at once rather
// than at its 30 s deadline; between actions, the old uids are stale and
// the next action attaches again and works.
func TestDebuggerDetached(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	strayBefore := strays(t, sharedHome)

	t.Run("mid-action", func(t *testing.T) {
		url := siteURL("form.html?detach=mid")
		tab := openTab(t, shared, url)
		target, sess := pageSession(t, cdp, url)
		wait := start(shared, 60*time.Second, "--json", "wait-for", "--tab", tab, "#never", "--timeout", "30s")
		waitInFlight(t, shared, 1)
		t0 := time.Now()
		cdpNavigate(t, cdp, sess, "chrome://version/")
		r := <-wait
		failedIn := r.ended.Sub(t0)
		e := harness.Failure(t, r.Result)
		// Whether the wait's next CDP call or its attach again meets the
		// chrome:// page first, the caller hears one code and reason.
		if e.Error.Code != "debugger_attach_failed" || e.Error.Reason != "restricted_page" || r.Code != 1 || !strings.Contains(e.Error.Message, "chrome://") || !strings.Contains(e.Error.Hint, "http(s) page") {
			t.Errorf("wait-for: exit %d, %s (%s) %q, hint %q: want exit 1, debugger_attach_failed with reason restricted_page naming the chrome:// page", r.Code, e.Error.Code, e.Error.Reason, e.Error.Message, e.Error.Hint)
		}
		if failedIn > 5*time.Second {
			t.Errorf("wait-for failed %s after the detach: want at once, not at its 30 s deadline", failedIn.Round(time.Millisecond))
		}
		cdpNavigate(t, cdp, sess, url)
		if _, err := cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess}); err != nil {
			t.Fatal(err)
		}
		if debuggerAttached(t, cdp, target) {
			t.Fatal("the extension's debugger is still attached after chrome://version: the fault did not happen")
		}
		mustOK(t, "extract after the detach", run(t, shared, 30*time.Second, "extract", "--tab", tab))
		if !debuggerAttached(t, cdp, target) {
			t.Error("extract worked but the debugger is not attached again")
		}
		t.Logf("wait-for failed %s after the tab went to chrome://version: %s %s", failedIn.Round(time.Millisecond), e.Error.Code, e.Error.Message)
	})

	t.Run("between actions", func(t *testing.T) {
		url := siteURL("form.html?detach=between")
		tab := openTab(t, shared, url)
		mustOK(t, "extract", run(t, shared, 30*time.Second, "extract", "--tab", tab))
		target, sess := pageSession(t, cdp, url)
		cdpNavigate(t, cdp, sess, "chrome://version/")
		cdpNavigate(t, cdp, sess, url)
		if _, err := cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess}); err != nil {
			t.Fatal(err)
		}
		if debuggerAttached(t, cdp, target) {
			t.Fatal("the extension's debugger is still attached after chrome://version: the fault did not happen")
		}
		t0 := time.Now()
		r := run(t, shared, 30*time.Second, "--json", "click", "--tab", tab, "--uid", "e1")
		if e := harness.Failure(t, r); e.Error.Code != "element_stale" || r.Code != 1 {
			t.Errorf("click on a uid from before the detach: exit %d, %s %q: want exit 1, element_stale", r.Code, e.Error.Code, e.Error.Message)
		}
		mustOK(t, "extract after the detach", run(t, shared, 30*time.Second, "extract", "--tab", tab))
		t.Logf("the stale click and the next extract took %s", time.Since(t0).Round(time.Millisecond))
	})
	everyAnswered(t, shared, sharedHome, strayBefore)
}
