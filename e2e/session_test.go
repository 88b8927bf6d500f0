package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestOpenTab_BuaWindow checks that agent tabs land in one BUA window that
// never takes focus from the person's window, while a focus:true tab opens
// in the person's window and has focus. (Headless Chromium reports every
// page "visible", minimized or not, so focus is the observable signal.)
func TestOpenTab_BuaWindow(t *testing.T) {
	a := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("")})
	b := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("form.html")})
	if a.WindowID != b.WindowID {
		t.Errorf("open_tab windows %d and %d: want one shared BUA window", a.WindowID, b.WindowID)
	}
	if a.Domain != "127.0.0.1" {
		t.Errorf("domain = %q, want 127.0.0.1", a.Domain)
	}
	if got := evaluate(t, a.TabID, "return document.hasFocus()"); got != false {
		t.Errorf("BUA tab document.hasFocus() = %v, want false", got)
	}
	if got := evaluate(t, a.TabID, "return document.title"); got != "bua fixtures" {
		t.Errorf("open_tab returned before the page loaded: title = %v", got)
	}

	f := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL(""), "focus": true})
	if f.WindowID == a.WindowID {
		t.Errorf("focus:true tab opened in the BUA window %d", a.WindowID)
	}
	if got := evaluate(t, f.TabID, "return document.hasFocus()"); got != true {
		t.Errorf("focus:true tab document.hasFocus() = %v, want true", got)
	}
	if got := evaluate(t, a.TabID, "return document.hasFocus()"); got != false {
		t.Errorf("after a focused open_tab, the BUA tab has focus: %v", got)
	}
}

// TestManagedViewport: the managed browser's pages are 1280×720,
// Playwright's default viewport (Chromium's default window left them
// 780×493), in the BUA window and in a window a focus:true open_tab opens.
func TestManagedViewport(t *testing.T) {
	const size = "return innerWidth + 'x' + innerHeight"
	tab := openTab(t, "index.html")
	if got := evalString(t, tab, size); got != "1280x720" {
		t.Errorf("a BUA window page is %s, want 1280x720", got)
	}
	f := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("index.html"), "focus": true})
	if got := evalString(t, f.TabID, size); got != "1280x720" {
		t.Errorf("a focus:true page is %s, want 1280x720", got)
	}
}

// TestGetTabs lists open tabs with url, title and domain.
func TestGetTabs(t *testing.T) {
	id := openTab(t, "")
	tabs := getTabs(t)
	tb, ok := hasTab(tabs, id)
	if !ok {
		t.Fatalf("get_tabs %+v lacks tab %d", tabs, id)
	}
	if tb.URL != siteURL("") || tb.Title != "bua fixtures" || tb.Domain != "127.0.0.1" {
		t.Errorf("get_tabs entry = %+v", tb)
	}
}

// TestBlocklist checks the --block seed: open_tab, navigate and actions on
// a page that got there by itself all fail with domain_blocked (exit 3),
// subdomains included, and get_tabs hides such tabs.
func TestBlocklist(t *testing.T) {
	for _, host := range []string{BlockedDomain, "sub." + BlockedDomain} {
		e := wantError(t, map[string]any{"type": "open_tab", "url": hostURL(host, "index.html")}, "domain_blocked")
		wantContains(t, "message", e.Message, host)
	}
	_, _, code := request(t, map[string]any{"type": "open_tab", "url": hostURL(BlockedDomain, "index.html")})
	if code != 3 {
		t.Errorf("domain_blocked exit code = %d, want 3", code)
	}

	id := openTab(t, "")
	wantError(t, map[string]any{"type": "navigate", "tabId": id, "url": hostURL(BlockedDomain, "form.html")}, "domain_blocked")
	if got := evaluate(t, id, "return location.href"); got != siteURL("") {
		t.Errorf("after a blocked navigate the tab is at %v, want it unmoved", got)
	}

	// The page itself moves to a blocked host: the next action is refused.
	mustRequest(t, map[string]any{"type": "evaluate", "tabId": id, "expression": "location.href = " + jsString(hostURL(BlockedDomain, "index.html")) + "; return true"}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, e, _ := request(t, map[string]any{"type": "evaluate", "tabId": id, "expression": "return 1"})
		if e != nil && e.Code == "domain_blocked" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("actions on a tab now at %s were never refused (last error %+v)", BlockedDomain, e)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, ok := hasTab(getTabs(t), id); ok {
		t.Errorf("get_tabs lists tab %d although it is on a blocked domain", id)
	}
}

// TestTabNotFound: actions on a closed tab fail with tab_not_found.
func TestTabNotFound(t *testing.T) {
	id := openTab(t, "")
	var closed struct {
		OK    bool `json:"ok"`
		TabID int  `json:"tabId"`
	}
	mustRequest(t, map[string]any{"type": "close_tab", "tabId": id}, &closed)
	if !closed.OK || closed.TabID != id {
		t.Errorf("close_tab = %+v", closed)
	}
	if _, ok := hasTab(getTabs(t), id); ok {
		t.Errorf("get_tabs still lists closed tab %d", id)
	}
	wantError(t, map[string]any{"type": "evaluate", "tabId": id, "expression": "return 1"}, "tab_not_found")
	wantError(t, map[string]any{"type": "close_tab", "tabId": id}, "tab_not_found")
	wantError(t, map[string]any{"type": "extract", "tabId": 999999999}, "tab_not_found")
}

// TestSessionResolution runs without tabId: nothing open is
// session_not_found; two sessions outside the BUA window are ambiguous;
// a BUA-window session is picked over them.
func TestSessionResolution(t *testing.T) {
	closeAllTabs(t)
	e := wantError(t, map[string]any{"type": "evaluate", "expression": "return 1"}, "session_not_found")
	// The extension says what happened; the CLI's hint says what to run.
	wantContains(t, "message", e.Message, "no session to act on")
	wantContains(t, "hint", e.Hint, "bua open")

	a := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL(""), "focus": true})
	if got := evaluate(t, a.TabID, "return 'a'"); got != "a" {
		t.Fatalf("evaluate on tab a = %v", got)
	}
	// One session, even outside the BUA window, is not ambiguous.
	var one struct {
		Value any `json:"value"`
	}
	mustRequest(t, map[string]any{"type": "evaluate", "expression": "return location.pathname"}, &one)
	if one.Value != "/" {
		t.Errorf("single-session evaluate = %v", one.Value)
	}

	openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("form.html"), "focus": true})
	e = wantError(t, map[string]any{"type": "evaluate", "expression": "return 1"}, "session_not_found")
	wantContains(t, "ambiguous message", e.Message, "2 sessions")

	// A BUA-window session resolves the ambiguity.
	c := openTab(t, "long.html")
	var r struct {
		Value any `json:"value"`
		TabID int `json:"tabId"`
	}
	mustRequest(t, map[string]any{"type": "evaluate", "expression": "return document.title"}, &r)
	if r.Value != "Long page" {
		t.Errorf("evaluate without tabId ran on %v (tab %d), want the BUA tab %d", r.Value, r.TabID, c)
	}
}

// TestNavigateOpensBuaTab: navigate with no session opens a tab in the
// BUA window instead of failing.
func TestNavigateOpensBuaTab(t *testing.T) {
	closeAllTabs(t)
	var r struct {
		TabID int `json:"tabId"`
	}
	mustRequest(t, map[string]any{"type": "navigate", "url": siteURL("spa.html")}, &r)
	if r.TabID <= 0 {
		t.Fatalf("navigate result has no tabId: %+v", r)
	}
	closeLater(t, r.TabID)
	if got := evaluate(t, r.TabID, "return document.title + ' ' + location.pathname"); got != "SPA home /spa.html" {
		t.Errorf("navigate's new tab reports %v, want the SPA at /spa.html", got)
	}
	// Another open_tab joins the same window: navigate used the BUA window.
	bua := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("")})
	tb, ok := hasTab(getTabs(t), r.TabID)
	if !ok || tb.WindowID != bua.WindowID {
		t.Errorf("navigate's tab is in window %d (listed %v), the BUA window is %d", tb.WindowID, ok, bua.WindowID)
	}
}

// TestInvalidActionFromExtension sends a schema-invalid action past the
// CLI's own check: the extension's validator must refuse it.
func TestInvalidActionFromExtension(t *testing.T) {
	id := openTab(t, "form.html")
	e := wantError(t, map[string]any{"type": "click", "tabId": id, "selector": "#submit", "uid": "e1"}, "invalid_action", "--no-validate")
	// This wording is the extension's (src/transport/validator.js), not the daemon's.
	wantContains(t, "message", e.Message, "needs exactly one of selector, uid or role")
	if got := evaluate(t, id, "return document.getElementById('result').textContent"); got != "" {
		t.Errorf("the invalid click ran anyway: result = %v", got)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
