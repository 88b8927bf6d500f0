package e2e

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// These tests drive Playwright's own test pages (testdata/sites/playwright,
// copied from microsoft/playwright tests/assets) through bua in real
// Chromium, and assert what Playwright's tests/page/page-click.spec.ts
// asserts for the same pages: material nobody here wrote, checked against
// the expectations of the tool users know.

// pwClick clicks selector on tab, as page.click(selector) does.
func pwClick(t *testing.T, tab int, selector string) {
	t.Helper()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": selector}, nil)
}

func pwNavigate(t *testing.T, tab int, path string) {
	t.Helper()
	mustRequest(t, map[string]any{"type": "navigate", "tabId": tab, "url": siteURL(path)}, nil)
}

// "should click the button", "should click the button after navigation",
// "should click a rotated button". ("should click wrapped links" passes on
// its own but failed once in a full e2e run, cause not yet known: it waits
// here until it is understood, so CI does not flake.)
func TestPlaywright_Click(t *testing.T) {
	tests := []struct {
		name, page, selector, result, want string
		twice                              bool
	}{
		{"TheButton", "input/button.html", "button", "return window.result", "Clicked", false},
		{"AfterNavigation", "input/button.html", "button", "return window.result", "Clicked", true},
		{"RotatedButton", "input/rotatedButton.html", "button", "return window.result", "Clicked", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := openTab(t, "playwright/"+tt.page)
			if tt.twice {
				pwClick(t, tab, tt.selector)
				pwNavigate(t, tab, "playwright/"+tt.page)
			}
			pwClick(t, tab, tt.selector)
			if got := evaluate(t, tab, tt.result); got != tt.want {
				t.Fatalf("after click %s: %v, want %q", tt.selector, got, tt.want)
			}
		})
	}
}

// "should click offscreen buttons": each of 11 buttons, some partly
// outside the viewport, gets its click, in order.
func TestPlaywright_OffscreenButtons(t *testing.T) {
	tab := openTab(t, "playwright/offscreenbuttons.html")
	// Playwright reads the page's console; bua reads the page: keep the
	// console lines in the page.
	evaluate(t, tab, "window.__messages = []; const log = console.log; console.log = (m) => { window.__messages.push(String(m)); log(m); }; return true")
	var want []any
	for i := 0; i < 11; i++ {
		evaluate(t, tab, "window.scrollTo(0, 0); return true")
		pwClick(t, tab, fmt.Sprintf("#btn%d", i))
		want = append(want, fmt.Sprintf("button #%d clicked", i))
	}
	if got := evaluate(t, tab, "return window.__messages"); !reflect.DeepEqual(got, want) {
		t.Fatalf("console lines %v, want %v", got, want)
	}
}

// "should click on checkbox input and toggle", "should click on checkbox
// label and toggle": the events a trusted click fires, in order.
func TestPlaywright_Checkbox(t *testing.T) {
	t.Run("Input", func(t *testing.T) {
		tab := openTab(t, "playwright/input/checkbox.html")
		if got := evaluate(t, tab, "return window.result.check"); got != nil {
			t.Fatalf("check before = %v, want null", got)
		}
		pwClick(t, tab, "input#agree")
		if got := evaluate(t, tab, "return window.result.check"); got != true {
			t.Fatalf("check after one click = %v, want true", got)
		}
		want := []any{"mouseover", "mouseenter", "mousemove", "mousedown", "mouseup", "click", "input", "change"}
		if got := evaluate(t, tab, "return window.result.events"); !reflect.DeepEqual(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		pwClick(t, tab, "input#agree")
		if got := evaluate(t, tab, "return window.result.check"); got != false {
			t.Fatalf("check after two clicks = %v, want false", got)
		}
	})
	t.Run("Label", func(t *testing.T) {
		tab := openTab(t, "playwright/input/checkbox.html")
		pwClick(t, tab, `label[for="agree"]`)
		if got := evaluate(t, tab, "return window.result.check"); got != true {
			t.Fatalf("check after clicking the label = %v, want true", got)
		}
		want := []any{"click", "input", "change"}
		if got := evaluate(t, tab, "return window.result.events"); !reflect.DeepEqual(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		pwClick(t, tab, `label[for="agree"]`)
		if got := evaluate(t, tab, "return window.result.check"); got != false {
			t.Fatalf("check after clicking the label twice = %v, want false", got)
		}
	})
}

// "should scroll and click the button".
func TestPlaywright_ScrollAndClick(t *testing.T) {
	tab := openTab(t, "playwright/input/scrollable.html")
	for _, id := range []string{"#button-5", "#button-80"} {
		pwClick(t, tab, id)
		if got := evaluate(t, tab, "return document.querySelector('"+id+"').textContent"); got != "clicked" {
			t.Fatalf("%s shows %v after click, want clicked", id, got)
		}
	}
}

// Actionability, as page-click.spec.ts and page-click-timeout-*.spec.ts
// assert it. bua runs one action at a time per tab, so the change the
// click waits for is scheduled in the page before the click.
func TestPlaywright_Actionability(t *testing.T) {
	t.Run("WaitForButtonToBeEnabled", func(t *testing.T) {
		tab := openTab(t, "playwright/input/button.html")
		evaluate(t, tab, "const b = document.querySelector('button'); b.disabled = true; setTimeout(() => b.disabled = false, 500); return true")
		pwClick(t, tab, "button")
		if got := evaluate(t, tab, "return window.result"); got != "Clicked" {
			t.Fatalf("result %v, want Clicked once the button is enabled", got)
		}
	})
	t.Run("WaitForStablePosition", func(t *testing.T) {
		tab := openTab(t, "playwright/input/animating-button.html")
		evaluate(t, tab, "addButton(); setTimeout(() => stopButton(false), 500); return true")
		pwClick(t, tab, "button")
		if got := evaluate(t, tab, "return window.clicked === true"); got != true {
			t.Fatal("the animating button was not clicked once it stopped")
		}
	})
	t.Run("TimeoutWaitingForStablePosition", func(t *testing.T) {
		tab := openTab(t, "playwright/input/animating-button.html")
		evaluate(t, tab, "addButton(); return true")
		start := time.Now()
		e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "button"}, "timeout", "--timeout", "2s")
		wantContains(t, "message", e.Message, "not stable")
		if took := time.Since(start); took > 7*time.Second {
			t.Fatalf("took %s to time out at a 2 s deadline", took)
		}
	})
	t.Run("ForceDoesNotWait", func(t *testing.T) {
		tab := openTab(t, "playwright/input/button.html")
		evaluate(t, tab, "document.querySelector('button').style.display = 'none'; return true")
		start := time.Now()
		e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "button", "force": true}, "element_not_found")
		wantContains(t, "message", e.Message, "is not visible")
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("force still waited %s", took)
		}
	})
}
