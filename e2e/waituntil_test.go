package e2e

import (
	"strings"
	"testing"
	"time"
)

// The slow subresource of nav/slow-image.html: an image served 4 s late,
// which holds the load event back while the text is there at once.
const slowImage = 4 * time.Second

// timed runs action, which must succeed, and returns how long it took.
func timed(t *testing.T, action map[string]any, out any) time.Duration {
	t.Helper()
	start := time.Now()
	mustRequest(t, action, out)
	took := time.Since(start)
	t.Logf("%s waitUntil %v: %v", action["type"], action["waitUntil"], took.Round(time.Millisecond))
	return took
}

// TestWaitUntil_SlowSubresource: navigate, reload, go_back, go_forward and
// open_tab with waitUntil commit or domcontentloaded answer well before the
// slow image (the page's text already readable), while load, the default,
// waits for it.
func TestWaitUntil_SlowSubresource(t *testing.T) {
	tab := openTab(t, "blank.html")
	page := siteURL("nav/slow-image.html")
	readable := func(what string) {
		t.Helper()
		if got := evaluate(t, tab, "return document.querySelector('h1') && document.querySelector('h1').textContent"); got != "Text that is there at once" {
			t.Errorf("%s: the page's text is %v", what, got)
		}
	}
	fast := slowImage / 2
	for _, until := range []string{"commit", "domcontentloaded"} {
		took := timed(t, map[string]any{"type": "navigate", "tabId": tab, "url": page, "waitUntil": until}, nil)
		if took >= fast {
			t.Errorf("navigate waitUntil %s took %v, want well under the image's %v", until, took, slowImage)
		}
		if until == "domcontentloaded" {
			readable("navigate waitUntil domcontentloaded")
		}
	}
	if took := timed(t, map[string]any{"type": "navigate", "tabId": tab, "url": page}, nil); took < slowImage {
		t.Errorf("navigate (load, the default) took %v, less than the image's %v", took, slowImage)
	}
	if state := evaluate(t, tab, "return document.readyState"); state != "complete" {
		t.Errorf("after a navigate that waits for load, readyState is %v", state)
	}
	if took := timed(t, map[string]any{"type": "navigate", "tabId": tab, "url": page, "waitUntil": "load"}, nil); took < slowImage {
		t.Errorf("navigate waitUntil load took %v, less than the image's %v", took, slowImage)
	}
	if took := timed(t, map[string]any{"type": "reload", "tabId": tab, "waitUntil": "domcontentloaded"}, nil); took >= fast {
		t.Errorf("reload waitUntil domcontentloaded took %v", took)
	}
	readable("reload waitUntil domcontentloaded")
	mustRequest(t, map[string]any{"type": "navigate", "tabId": tab, "url": siteURL("blank.html")}, nil)
	var moved struct {
		Moved bool   `json:"moved"`
		URL   string `json:"url"`
	}
	if took := timed(t, map[string]any{"type": "go_back", "tabId": tab, "waitUntil": "commit"}, &moved); took >= fast || !moved.Moved || !strings.HasSuffix(moved.URL, "/nav/slow-image.html") {
		t.Errorf("go_back waitUntil commit: %+v after %v", moved, took)
	}
	// Loaded afresh, not from the back/forward cache: still loading its image.
	if state := evaluate(t, tab, "return document.readyState"); state == "complete" {
		t.Errorf("after go_back waitUntil commit the page is already complete: the wait proved nothing")
	}
	if took := timed(t, map[string]any{"type": "go_forward", "tabId": tab, "waitUntil": "domcontentloaded"}, &moved); took >= fast || !moved.Moved {
		t.Errorf("go_forward waitUntil domcontentloaded: %+v after %v", moved, took)
	}
	var opened openTabResult
	took := timed(t, map[string]any{"type": "open_tab", "url": page, "waitUntil": "commit"}, &opened)
	if opened.TabID > 0 {
		closeLater(t, opened.TabID)
	}
	if took >= fast || opened.TabID <= 0 || opened.Domain != "127.0.0.1" {
		t.Errorf("open_tab waitUntil commit: %+v after %v", opened, took)
	}
	if got := evaluate(t, opened.TabID, "return location.pathname"); got != "/nav/slow-image.html" {
		t.Errorf("the tab open_tab opened shows %v", got)
	}
}

// TestWaitUntil_NetworkIdle: networkidle waits, past load, for the fetch a
// page makes after it (nav/late-fetch.html, 1.5 s) and 500 ms of quiet
// after it; load answers while the fetch is still out.
func TestWaitUntil_NetworkIdle(t *testing.T) {
	tab := openTab(t, "blank.html")
	page := siteURL("nav/late-fetch.html")
	took := timed(t, map[string]any{"type": "navigate", "tabId": tab, "url": page}, nil)
	if done := evaluate(t, tab, "return window.lateDone"); done != false || took > time.Second {
		t.Errorf("navigate (load) answered after %v with the late fetch done = %v, want it still out", took, done)
	}
	took = timed(t, map[string]any{"type": "navigate", "tabId": tab, "url": page, "waitUntil": "networkidle"}, nil)
	if done := evaluate(t, tab, "return window.lateDone"); done != true {
		t.Errorf("navigate waitUntil networkidle answered after %v with the late fetch not done", took)
	}
	if took < 2*time.Second {
		t.Errorf("navigate waitUntil networkidle took %v, less than the fetch's 1.5 s plus 500 ms of quiet", took)
	}
}
