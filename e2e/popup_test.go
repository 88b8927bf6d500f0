package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/extension"
)

// extPage opens one of the extension's own pages (path under the
// extension's root) in a tab of the managed browser, over Chromium's
// DevTools socket, and returns an evaluator for expressions in it (awaited,
// by value). The tab closes when the test ends.
func extPage(t *testing.T, path string) func(expr string) any {
	t.Helper()
	return browserPage(t, "chrome-extension://"+extension.ID+"/"+path).eval
}

// waitFor polls expr in a page until it is true, or fails after 10 s. An
// expression that throws (the page's DOM not built yet) counts as false.
func waitFor(t *testing.T, eval func(string) any, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for eval("(() => { try { return "+expr+" } catch { return false } })()") != true {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s never held", what, expr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPopup_Stop drives the real popup page the way a person does, in the
// managed browser with the real extension: the page lists a live session
// with its action count and the badge counts it; Stop on it ends the
// wait-for in flight at once with internal_error, reason user_stopped; the
// next action on that tab is session_not_found (docs/cancellation.md#cancellation);
// Stop all ends the rest; the options page's history shows both ends.
func TestPopup_Stop(t *testing.T) {
	closeAllTabs(t)
	tab := openTab(t, "form.html")
	evaluate(t, tab, "return 1")
	popup := extPage(t, "src/ui/popup/popup.html")
	row := fmt.Sprintf(`document.querySelector('#sessions li[data-tab-id="%d"]')`, tab)
	waitFor(t, popup, "the popup lists the session", row+` !== null`)
	waitFor(t, popup, "the popup shows the connection", `document.getElementById("state").dataset.state === "connected"`)
	if got := popup(row + `.textContent`); !strings.Contains(fmt.Sprint(got), "127.0.0.1") || !strings.Contains(fmt.Sprint(got), "action") {
		t.Errorf("session row = %q, want its domain and action count", got)
	}
	if got := popup(`document.getElementById("empty").hidden`); got != true {
		t.Error("#empty shows while a session is live")
	}
	if badge := popup(`chrome.action.getBadgeText({})`); badge == "" || badge == "…" || badge == "!" {
		t.Errorf("badge = %q while connected with a live session, want the count", badge)
	}

	// A wait-for in flight on the tab, then the person presses Stop.
	type answer struct {
		r   harness.Result
		end time.Time
	}
	done := make(chan answer, 1)
	go func() {
		raw, _ := json.Marshal(map[string]any{"type": "wait_for", "tabId": tab, "selector": "#never", "timeoutMs": 30000})
		r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(t.Context(), "request", string(raw))
		done <- answer{r, time.Now()}
	}()
	time.Sleep(700 * time.Millisecond) // the request reaches the extension
	t0 := time.Now()
	popup(row + `.querySelector("button.stop").click()`)
	a := <-done
	var body struct{ Error errorBody }
	json.Unmarshal([]byte(a.r.Stdout), &body)
	if body.Error.Code != "internal_error" || body.Error.Reason != "user_stopped" || !strings.Contains(body.Error.Message, "the person stopped") {
		t.Errorf("wait-for after Stop: exit %d %+v (stderr %s), want internal_error with reason user_stopped", a.r.Code, body.Error, a.r.Stderr)
	}
	if took := a.end.Sub(t0); took > 5*time.Second {
		t.Errorf("the wait-for ended %s after Stop: want at once, not at its 30 s timeout", took.Round(time.Millisecond))
	}
	t.Logf("the wait-for in flight ended %s after Stop: %s (%s)", a.end.Sub(t0).Round(time.Millisecond), body.Error.Code, body.Error.Reason)
	waitFor(t, popup, "the stopped session leaves the popup", row+` === null`)
	e := wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "return 1"}, "session_not_found")
	wantContains(t, "message", e.Message, "user_stopped")

	// Stop all ends every other session.
	other := openTab(t, "")
	evaluate(t, other, "return 1")
	waitFor(t, popup, "the popup lists the second session", fmt.Sprintf(`document.querySelector('#sessions li[data-tab-id="%d"]') !== null`, other))
	popup(`document.getElementById("stop-all").click()`)
	waitFor(t, popup, "Stop all empties the popup", `document.querySelectorAll("#sessions li").length === 0 && !document.getElementById("empty").hidden`)
	wantContains(t, "status", fmt.Sprint(popup(`document.getElementById("msg").textContent`)), "stopped 1 session")
	wantError(t, map[string]any{"type": "evaluate", "tabId": other, "expression": "return 1"}, "session_not_found")
	if badge := popup(`chrome.action.getBadgeText({})`); badge != "" {
		t.Errorf("badge = %q with no live session, want empty", badge)
	}

	// The audit log on the options page has both ends, and filters.
	options := extPage(t, "src/ui/options/options.html")
	for _, c := range []struct {
		tab    int
		reason string
	}{{tab, "user_stopped"}, {other, "global_stop"}} {
		waitFor(t, options, "history row", fmt.Sprintf(`[...document.querySelectorAll("#history tbody tr")].some((tr) => tr.dataset.reason === %q && tr.cells[1].textContent === "%d")`, c.reason, c.tab))
	}
	options(`(() => { const f = document.getElementById("history-filter"); f.value = "Stop all"; f.dispatchEvent(new Event("input")); })()`)
	if got := options(`[...document.querySelectorAll("#history tbody tr")].every((tr) => tr.dataset.reason === "global_stop")`); got != true {
		t.Error(`filtering the history by "Stop all" left other rows`)
	}
}

// TestOptions_Blocklist adds the live session's domain to the blocklist
// on the real options page: the session ends (domain_blocked), the next
// action is refused with domain_blocked, a bad entry is refused on the
// page, and Remove lets bua back in.
func TestOptions_Blocklist(t *testing.T) {
	host := "popup-block.localhost"
	tab := openTabWith(t, map[string]any{"type": "open_tab", "url": hostURL(host, "form.html")}).TabID
	evaluate(t, tab, "return 1")
	options := extPage(t, "src/ui/options/options.html")
	waitFor(t, options, "the options page loads", `document.getElementById("state").dataset.state === "connected"`)

	add := func(domain string) {
		options(fmt.Sprintf(`(() => { document.getElementById("block-domain").value = %q; document.getElementById("block-add").click(); })()`, domain))
	}
	add("not a domain!")
	waitFor(t, options, "a bad entry is refused", `document.getElementById("msg").textContent.includes("is not a domain")`)

	add("https://" + host + "/x")
	item := fmt.Sprintf(`document.querySelector('#blocklist li[data-domain="%s"]')`, host)
	waitFor(t, options, "the entry is listed", item+` !== null`)
	t.Cleanup(func() { options(item + `?.querySelector("button.remove").click()`) })
	// The page says so once the extension has ended the session, after
	// the list shows the entry.
	waitFor(t, options, "the status says the session ended", `document.getElementById("msg").textContent.includes("ended 1 session")`)
	wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "return 1"}, "domain_blocked")
	waitFor(t, options, "history row", fmt.Sprintf(`document.querySelector('#history tbody tr[data-domain="%s"][data-reason="domain_blocked"]') !== null`, host))

	options(item + `.querySelector("button.remove").click()`)
	waitFor(t, options, "the entry is removed", item+` === null`)
	if got := evaluate(t, tab, "return 2"); got != float64(2) {
		t.Errorf("after Remove, evaluate = %v, want 2", got)
	}
}
