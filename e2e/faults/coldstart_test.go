//go:build linux

package faults

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestColdStart_BuaWindowReady: a fresh headless managed browser starts
// with no window of its own; its extension opens the (unminimized) BUA window
// at start-up, before any agent asks, and the first open_tab is handed
// that window's blank tab rather than opening another. With its last tab
// closed the browser keeps running, and the next open_tab opens the BUA
// window again (docs/cold-start.md#what-a-cold-start-overlaps).
func TestColdStart_BuaWindowReady(t *testing.T) {
	cmd, home := ownBrowser(t, "BUA_CHROME="+devChrome)
	u, err := harness.DevToolsURL(harness.ManagedProfile(home))
	if err != nil {
		t.Fatal(err)
	}
	cdp, err := harness.DialCDP(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cdp.Close() })
	pages := func() []harness.Target {
		ts, err := cdp.Targets()
		if err != nil {
			t.Fatal(err)
		}
		var out []harness.Target
		for _, tg := range ts {
			if tg.Type == "page" {
				out = append(out, tg)
			}
		}
		return out
	}

	// browser start returned at the hello; the window follows within moments.
	var spare []harness.Target
	if !waitFor(10*time.Second, func() bool { spare = pages(); return len(spare) > 0 }) {
		t.Fatal("no page in the browser: the extension did not open the BUA window at start-up")
	}
	if len(spare) != 1 || spare[0].URL != "about:blank" {
		t.Fatalf("pages before any action = %+v, want the BUA window's one blank tab (no startup window)", spare)
	}
	raw, err := cdp.Call("", "Browser.getWindowForTarget", map[string]any{"targetId": spare[0].TargetID})
	if err != nil {
		t.Fatal(err)
	}
	var win struct {
		Bounds struct {
			WindowState string `json:"windowState"`
		} `json:"bounds"`
	}
	// Not minimized in a managed browser (docs/extension.md §Focus and
	// input in the BUA window): headless Chromium would hide its tabs.
	if err := json.Unmarshal(raw, &win); err != nil || win.Bounds.WindowState != "normal" {
		t.Fatalf("the prewarmed window is %s (%v), want normal", raw, err)
	}
	if r := run(t, cmd, 30*time.Second, "--json", "tabs"); r.Code != 0 || r.Stdout != "[]\n" {
		t.Fatalf("tabs before any action = %q (exit %d), want [] (the blank tab is nobody's yet)", r.Stdout, r.Code)
	}
	pid := managedPID(t, cmd)

	tab := openTab(t, cmd, siteURL("form.html"))
	// The blank tab was handed out; the next open_tab's spare (blank, in
	// the background) may follow beside it.
	var shown []harness.Target
	var next []harness.Target
	for _, p := range pages() {
		if p.TargetID == spare[0].TargetID {
			shown = append(shown, p)
		} else if p.URL == "about:blank" {
			next = append(next, p)
		} else {
			t.Fatalf("pages after the first open = %+v: %s is neither the blank tab showing %s nor the next spare", pages(), p.URL, siteURL("form.html"))
		}
	}
	if len(shown) != 1 || shown[0].URL != siteURL("form.html") || len(next) > 1 {
		t.Fatalf("pages after the first open = %+v, want the blank tab %s showing %s (and at most one new blank spare)", pages(), spare[0].TargetID, siteURL("form.html"))
	}

	mustOK(t, "close "+tab, run(t, cmd, 30*time.Second, "close", tab))
	// The spare keeps the window open; closed too, the browser has no
	// window left.
	waitFor(5*time.Second, func() bool { return len(pages()) <= 1 })
	for _, p := range pages() {
		if p.URL != "about:blank" {
			t.Fatalf("pages after closing the only tab = %+v, want the spare alone", pages())
		}
		if _, err := cdp.Call("", "Target.closeTarget", map[string]any{"targetId": p.TargetID}); err != nil {
			t.Fatal(err)
		}
	}
	if !waitFor(5*time.Second, func() bool { return len(pages()) == 0 }) {
		t.Fatalf("pages after closing the only tab and the spare = %+v", pages())
	}
	time.Sleep(300 * time.Millisecond) // a browser that quits with its last window does so by now
	if got := managedPID(t, cmd); got != pid {
		t.Fatalf("managed browser pid %d after its last tab closed, want %d still running", got, pid)
	}
	openTab(t, cmd, siteURL("form.html"))
	shown = nil
	for _, p := range pages() {
		if p.URL == siteURL("form.html") {
			shown = append(shown, p)
		} else if p.URL != "about:blank" {
			t.Fatalf("pages after reopening = %+v: %s is neither the page nor the next spare", pages(), p.URL)
		}
	}
	if len(shown) != 1 || len(pages()) > 2 {
		t.Fatalf("pages after reopening = %+v, want one at %s (and at most the next blank spare)", pages(), siteURL("form.html"))
	}
}
