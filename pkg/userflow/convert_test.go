package userflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
)

// convertJSON converts a recording given as JSON, and checks that the flow
// loads as `bua lint` loads it.
func convertJSON(t *testing.T, js string) (*Result, string) {
	t.Helper()
	rec, err := Parse(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Convert(rec, Options{From: "test.json"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(path, res.YAML, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Load(path); err != nil {
		t.Fatalf("the flow does not load: %v\n%s", err, res.YAML)
	}
	return res, string(res.YAML)
}

func wantIn(t *testing.T, flow string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(flow, p) {
			t.Errorf("the flow lacks %q:\n%s", p, flow)
		}
	}
}

func problems(r Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// TestTargets: a target first met right after an input is the tab it
// opened (named through the input's newTabId, its URL waited for); one met
// otherwise is an iframe of the page, named by its URL's path.
func TestTargets(t *testing.T) {
	res, flow := convertJSON(t, `{"title": "targets", "steps": [
		{"type": "navigate", "url": "https://shop.example/cart"},
		{"type": "click", "selectors": [["#help"]], "offsetX": 1, "offsetY": 1},
		{"type": "click", "target": "https://shop.example/help?topic=pay", "selectors": [["aria/Close[role=\"button\"]"]], "offsetX": 1, "offsetY": 1},
		{"type": "close", "target": "https://shop.example/help?topic=pay"},
		{"type": "click", "target": "https://pay.example/card", "selectors": [["#number"]], "offsetX": 1, "offsetY": 1}
	]}`)
	if len(res.Report.Problems) != 0 {
		t.Errorf("problems:\n%s", problems(res.Report))
	}
	wantIn(t, flow,
		"- click: {selector: '#help'}\n    as: tab_1\n",
		`- wait_for: {url: "${{ vars.base }}/help?topic=pay", tabId: "${{ tab_1.newTabId }}"}`,
		`- click: {role: button, name: Close, tabId: "${{ tab_1.newTabId }}"}`,
		`- close_tab: "${{ tab_1.newTabId }}"`,
		"taken as an iframe of the page",
		"- click: {selector: '#number', frame: /card}")
}

// TestFrames: a step in a frame named by its index path takes a role
// target (looked up in every frame); a CSS selector there is a problem
// until a navigation in that frame gives its URL.
func TestFrames(t *testing.T) {
	res, flow := convertJSON(t, `{"title": "frames", "steps": [
		{"type": "navigate", "url": "https://a.example/"},
		{"type": "click", "frame": [0], "selectors": [["aria/Next[role=\"link\"]"]], "offsetX": 1, "offsetY": 1,
		 "assertedEvents": [{"type": "navigation", "url": "https://a.example/step2.html", "title": ""}]},
		{"type": "click", "frame": [0], "selectors": [["#go"]], "offsetX": 1, "offsetY": 1},
		{"type": "click", "frame": [1], "selectors": [["#other"]], "offsetX": 1, "offsetY": 1}
	]}`)
	wantIn(t, flow,
		"- click: {role: link, name: Next}",
		"- wait_for: {selector: ':root', frame: /step2.html, state: attached}",
		"- click: {selector: '#go', frame: /step2.html}",
		"- click: {selector: '#other'}")
	if p := problems(res.Report); !strings.Contains(p, "step 4 (click): frame [1] is named by its index") || strings.Count(p, "\n") != 1 {
		t.Errorf("problems:\n%s", p)
	}
	if len(res.Report.Notes) == 0 || res.Report.Notes[0].What != "frame index paths" {
		t.Errorf("notes = %v", res.Report.Notes)
	}
}

// TestKeys: a keyDown and its keyUp are one press_key, with the modifiers
// held around them as a chord; what press_key cannot do is reported.
func TestKeys(t *testing.T) {
	res, flow := convertJSON(t, `{"title": "keys", "steps": [
		{"type": "keyDown", "key": "Shift"},
		{"type": "keyDown", "key": "Tab"},
		{"type": "keyUp", "key": "Tab"},
		{"type": "keyUp", "key": "Shift"},
		{"type": "keyDown", "key": "Enter"},
		{"type": "keyUp", "key": "Enter"},
		{"type": "keyDown", "key": "Control"},
		{"type": "keyUp", "key": "Control"},
		{"type": "keyDown", "key": "CapsLock"},
		{"type": "keyUp", "key": "CapsLock"},
		{"type": "keyDown", "key": "a"},
		{"type": "change", "selectors": [["textarea"]], "value": "x"},
		{"type": "keyUp", "key": "a"}
	]}`)
	wantIn(t, flow, "- press_key: Shift+Tab\n", "- press_key: Enter\n")
	p := problems(res.Report)
	for _, want := range []string{
		"step 8 (keyUp): Control is pressed alone",
		`step 9 (keyDown): press_key has no key "CapsLock"`,
		`step 11 (keyDown): keyDown "a" is not followed by its keyUp`,
		`step 13 (keyUp): keyUp "a" has no keyDown right before it`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("problems lack %q:\n%s", want, p)
		}
	}
	if got := res.Report.Mapped(); got != 8 {
		t.Errorf("mapped = %d of %d, want 8 (the Shift+Tab four, Enter's two, Control's keyDown, the change)", got, res.Report.Steps)
	}
}

// TestChange: a change is one step: select_option when a selector says
// <select>, else type with clear, which fills a field no one types into
// (a <select> the selectors do not reveal, a date) as the Recorder's
// replay does; never an evaluate with guarded steps after it. A password
// never shows in the flow.
func TestChange(t *testing.T) {
	res, flow := convertJSON(t, `{"title": "change", "steps": [
		{"type": "navigate", "url": "https://a.example/form"},
		{"type": "change", "selectors": [["div > select.size"]], "value": "L"},
		{"type": "change", "selectors": [["aria/Colours[role=\"listbox\"]"]], "value": "red"},
		{"type": "change", "selectors": [["aria/Note[role=\"textbox\"]"], ["#note"]], "value": "hello"},
		{"type": "change", "selectors": [["#pwd"]], "value": "s3cr3t-Pa55"},
		{"type": "change", "selectors": [["aria/Search[role=\"combobox\"]"], ["#q"]], "value": "shoes"}
	]}`)
	if len(res.Report.Problems) != 0 {
		t.Errorf("problems:\n%s", problems(res.Report))
	}
	wantIn(t, flow,
		"- select_option: {selector: div > select.size, value: [L]}",
		"- select_option: {role: listbox, name: Colours, value: [red]}",
		"- type: {role: textbox, name: Note, text: hello, clear: true}",
		`- type: {selector: '#pwd', text: "${{ vars.password }}", clear: true}`,
		"  - type: {role: combobox, name: Search, text: shoes, clear: true}\n")
	for _, never := range []string{"evaluate", "change_"} {
		if strings.Contains(flow, never) {
			t.Errorf("the flow has %q: want one step per change\n%s", never, flow)
		}
	}
	if strings.Contains(flow, "s3cr3t") {
		t.Errorf("the password is in the flow:\n%s", flow)
	}
	if len(res.Env) != 1 || res.Env[0].Name != "BUA_PASSWORD" {
		t.Errorf("env = %+v, want BUA_PASSWORD", res.Env)
	}
}

// TestWaitForElement: the plain presence wait is a wait_for (attributes as
// CSS attribute selectors, visible false as detached, text/ as a text
// wait); a count, an operator or properties poll in a page script.
func TestWaitForElement(t *testing.T) {
	res, flow := convertJSON(t, `{"title": "waits", "timeout": 3000, "steps": [
		{"type": "waitForElement", "selectors": [["#a"]], "attributes": {"data-state": "open", "aria-busy": "false"}},
		{"type": "waitForElement", "selectors": [["aria/Saved[role=\"status\"]"]], "visible": false},
		{"type": "waitForElement", "selectors": [["text/Thank you"]]},
		{"type": "waitForElement", "selectors": [["li.item"]], "operator": "<=", "count": 3, "timeout": 20000},
		{"type": "waitForElement", "selectors": [["aria/Rows[role=\"grid\"]"]], "count": 2}
	]}`)
	wantIn(t, flow,
		"defaults: {timeout: 3s}",
		`- wait_for: {selector: '#a[aria-busy="false"][data-state="open"]', state: attached, timeoutMs: 3000}`,
		"- wait_for: {role: status, name: Saved, state: detached, timeoutMs: 3000}",
		"- wait_for: {text: Thank you, state: visible, timeoutMs: 3000}",
		`const els = [...document.querySelectorAll("li.item")];`,
		"return els.length <= 3;",
		"const until = Date.now() + 9000;",
		"timeout: 14s",
		"- assert: wait_4.value == true")
	p := problems(res.Report)
	if !strings.Contains(p, "step 5 (waitForElement): its condition (count >= 2) needs a page script") || strings.Count(p, "\n") != 1 {
		t.Errorf("problems:\n%s", p)
	}
	if len(res.Report.Notes) != 1 || res.Report.Notes[0].What != "waits over 9 s" {
		t.Errorf("notes = %v", res.Report.Notes)
	}
}
