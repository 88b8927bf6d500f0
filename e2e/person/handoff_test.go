//go:build linux

package person

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tabInfo is chrome.tabs' view of a tab, read from an extension page.
type tabInfo struct {
	WindowID int  `json:"windowId"`
	Active   bool `json:"active"`
}

// tabID is the page's tab id, as chrome.tabs knows it, found by its URL
// from the extension page probe.
func (p *page) tabID(probe *page) int {
	p.t.Helper()
	url := p.str(`location.href`)
	v, _ := probe.eval(`chrome.tabs.query({}).then((ts) => (ts.find((t) => t.url === ` + jsString(url) + `) || {}).id || 0)`).(float64)
	if v == 0 {
		p.t.Fatalf("no tab shows %s", url)
	}
	return int(v)
}

// tabOfExt reads tab's window and whether it is its window's active tab,
// from the extension page probe.
func tabOfExt(t *testing.T, probe *page, tab int) tabInfo {
	t.Helper()
	raw, _ := json.Marshal(probe.eval(`chrome.tabs.get(` + strconv.Itoa(tab) + `).then((t) => ({ windowId: t.windowId, active: t.active }))`))
	var ti tabInfo
	if err := json.Unmarshal(raw, &ti); err != nil || ti.WindowID == 0 {
		t.Fatalf("tab %d: %s", tab, raw)
	}
	return ti
}

// writeFlow writes a flow that opens url in the BUA window, extracts it
// under the obstacles policy given, checks it is the cleared shop and
// clicks its Buy button.
func writeFlow(t *testing.T, name, obstacles, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	flow := fmt.Sprintf(`name: %s
obstacles: %s
steps:
  - open_tab: %q
  - extract: {}
    as: page
  - assert: page.title == "Fixture shop"
    message: the flow goes on with the page the person cleared
  - click: "#buy"
`, name, obstacles, url)
	if err := os.WriteFile(path, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// newHandoff waits for a handoff_requested event on a tab not in seen and
// returns it.
func newHandoff(t *testing.T, d time.Duration, seen map[int]bool) event {
	t.Helper()
	var found event
	if !poll(d, func() bool {
		for _, e := range events(t) {
			if e.Event.Type == "handoff_requested" && !seen[e.Event.TabID] {
				found = e
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no new handoff_requested event within %s", d)
	}
	return found
}

// handoffTabs are the tabs the daemon's log has handoffs for.
func handoffTabs(t *testing.T) map[int]bool {
	seen := map[int]bool{}
	for _, e := range events(t) {
		if e.Event.Type == "handoff_requested" {
			seen[e.Event.TabID] = true
		}
	}
	return seen
}

// personClick clicks the middle of sel on the page p with the X server's
// mouse (xdotool, XTEST), as the person's hand does: the point on the
// screen is the page's window position (screenX/Y), plus Chrome's frame
// above and beside the page (outer minus inner size: tab strip, toolbar,
// the debugging bar), plus the element's place in the viewport.
func personClick(t *testing.T, p *page, sel string) {
	t.Helper()
	xy, _ := p.eval(`(() => { const r = ` + query(sel) + `.getBoundingClientRect(), z = devicePixelRatio;
		return [Math.round((screenX + (outerWidth - innerWidth) / 2 + r.x + r.width / 2) * z),
			Math.round((screenY + (outerHeight - innerHeight) + r.y + r.height / 2) * z)] })()`).([]any)
	if len(xy) != 2 {
		t.Fatalf("no screen point for %s", sel)
	}
	x, y := strconv.Itoa(int(xy[0].(float64))), strconv.Itoa(int(xy[1].(float64)))
	cmd := exec.Command("xdotool", "mousemove", "--sync", x, y, "click", "1")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool click at %s,%s: %v\n%s", x, y, err, out)
	}
}

// TestHandoff: a flow meets the fixture captcha under obstacles {high:
// handoff} (docs/obstacles.md#handing-a-page-to-a-person). bua brings the tab out of
// the minimized BUA window into the person's window and focuses it; the
// popup's "bua needs you" and the badge say so; the person clicks the
// page's button with the real mouse; the flow goes on with the cleared
// page and passes, and the tab goes back to the BUA window, which stays
// minimized. A second flow nobody helps ends blocked (exit 3) at its short
// timeout, its tab back in the BUA window too.
func TestHandoff(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	mine := newPage(t, c, siteURL("person/mine.html?handoff"), nil)
	mine.front()
	mine.waitTrue(10*time.Second, `document.hasFocus()`)
	probe := extProbe(t, c)
	captcha := siteURL("handoff/shop.html")

	t.Run("PersonClears", func(t *testing.T) {
		seen := handoffTabs(t)
		flow := writeFlow(t, "handoff-cleared", "{ high: handoff, timeout: 45s }", captcha+"?person=clears")
		ch := start(t, "run", flow)
		h := newHandoff(t, 20*time.Second, seen)
		tab := h.Event.TabID
		t.Cleanup(func() { bua(t, "close", strconv.Itoa(tab)) })
		if h.Event.ObstacleType != "captcha" || h.Event.Domain != "127.0.0.1" {
			t.Errorf("handoff_requested = %+v, want a captcha on 127.0.0.1", h.Event)
		}
		// The flow opened the tab in the BUA window; handed over, it is in
		// the person's window (the BUA window closes when its last tab
		// leaves), active, and that window has the focus.
		personWin := tabOfExt(t, probe, mine.tabID(probe)).WindowID
		var ti tabInfo
		var w windowInfo
		if !poll(5*time.Second, func() bool {
			ti = tabOfExt(t, probe, tab)
			raw, _ := json.Marshal(probe.eval(`chrome.windows.get(` + strconv.Itoa(ti.WindowID) + `).then((w) => ({ id: w.id, state: w.state, focused: w.focused }))`))
			json.Unmarshal(raw, &w)
			return ti.WindowID == personWin && ti.Active && w.Focused && w.State != "minimized"
		}) {
			t.Fatalf("handed over, tab %d is %+v in window %+v: want it the active tab of the person's window %d, focused", tab, ti, w, personWin)
		}

		// The badge follows the state within a push (PUSH_MS, coalesced).
		var badge any
		if !poll(5*time.Second, func() bool {
			badge = probe.eval(`Promise.all([chrome.action.getBadgeText({}), chrome.action.getTitle({})]).then((b) => b.join("|"))`)
			return badge == "?|bua needs you: captcha on 127.0.0.1"
		}) {
			t.Errorf("badge during the handoff = %q, want \"?|bua needs you: captcha on 127.0.0.1\"", badge)
		}
		popup := newPage(t, c, manifestPage(t, "popup"), map[string]any{"newWindow": true})
		li := `#handoffs li[data-tab-id="` + strconv.Itoa(tab) + `"] .text`
		popup.waitTrue(10*time.Second, `!document.querySelector("#needs-you").hidden && Boolean(document.querySelector('`+li+`'))`)
		if got := popup.str(`document.querySelector('` + li + `').textContent`); got != "bua needs you: captcha on 127.0.0.1" {
			t.Errorf("the popup says %q, want \"bua needs you: captcha on 127.0.0.1\"", got)
		}
		popup.png(popupW, 600)
		ph := int(popup.eval(`Math.min(600, Math.max(200, Math.ceil(16 + Math.max(...[...document.body.children].map((e) => e.getBoundingClientRect().bottom)))))`).(float64))
		savePicture(t, "handoff.png", popup.png(popupW, ph), popupW, ph)
		if _, err := c.Call("", "Target.closeTarget", map[string]any{"targetId": popup.target}); err != nil {
			t.Fatal(err)
		}

		page := &page{t: t, c: c, target: targetAt(t, c, captcha+"?person=clears")}
		sess, err := c.Attach(page.target)
		if err != nil {
			t.Fatal(err)
		}
		page.session = sess
		page.waitTrue(10*time.Second, `document.visibilityState === "visible" && document.hasFocus()`)
		clicked := time.Now()
		personClick(t, page, "#solve")
		page.waitTrue(5*time.Second, `document.title === "Fixture shop"`)
		var r ended
		select {
		case r = <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("the flow did not end within 30 s of the person's click")
		}
		if r.Code != 0 || !strings.Contains(r.Output(), "handed over (captcha): resolved") {
			t.Fatalf("flow after the person cleared the captcha: exit %d, want 0 and the step marked handed over, resolved\n%s", r.Code, r.Output())
		}
		t.Logf("the flow went on %s after the person's click", r.at.Sub(clicked).Round(time.Millisecond))
		if !poll(5*time.Second, func() bool { return countEvents(t, "handoff_resolved", tab) == 1 }) {
			t.Errorf("no handoff_resolved event for tab %d", tab)
		}
		// The window manager (openbox) applies a new window's minimized
		// state after Chrome answers windows.create: poll, on a loaded
		// machine it can take a moment.
		if !poll(5*time.Second, func() bool {
			ti, w = tabOfExt(t, probe, tab), buaWindow(t, probe)
			return ti.WindowID == w.ID && w.State == "minimized" && !w.Focused
		}) {
			t.Errorf("after the handoff tab %d is in window %d; the BUA window is %+v: want the tab back in it, minimized and unfocused", tab, ti.WindowID, w)
		}
	})

	t.Run("NobodyComes", func(t *testing.T) {
		seen := handoffTabs(t)
		flow := writeFlow(t, "handoff-timeout", "{ high: handoff, timeout: 2s }", captcha+"?person=away")
		t0 := time.Now()
		ch := start(t, "run", flow)
		h := newHandoff(t, 20*time.Second, seen)
		tab := h.Event.TabID
		t.Cleanup(func() { bua(t, "close", strconv.Itoa(tab)) })
		var r ended
		select {
		case r = <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("the flow whose handoff times out in 2 s did not end within 30 s")
		}
		if r.Code != 3 || !strings.Contains(r.Output(), "captcha") {
			t.Fatalf("flow whose handoff nobody cleared: exit %d, want 3 (blocked) naming the captcha\n%s", r.Code, r.Output())
		}
		if !poll(5*time.Second, func() bool {
			for _, e := range events(t) {
				if e.Event.Type == "handoff_resolved" && e.Event.TabID == tab {
					return e.Event.Outcome == "abandoned"
				}
			}
			return false
		}) {
			t.Errorf("no handoff_resolved with outcome abandoned for tab %d", tab)
		}
		if ti := tabOfExt(t, probe, tab); ti.WindowID != buaWindow(t, probe).ID {
			t.Errorf("after the timeout tab %d is in window %d, want back in the BUA window", tab, ti.WindowID)
		}
		t.Logf("the unattended flow ended blocked %s after it started", r.at.Sub(t0).Round(time.Millisecond))
	})
}
