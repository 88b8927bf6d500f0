package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"net"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// These tests prove each per-tab action in real Chromium through the whole
// stack: bua request -> daemon -> extension -> chrome.debugger -> page.

type element struct {
	UID     string `json:"uid"`
	Role    string `json:"role"`
	Name    string `json:"name"`
	Value   string `json:"value"`
	Visible *bool  `json:"visible"`
}

type extractResult struct {
	Text         string    `json:"text"`
	Markdown     string    `json:"markdown"`
	Elements     []element `json:"elements"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	CaptchaFrame bool      `json:"captchaFrame"`
	TabID        int       `json:"tabId"`
	Obstacle     *struct {
		Type string `json:"type"`
	} `json:"obstacle"`
}

func extract(t *testing.T, tab int) extractResult {
	t.Helper()
	var r extractResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	if r.TabID != tab {
		t.Fatalf("extract tabId = %d, want %d", r.TabID, tab)
	}
	return r
}

// uidOf returns the uid of the element with role and name, failing the test
// when extract did not list it.
func uidOf(t *testing.T, r extractResult, role, name string) string {
	t.Helper()
	for _, e := range r.Elements {
		if e.Role == role && e.Name == name {
			return e.UID
		}
	}
	t.Fatalf("no %s %q among %d elements: %+v", role, name, len(r.Elements), r.Elements)
	return ""
}

func act(t *testing.T, tab int, typ string, fields map[string]any) {
	t.Helper()
	a := map[string]any{"type": typ, "tabId": tab}
	for k, v := range fields {
		a[k] = v
	}
	var r struct {
		OK    bool `json:"ok"`
		TabID int  `json:"tabId"`
	}
	mustRequest(t, a, &r)
	if !r.OK || r.TabID != tab {
		t.Fatalf("%s: result ok=%v tabId=%d, want ok=true tabId=%d", typ, r.OK, r.TabID, tab)
	}
}

func evalString(t *testing.T, tab int, expr string) string {
	t.Helper()
	v := evaluate(t, tab, expr)
	s, ok := v.(string)
	if !ok {
		t.Fatalf("evaluate %q = %#v, want a string", expr, v)
	}
	return s
}

// eventually polls evaluate until it returns want, for effects that land
// after the action's response (a navigation started by a click).
func eventually(t *testing.T, tab int, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got any
	for time.Now().Before(deadline) {
		// Errors are expected while the page is between documents.
		if res, e, _ := request(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": expr}); e == nil {
			var r struct {
				Value any `json:"value"`
			}
			_ = json.Unmarshal(res, &r)
			if got = r.Value; got == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("evaluate %q never became %q (last %#v)", expr, want, got)
}

func TestNavigate(t *testing.T) {
	tab := openTab(t, "index.html")
	act(t, tab, "navigate", map[string]any{"url": siteURL("stale.html")})
	if got := evalString(t, tab, "return document.title"); got != "Stale" {
		t.Errorf("title after navigate = %q, want Stale", got)
	}
	if got := evalString(t, tab, "return document.readyState"); got != "complete" {
		t.Errorf("readyState right after navigate = %q, want complete (navigate waits for load)", got)
	}

	// A port nobody listens on: the protocol has no navigation-failed code,
	// so internal_error carrying Chromium's net:: name.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	e := wantError(t, map[string]any{"type": "navigate", "tabId": tab, "url": "http://" + dead + "/"}, "internal_error")
	wantContains(t, "message", e.Message, "net::ERR_CONNECTION_REFUSED")
}

func TestTypeClickSubmitByUID(t *testing.T) {
	tab := openTab(t, "form.html")
	r := extract(t, tab)
	act(t, tab, "type", map[string]any{"uid": uidOf(t, r, "textbox", "Name"), "text": "Ada Lovelace"})
	act(t, tab, "type", map[string]any{"selector": "#email", "text": "ada@example.test"})
	act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "checkbox", "I agree")})
	act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "button", "Submit")})
	if got, want := evalString(t, tab, "return document.getElementById('result').textContent"),
		"Submitted: Ada Lovelace <ada@example.test> plan=free terms=true"; got != want {
		t.Errorf("result = %q, want %q", got, want)
	}
	if got := evalString(t, tab, "return document.getElementById('result').dataset.trusted"); got != "true" {
		t.Errorf("submit event isTrusted = %s, want true", got)
	}
	act(t, tab, "type", map[string]any{"selector": "#notes", "text": "héllo 日本 😀"})
	if got := evalString(t, tab, "return document.getElementById('notes').value"); got != "héllo 日本 😀" {
		t.Errorf("textarea = %q", got)
	}
	wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#does-not-exist"}, "element_not_found")
	wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "button[[["}, "invalid_action")
}

// TestHoverBackgroundTab: a hover on a BUA tab that another tab has put in
// the background lands at once. Chrome delivers a lone mouse move to a
// page that draws no frames only every 5 s; the dispatcher brings the tab
// up in the BUA window first.
func TestHoverBackgroundTab(t *testing.T) {
	tab := openTab(t, "input.html")
	openTab(t, "form.html") // opened active: tab is now in the background
	if got := evalString(t, tab, "return document.visibilityState"); got != "hidden" {
		t.Fatalf("the first tab is %q behind the second, want hidden (the case under test)", got)
	}
	start := time.Now()
	act(t, tab, "hover", map[string]any{"selector": "#hoverme"})
	took := time.Since(start)
	if got := evalString(t, tab, "return document.getElementById('hover-result').textContent"); got != "hovered trusted=true" {
		t.Errorf("hover on a background tab: %q", got)
	}
	if took > 2*time.Second {
		t.Errorf("hover on a background tab took %s, want well under Chrome's 5 s", took.Round(time.Millisecond))
	}
}

// TestClickBackgroundTab: bua works in several tabs of its window, and a
// type and a click on a tab behind another reach its page in the headless
// managed browser, which takes input in a background tab as it is: the
// dispatcher brings a tab up in the BUA window, and a click draws a hidden
// page a frame, only in a person's browser (docs/extension.md §Focus and
// input in the BUA window). e2e/person's TestBuaWindowTwoTabs proves that
// in headful Chromium, where without them the click is lost.
func TestClickBackgroundTab(t *testing.T) {
	first := openTab(t, "person/card.html?bg=first")
	second := openTab(t, "person/card.html?bg=second")
	for i, tab := range []int{first, second} {
		openTab(t, "person/mine.html?bg="+strconv.Itoa(i)) // the newest tab is the shown one

		if got := evalString(t, tab, "return document.visibilityState"); got != "hidden" {
			t.Fatalf("tab %d is %q behind the other, want hidden (the case under test)", tab, got)
		}
		act(t, tab, "type", map[string]any{"selector": "#name", "text": "Ada"})
		act(t, tab, "click", map[string]any{"selector": "#go"})
		if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "Hello, Ada" {
			t.Errorf("tab %d: after type and click answered ok the page says %q, want \"Hello, Ada\"", tab, got)
		}
	}
}

func TestHoverPressKeyScroll(t *testing.T) {
	tab := openTab(t, "input.html")
	act(t, tab, "hover", map[string]any{"selector": "#hoverme"})
	if got := evalString(t, tab, "return document.getElementById('hover-result').textContent"); got != "hovered trusted=true" {
		t.Errorf("hover: %q", got)
	}

	act(t, tab, "click", map[string]any{"selector": "#field"})
	for _, k := range []string{"H", "i", "!"} {
		act(t, tab, "press_key", map[string]any{"key": k})
	}
	if got := evalString(t, tab, "return document.getElementById('field').value"); got != "Hi!" {
		t.Errorf("typed with press_key: %q, want Hi!", got)
	}
	act(t, tab, "press_key", map[string]any{"key": "Control+a"})
	act(t, tab, "press_key", map[string]any{"key": "Backspace"})
	if got := evalString(t, tab, "return document.getElementById('field').value"); got != "" {
		t.Errorf("after Control+a, Backspace: %q, want empty", got)
	}
	act(t, tab, "press_key", map[string]any{"key": "Enter"})
	got := evalString(t, tab, "return JSON.stringify(window.log)")
	// Uppercase and shifted punctuation press Shift first, as a keyboard does.
	want := `[["Shift","ShiftLeft",false,true,true],["H","KeyH",false,true,true],["i","KeyI",false,false,true],["Shift","ShiftLeft",false,true,true],["!","Digit1",false,true,true],["Control","ControlLeft",true,false,true],["a","KeyA",true,false,true],["Backspace","Backspace",false,false,true],["Enter","Enter",false,false,true]]`
	if got != want {
		t.Errorf("key log\n got %s\nwant %s", got, want)
	}
	act(t, tab, "press_key", map[string]any{"key": "Tab"})
	if got := evalString(t, tab, "return document.activeElement.id"); got != "area" {
		t.Errorf("Tab moved focus to %q, want area", got)
	}

	evaluate(t, tab, "window.scrollTo(0, 0); return 0")
	act(t, tab, "scroll", map[string]any{"direction": "down"})
	if got := evaluate(t, tab, "return window.scrollY === window.innerHeight"); got != true {
		t.Errorf("default scroll is not one viewport: scrollY=%v innerHeight=%v", evaluate(t, tab, "return window.scrollY"), evaluate(t, tab, "return window.innerHeight"))
	}
	act(t, tab, "scroll", map[string]any{"direction": "down", "amount": 300})
	act(t, tab, "scroll", map[string]any{"direction": "up", "amount": 100})
	if got := evaluate(t, tab, "return window.scrollY - window.innerHeight"); got != float64(200) {
		t.Errorf("scrollY - innerHeight = %v, want 200", got)
	}
}

// TestScrollReportsScrolled: scroll says whether the page moved (the
// schema's result.scroll).
func TestScrollReportsScrolled(t *testing.T) {
	scroll := func(t *testing.T, tab int, dir string) bool {
		t.Helper()
		var r struct {
			OK       bool  `json:"ok"`
			Scrolled *bool `json:"scrolled"`
			TabID    int   `json:"tabId"`
		}
		mustRequest(t, map[string]any{"type": "scroll", "tabId": tab, "direction": dir}, &r)
		if !r.OK || r.TabID != tab || r.Scrolled == nil {
			t.Fatalf("scroll %s: ok=%v tabId=%d scrolled=%v, want ok, tab %d and scrolled set", dir, r.OK, r.TabID, r.Scrolled, tab)
		}
		return *r.Scrolled
	}
	long := openTab(t, "long.html")
	evaluate(t, long, "window.scrollTo(0, 0); return 0")
	if scroll(t, long, "up") {
		t.Error("scroll up at the top of the page: scrolled = true, want false")
	}
	if !scroll(t, long, "down") {
		t.Error("scroll down on a long page: scrolled = false, want true")
	}
	evaluate(t, long, "window.scrollTo(0, document.documentElement.scrollHeight); return 0")
	if scroll(t, long, "down") {
		t.Error("scroll down at the bottom: scrolled = true, want false")
	}
	short := openTab(t, "stale.html")
	if scroll(t, short, "down") {
		t.Error("scroll down on a page that cannot scroll: scrolled = true, want false")
	}
}

// TestReload: reload loads a new document (a script's DOM change is gone)
// and makes the old extract's uids stale.
func TestReload(t *testing.T) {
	tab := openTab(t, "stale.html")
	btn := uidOf(t, extract(t, tab), "button", "Press")
	if got := evalString(t, tab, "document.body.dataset.x = 'changed'; return document.body.dataset.x"); got != "changed" {
		t.Fatalf("dataset.x = %q before the reload", got)
	}
	loadID := evaluate(t, tab, "window.__bua_reload_probe = Math.random(); return window.__bua_reload_probe")
	act(t, tab, "reload", nil)
	if got := evaluate(t, tab, "return document.body.dataset.x === undefined && window.__bua_reload_probe === undefined"); got != true {
		t.Errorf("after reload the script's changes survive (dataset.x=%v, probe was %v)", evaluate(t, tab, "return document.body.dataset.x"), loadID)
	}
	if got := evalString(t, tab, "return document.readyState"); got != "complete" {
		t.Errorf("readyState after reload = %q, want complete", got)
	}
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": btn}, "element_stale")
	wantContains(t, "message", e.Message, "extract")
	// A fresh extract gives uids for the reloaded document.
	act(t, tab, "click", map[string]any{"uid": uidOf(t, extract(t, tab), "button", "Press")})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "clicked" {
		t.Errorf("click after re-extract: %q", got)
	}
}

func TestStaleAfterNavigate(t *testing.T) {
	tab := openTab(t, "stale.html")
	r := extract(t, tab)
	btn := uidOf(t, r, "button", "Press")
	act(t, tab, "wait_for", map[string]any{"uid": btn})
	act(t, tab, "click", map[string]any{"uid": btn})
	act(t, tab, "navigate", map[string]any{"url": siteURL("stale.html")})
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": btn}, "element_stale")
	wantContains(t, "message", e.Message, "extract")
	// A fresh extract makes the same uid good again, and it targets the new
	// document.
	r = extract(t, tab)
	act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "button", "Press")})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "clicked" {
		t.Errorf("click after re-extract: %q", got)
	}
}

func TestStaleAfterRealNavigationNotSPA(t *testing.T) {
	t.Run("MainFrameNavigation", func(t *testing.T) {
		tab := openTab(t, "stale.html")
		r := extract(t, tab)
		btn := uidOf(t, r, "button", "Press")
		act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "link", "Reload this page")})
		eventually(t, tab, "return location.search + '|' + document.readyState", "?again=1|complete")
		wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": btn}, "element_stale")
		wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "uid": btn, "timeoutMs": 500}, "element_stale")
	})
	t.Run("SPARouteChange", func(t *testing.T) {
		tab := openTab(t, "spa.html")
		r := extract(t, tab)
		loadID := evaluate(t, tab, "return window.__loadId")
		items := uidOf(t, r, "link", "Items")
		counter := uidOf(t, r, "button", "Count 0")
		act(t, tab, "click", map[string]any{"uid": counter})
		act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "link", "About")})
		if got := evalString(t, tab, "return location.pathname"); got != "/spa/about" {
			t.Fatalf("pathname after SPA click = %q", got)
		}
		act(t, tab, "click", map[string]any{"uid": items})
		if got := evalString(t, tab, "return location.pathname + ' ' + document.querySelector('h1').textContent"); got != "/spa/items Items" {
			t.Errorf("after second route: %q", got)
		}
		if got := evaluate(t, tab, "return window.__loadId"); got != loadID {
			t.Errorf("document reloaded during SPA routing (%v != %v)", got, loadID)
		}
		// The counter left the DOM with the route change: its uid is still in
		// the cache, but the node is gone -> not_found, not stale.
		wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": counter}, "element_not_found")
	})
}

func TestRemovedNodeIsNotFound(t *testing.T) {
	tab := openTab(t, "remove.html")
	r := extract(t, tab)
	victim := uidOf(t, r, "button", "Victim")
	keeper := uidOf(t, r, "button", "Keeper")
	evaluate(t, tab, "window.kill(); window.replace(); return 1")
	for _, typ := range []string{"click", "hover"} {
		e := wantError(t, map[string]any{"type": typ, "tabId": tab, "uid": victim}, "element_not_found")
		wantContains(t, "message", e.Message, "no longer in the page")
	}
	wantError(t, map[string]any{"type": "type", "tabId": tab, "uid": victim, "text": "x"}, "element_not_found")
	wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": keeper}, "element_not_found")
	wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "uid": victim, "timeoutMs": 400}, "timeout")
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "" {
		t.Errorf("a removed node was clicked: result %q", got)
	}
	if got := evaluate(t, tab, "window.detached.click(); return document.getElementById('result').textContent"); got != "victim clicked" {
		t.Fatalf("fixture check: the detached node should still be alive, got %v", got)
	}
}

func TestCoveredElementNamesTheCover(t *testing.T) {
	tab := openTab(t, "modal.html")
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#target"}, "timeout", "--timeout", "2s")
	wantContains(t, "message", e.Message, "covered by div#overlay")
	wantContains(t, "message", e.Message, "We use cookies")
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "" {
		t.Errorf("covered target or overlay was clicked: %q", got)
	}
	act(t, tab, "click", map[string]any{"selector": "#accept"})
	act(t, tab, "click", map[string]any{"selector": "#target"})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "target clicked" {
		t.Errorf("after consent: %q", got)
	}
}

func TestShadowAndIframeTargets(t *testing.T) {
	tab := openTab(t, "shadow.html")
	r := extract(t, tab)
	act(t, tab, "click", map[string]any{"uid": uidOf(t, r, "button", "Shadow button")})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "shadow clicked" {
		t.Errorf("shadow: %q", got)
	}
	tab2 := openTab(t, "iframe.html")
	act(t, tab2, "wait_for", map[string]any{"selector": "#frame"})
	eventually(t, tab2, "return document.getElementById('frame').contentDocument.readyState", "complete")
	r = extract(t, tab2)
	act(t, tab2, "click", map[string]any{"uid": uidOf(t, r, "button", "Frame button")})
	if got := evalString(t, tab2, "return document.getElementById('result').textContent"); got != "frame clicked" {
		t.Errorf("iframe: %q", got)
	}
}

func TestWaitFor(t *testing.T) {
	tab := openTab(t, "index.html")
	// navigate returns at load; #late is added 700 ms after that.
	act(t, tab, "navigate", map[string]any{"url": siteURL("slow.html")})
	if got := evaluate(t, tab, "return document.getElementById('late') === null"); got != true {
		t.Fatalf("fixture: #late already there right after load")
	}
	start := time.Now()
	act(t, tab, "wait_for", map[string]any{"selector": "#late"})
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("wait_for returned after %v, before #late could exist", d)
	}
	if got := evalString(t, tab, "return document.getElementById('late').textContent"); got != "arrived" {
		t.Errorf("late = %q", got)
	}
	start = time.Now()
	e := wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "selector": "#never", "timeoutMs": 600}, "timeout")
	if d := time.Since(start); d < 550*time.Millisecond || d > 5*time.Second {
		t.Errorf("wait_for timeoutMs=600 took %v", d)
	}
	wantContains(t, "message", e.Message, "#never")
	wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "selector": "p[", "timeoutMs": 600}, "invalid_action")
}

func TestEvaluateShapes(t *testing.T) {
	tab := openTab(t, "index.html")
	cases := []struct {
		name, expr, want string
	}{
		{"String", "return 'hi'", `{"type":"string","value":"hi"}`},
		{"Number", "return 6 * 7", `{"type":"number","value":42}`},
		{"Boolean", "return true", `{"type":"boolean","value":true}`},
		{"Object", "return {a: [1, 'x'], b: null}", `{"type":"object","value":{"a":[1,"x"],"b":null}}`},
		{"Null", "return null", `{"type":"object","value":null}`},
		{"Undefined", "document.title", `{"type":"undefined"}`},
		{"Promise", "return new Promise(r => setTimeout(() => r('later'), 50))", `{"type":"string","value":"later"}`},
		{"Node", "return document.body", `{"type":"object","description":"body"}`},
		{"Function", "return function named() { return 1 }", `{"type":"function","description":"function named() { return 1 }"}`},
		{"Map", "return new Map([[1, 2]])", `{"type":"object","description":"Map(1)"}`},
		{"NaN", "return NaN", `{"type":"number","description":"NaN"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, e, _ := request(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": c.expr})
			if e != nil {
				t.Fatalf("error %s: %s", e.Code, e.Message)
			}
			var got, want map[string]any
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if got["tabId"] != float64(tab) {
				t.Errorf("tabId = %v", got["tabId"])
			}
			delete(got, "tabId")
			// The daemon adds the tab's handle for a CLI client, which names tabs by it.
			if h, ok := got["tabHandle"].(string); ok && !regexp.MustCompile(`^t[1-9][0-9]*$`).MatchString(h) {
				t.Errorf("tabHandle = %q", h)
			}
			delete(got, "tabHandle")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	t.Run("Truncated", func(t *testing.T) {
		var r struct {
			Type      string `json:"type"`
			Truncated bool   `json:"truncated"`
			Preview   string `json:"preview"`
			Value     any    `json:"value"`
		}
		mustRequest(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "return 'x'.repeat(10000)"}, &r)
		if !r.Truncated || r.Value != nil || r.Type != "string" {
			t.Fatalf("got %+v", r)
		}
		// JSON of the string is 10002 chars: 8192 kept, 1810 cut.
		if want := `"` + strings.Repeat("x", 8191) + "…[truncated 1810 chars]"; r.Preview != want {
			t.Errorf("preview = %.40q…%q", r.Preview, r.Preview[len(r.Preview)-30:])
		}
	})
	t.Run("Throw", func(t *testing.T) {
		e := wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "throw new TypeError('boom here')"}, "invalid_action")
		if e.Message != "TypeError: boom here" {
			t.Errorf("message = %q", e.Message)
		}
		e = wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "await 1; return )"}, "invalid_action")
		wantContains(t, "message", e.Message, "SyntaxError: Unexpected token ')'")
		e = wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "await Promise.reject(new RangeError('late boom')); return 1"}, "invalid_action")
		if e.Message != "RangeError: late boom" {
			t.Errorf("message = %q", e.Message)
		}
		// Each says the page script threw (reason script_threw); a
		// request refused as invalid does not.
		for _, expr := range []string{"throw new TypeError('boom here')", "await 1; return )", "await Promise.reject(new RangeError('late boom')); return 1"} {
			if e := wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": expr}, "invalid_action"); e.Reason != "script_threw" {
				t.Errorf("%s: reason %q, want script_threw", expr, e.Reason)
			}
		}
		if e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "button[[["}, "invalid_action"); e.Reason == "script_threw" {
			t.Errorf("an invalid selector: reason %q: no page script of the request's threw", e.Reason)
		}
	})
	// A body that uses await runs as an async arrow function (a pure
	// extension of the wrapper in docs/protocol.md#evaluate); any other body keeps the
	// sync one, where await is still an identifier.
	t.Run("Await", func(t *testing.T) {
		for _, c := range []struct{ expr, want string }{
			{"const r = await new Promise(r => setTimeout(() => r('awaited'), 30)); return r", "awaited"},
			{"const res = await fetch(location.href); return String(res.status)", "200"},
			{"var await = 'sync'; return await", "sync"},
			{"return String([1, 2].map(async (x) => await x).length)", "2"},
		} {
			if got := evalString(t, tab, c.expr); got != c.want {
				t.Errorf("%s: %q, want %q", c.expr, got, c.want)
			}
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		start := time.Now()
		wantError(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "return new Promise(() => {})"}, "timeout")
		if d := time.Since(start); d > 14*time.Second {
			t.Errorf("took %v", d)
		}
		// The tab still answers afterwards.
		if got := evalString(t, tab, "return 'alive'"); got != "alive" {
			t.Errorf("after timeout: %q", got)
		}
	})
}

func TestEvaluateDialogs(t *testing.T) {
	tab := openTab(t, "dialogs.html")
	for _, c := range []struct{ expr, want string }{
		{"alert('a'); return 'after alert'", `"after alert"`},
		{"return confirm('sure?')", "false"},
		{"return prompt('name?', 'default')", "null"},
	} {
		var r struct {
			Value json.RawMessage `json:"value"`
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			mustRequest(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": c.expr}, &r)
		}()
		select {
		case <-done:
		case <-time.After(8 * time.Second):
			t.Fatalf("%s: evaluate hung on its dialog", c.expr)
		}
		if string(r.Value) != c.want {
			t.Errorf("%s = %s, want %s", c.expr, r.Value, c.want)
		}
	}
}

func TestWebdriverIsFalse(t *testing.T) {
	tab := openTab(t, "index.html")
	if got := evaluate(t, tab, "return navigator.webdriver"); got != false {
		t.Errorf("navigator.webdriver = %v on the first document", got)
	}
	act(t, tab, "navigate", map[string]any{"url": siteURL("form.html")})
	if got := evaluate(t, tab, "return [navigator.webdriver, Object.getOwnPropertyNames(navigator).includes('webdriver')]"); fmt.Sprint(got) != "[false false]" {
		t.Errorf("after navigate: [webdriver, own property] = %v", got)
	}
}

func TestExtractMarkdown(t *testing.T) {
	tab := openTab(t, "markdown.html")
	r := extract(t, tab)
	for _, want := range []string{
		"# Main heading",
		"[relative link](/docs/page.html)", // same origin: a path (docs/extension.md "Markdown rules")
		"**bold**",
		"- apple",
		"  1. nested one",
		"| Key | Value |",
		// A data table whose header cells hold headings and paragraphs.
		"| Plan | Price per month |\n| --- | --- |\n| Free | $0 |\n| Pro | $12 |",
		"## Scoped part",
	} {
		wantContains(t, "markdown", r.Markdown, want)
	}
	for _, gone := range []string{"NAVLINK", "FOOTERTEXT", "ASIDETEXT", "COOKIEBANNER", "STICKYBAR", "HIDDENTEXT"} {
		if strings.Contains(r.Markdown, gone) {
			t.Errorf("markdown keeps %s:\n%s", gone, r.Markdown)
		}
	}
	wantContains(t, "text", r.Text, "NAVLINK") // text is raw innerText
	if r.Title != "Markdown rules" || r.URL != siteURL("markdown.html") || r.CaptchaFrame {
		t.Errorf("title %q url %q captchaFrame %v", r.Title, r.URL, r.CaptchaFrame)
	}

	var scoped extractResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "selector": "#article"}, &scoped)
	if scoped.Markdown != "## Scoped part\n\nOnly this section.\n\nInside" {
		t.Errorf("scoped markdown = %q", scoped.Markdown)
	}
	if len(scoped.Elements) != 1 || scoped.Elements[0].Name != "Inside" || scoped.Elements[0].UID != "e0" {
		t.Errorf("scoped elements = %+v", scoped.Elements)
	}
	act(t, tab, "click", map[string]any{"uid": "e0"})
	wantError(t, map[string]any{"type": "extract", "tabId": tab, "selector": "#nope"}, "element_not_found")

	act(t, tab, "navigate", map[string]any{"url": siteURL("markdown.html?big=1")})
	big := extract(t, tab)
	if n := len([]rune(big.Text)); n > 51200 || n < 51000 {
		t.Errorf("text is %d chars, want just under the 51200 cap", n)
	}
	// The markdown stops at a block boundary within its 30 KB cap, and the
	// cut says how to read on: part 2 at the maxChars it names.
	var long protocol.ExtractResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &long)
	if n := len([]rune(long.Markdown)); n > 30720 || n < 15360 || !strings.HasSuffix(long.Markdown, "\n\n") || strings.Contains(long.Markdown, "truncated") {
		t.Errorf("markdown is %d chars ending %q, want a block boundary under the 30720 cap", n, long.Markdown[max(0, len(long.Markdown)-40):])
	}
	if c := long.BudgetCut; c == nil || c.MaxChars <= 30720 || c.Part != 1 || c.Parts < 2 {
		t.Fatalf("cut = %+v, want part 1 of more, with the maxChars to read on", long.BudgetCut)
	}
	var b strings.Builder
	render.Extract(&b, long, render.ExtractOptions{Terms: render.Agent})
	wantContains(t, "marker", b.String(), fmt.Sprintf("read on with part: 2 and maxChars: %d", long.BudgetCut.MaxChars))
	var next protocol.ExtractResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "maxChars": long.BudgetCut.MaxChars, "part": 2}, &next)
	if next.Markdown == "" || strings.Contains(long.Markdown, next.Markdown[:min(200, len(next.Markdown))]) {
		t.Errorf("part 2 repeats the read or is empty: %q", next.Markdown[:min(200, len(next.Markdown))])
	}
	wantContains(t, "text tail", big.Text[len(big.Text)-60:], "…[truncated")
}

func TestExtractCapsElementsAt200(t *testing.T) {
	tab := openTab(t, "many.html")
	r := extract(t, tab)
	if len(r.Elements) != 200 {
		t.Fatalf("%d elements, want 200", len(r.Elements))
	}
	for i, e := range r.Elements {
		if e.UID != fmt.Sprintf("e%d", i) {
			t.Fatalf("element %d has uid %s", i, e.UID)
		}
	}
	// Document order: button, link, input per row.
	if r.Elements[0].Name != "Button 0" || r.Elements[1].Name != "Link 0" || r.Elements[2].Role != "textbox" {
		t.Errorf("first elements: %+v", r.Elements[:3])
	}
	if r.Elements[3].Visible == nil || !*r.Elements[3].Visible {
		t.Errorf("visible missing on %+v", r.Elements[3])
	}
	act(t, tab, "click", map[string]any{"uid": "e195"}) // row 65's button
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "clicked 65" {
		t.Errorf("result = %q", got)
	}
}

func TestConcurrentActionsOnOneTabRunInOrder(t *testing.T) {
	tab := openTab(t, "input.html")
	evaluate(t, tab, "window.trace = []; return 0")
	const n = 5
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Each evaluate spans 150 ms of page time; if two ran at once
			// their start/end entries would interleave.
			expr := fmt.Sprintf("window.trace.push('s%d'); return new Promise(r => setTimeout(() => { window.trace.push('e%d'); r(%d) }, 150))", i, i, i)
			res, e, _ := request(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": expr})
			if e != nil {
				errs <- e.Code + ": " + e.Message
				return
			}
			var r struct {
				Value int `json:"value"`
			}
			if err := json.Unmarshal(res, &r); err != nil || r.Value != i {
				errs <- fmt.Sprintf("evaluate %d answered %s", i, res)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var trace []string
	raw := evalString(t, tab, "return JSON.stringify(window.trace)")
	if err := json.Unmarshal([]byte(raw), &trace); err != nil {
		t.Fatal(err)
	}
	if len(trace) != 2*n {
		t.Fatalf("trace = %v", trace)
	}
	for i := 0; i < len(trace); i += 2 {
		if trace[i][0] != 's' || trace[i+1] != "e"+trace[i][1:] {
			t.Fatalf("actions overlapped: %v", trace)
		}
	}
}

func TestScreenshotMinimizedWindow(t *testing.T) {
	// open_tab without focus puts the tab in the minimized, unfocused BUA
	// window, where a page may paint no frames on its own.
	res := openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL("long.html")})
	for _, full := range []bool{false, true} {
		var r struct {
			DataURL string `json:"dataUrl"`
			TabID   int    `json:"tabId"`
		}
		mustRequest(t, map[string]any{"type": "screenshot", "tabId": res.TabID, "fullPage": full}, &r)
		const prefix = "data:image/jpeg;base64,"
		if !strings.HasPrefix(r.DataURL, prefix) || r.TabID != res.TabID {
			t.Fatalf("fullPage=%v: dataUrl %.40q tabId %d", full, r.DataURL, r.TabID)
		}
		raw, err := base64.StdEncoding.DecodeString(r.DataURL[len(prefix):])
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("fullPage=%v: not a JPEG: %v", full, err)
		}
		b := img.Bounds()
		if b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("fullPage=%v: %v is too small", full, b)
		}
		if full && b.Dy() < 16000 {
			t.Errorf("full page of an ~18000 px page is only %d px tall", b.Dy())
		}
		if !full && b.Dy() > 4000 {
			t.Errorf("viewport shot is %d px tall", b.Dy())
		}
	}
}

// TestTypeFocusTargets: type focuses its target in the page, in the same
// call as its checks, and fails when focus does not take, as DOM.focus
// refused an element that cannot take it. Text lands where a person's
// focus would put it: a delegating shadow host's input, the field a
// wrapper hands focus to, a contenteditable element.
func TestTypeFocusTargets(t *testing.T) {
	tab := openTab(t, "focus.html")
	act(t, tab, "type", map[string]any{"selector": "#plain", "text": "one"})
	e := wantError(t, map[string]any{"type": "type", "tabId": tab, "selector": "#para", "text": "lost"}, "element_not_found")
	wantContains(t, "message", e.Message, "cannot take focus")
	act(t, tab, "type", map[string]any{"selector": "#delegating", "text": "in"})
	act(t, tab, "type", map[string]any{"selector": "#delegating", "text": "ner"}) // already focused inside it
	act(t, tab, "type", map[string]any{"selector": "#wrapper", "text": "handed"})
	act(t, tab, "type", map[string]any{"selector": "#editable", "text": "rich"})
	r := extract(t, tab)
	act(t, tab, "type", map[string]any{"uid": uidOf(t, r, "textbox", "Inner"), "text": "!"})
	got := evalString(t, tab, `return JSON.stringify([
		document.getElementById('plain').value,
		document.getElementById('delegating').shadowRoot.getElementById('inner').value,
		document.getElementById('real').value,
		document.getElementById('editable').textContent,
		document.body.innerText.includes('lost')])`)
	if want := `["one","inner!","handed","rich",false]`; got != want {
		t.Errorf("values = %s, want %s", got, want)
	}
}
