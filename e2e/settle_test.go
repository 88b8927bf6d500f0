package e2e

import (
	"strings"
	"testing"
	"time"
)

// The settle after input and the actionability wait (docs/commands.md#waiting-as-playwright-does,
// docs/extension.md §Settle after input, §Actionability), on
// testdata/sites/settle/actions.html.

func TestClickOnSlowLinkWaitsForTheNewDocument(t *testing.T) {
	tab := openTab(t, "settle/actions.html")
	start := time.Now()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#slow"}, nil)
	if d := time.Since(start); d < time.Second {
		t.Errorf("click on a link to a page served after 1.5 s returned after %v", d)
	}
	r := extract(t, tab)
	if r.Title != "Settle target" || !strings.Contains(r.URL, "target.html") {
		t.Fatalf("extract right after the click: title %q url %q, want the new page", r.Title, r.URL)
	}
	if len(r.Elements) < 3 {
		t.Errorf("extract right after the click: %d elements, want the new page's buttons and link", len(r.Elements))
	}
}

func TestClickOnHashRouteSettles(t *testing.T) {
	tab := openTab(t, "app/spa.html")
	routes := []string{"Settings", "About", "Home"}
	for i := 0; i < 30; i++ {
		want := routes[i%len(routes)]
		mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "a[href='#/" + strings.ToLower(want) + "']"}, nil)
		if got := evalString(t, tab, "return document.getElementById('view').textContent"); got != want {
			t.Fatalf("run %d: view right after the click = %q, want %q", i, got, want)
		}
	}
}

func TestClickWaitsForEnabled(t *testing.T) {
	tab := openTab(t, "settle/actions.html")
	evaluate(t, tab, "arm(); return 0")
	start := time.Now()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#late"}, nil)
	d := time.Since(start)
	if got := evaluate(t, tab, "return window.clicks.late"); got != float64(1) {
		t.Fatalf("a button disabled for 700 ms: page counted %v clicks, want 1", got)
	}
	if d < 300*time.Millisecond {
		t.Errorf("click returned after %v: it did not wait for the button to be enabled", d)
	}
	// type waits the same way for a disabled input.
	evaluate(t, tab, "document.getElementById('later').disabled = true; setTimeout(() => document.getElementById('later').disabled = false, 700); return 0")
	mustRequest(t, map[string]any{"type": "type", "tabId": tab, "selector": "#later", "text": "hello"}, nil)
	if got := evalString(t, tab, "return document.getElementById('later').value"); got != "hello" {
		t.Errorf("typed into an input disabled for 700 ms: value %q", got)
	}
}

func TestClickWaitsForPassingOverlay(t *testing.T) {
	tab := openTab(t, "settle/actions.html")
	evaluate(t, tab, "arm(); return 0")
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#under"}, nil)
	if got := evaluate(t, tab, "return [window.clicks.under, window.clicks.passing]"); !equalJSON(got, []any{float64(1), float64(0)}) {
		t.Fatalf("[button, overlay] clicks = %v, want [1 0]", got)
	}
}

func TestClickOnCoveredButtonTimesOut(t *testing.T) {
	tab := openTab(t, "settle/actions.html")
	start := time.Now()
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#covered"}, "timeout", "--timeout", "2s")
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("covered click failed after %v with --timeout 2s", d)
	}
	wantContains(t, "message", e.Message, "covered by div#cover.overlay")
	if got := evaluate(t, tab, "return window.clicks.covered + window.clicks.cover"); got != float64(0) {
		t.Errorf("a click landed: %v", got)
	}
}

func TestForceSkipsActionability(t *testing.T) {
	tab := openTab(t, "settle/actions.html")
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#nothing"}, nil) // attach outside the timing
	start := time.Now()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#aria", "force": true}, nil)
	if d := time.Since(start); d > time.Second {
		t.Errorf("force click on an aria-disabled button took %v", d)
	}
	if got := evaluate(t, tab, "return window.clicks.aria"); got != float64(1) {
		t.Errorf("aria-disabled button with force: %v clicks, want 1", got)
	}
	// Without force it waits for enabled and fails.
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#aria"}, "timeout", "--timeout", "2s")
	wantContains(t, "message", e.Message, "not enabled")

	start = time.Now()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#covered", "force": true}, nil)
	if d := time.Since(start); d > time.Second {
		t.Errorf("force click on a covered button took %v", d)
	}
	// The input goes to the point: the overlay on top receives it.
	if got := evaluate(t, tab, "return window.clicks.cover"); got != float64(1) {
		t.Errorf("force click at a covered button's centre: overlay counted %v, want 1", got)
	}
}

func equalJSON(a any, b []any) bool {
	l, ok := a.([]any)
	if !ok || len(l) != len(b) {
		return false
	}
	for i := range l {
		if l[i] != b[i] {
			return false
		}
	}
	return true
}
