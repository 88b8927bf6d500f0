package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// hand is the test's own hand on a page of the managed browser: trusted
// input (Input.dispatchMouseEvent, Input.dispatchKeyEvent) through the
// browser's test-only DevTools port (harness.DevToolsChrome), as a person's
// mouse and keyboard give it. bua never uses that port; bua record must
// take this input as the person's.
type hand struct {
	t       *testing.T
	c       *harness.CDP
	target  string // the page's target id
	session string // its flat session
}

// newHand attaches to the page (or, with kind "iframe", the out-of-process
// frame) whose URL contains urlPart, waiting up to 10 s for it.
func newHand(t *testing.T, c *harness.CDP, kind, urlPart string) *hand {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		targets, err := c.Targets()
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			if tg.Type == kind && strings.Contains(tg.URL, urlPart) {
				s, err := c.Attach(tg.TargetID)
				if err != nil {
					t.Fatal(err)
				}
				return &hand{t: t, c: c, target: tg.TargetID, session: s}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s target at %s: %+v", kind, urlPart, targets)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval evaluates expr in the page's main world and returns its value.
func (h *hand) eval(expr string) any {
	h.t.Helper()
	v, err := h.tryEval(expr)
	if err != nil {
		h.t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// tryEval is eval that returns CDP's error: an evaluation the page's
// navigation cut short ("Inspected target navigated or closed", "Execution
// context was destroyed") fails this way, and a wait across the
// navigation asks again.
func (h *hand) tryEval(expr string) (any, error) {
	h.t.Helper()
	raw, err := h.c.Call(h.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Exception != nil {
		h.t.Fatalf("eval %s: %v %+v", expr, err, r.Exception)
	}
	return r.Result.Value, nil
}

// waitFor polls expr until it is true (10 s at most), across a
// navigation: an evaluation the page's navigation cut short is asked
// again.
func (h *hand) waitFor(expr string) {
	h.t.Helper()
	var lastErr error
	for end := time.Now().Add(10 * time.Second); ; {
		v, err := h.tryEval(expr)
		if err == nil && v == true {
			return
		}
		lastErr = err
		if time.Now().After(end) {
			h.t.Fatalf("never true: %s (last error: %v)", expr, lastErr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// center is the viewport point at the middle of the element sel names,
// in this page's own coordinates; inFrame adds the offset of the iframe
// (in the page above, the top page) that holds this document.
func (h *hand) center(sel string) (float64, float64) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf(`Boolean(document.querySelector(%q))`, sel))
	v := h.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel)).([]any)
	return v[0].(float64), v[1].(float64)
}

// frameOrigin is where the content of the iframe sel names starts in this
// page's viewport.
func (h *hand) frameOrigin(sel string) (float64, float64) {
	h.t.Helper()
	v := h.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); const r = e.getBoundingClientRect(); return [r.x + e.clientLeft, r.y + e.clientTop]; })()`, sel)).([]any)
	return v[0].(float64), v[1].(float64)
}

// clickAt presses and releases the left button at x, y as a person does,
// with modifiers (CDP's bitmask: Alt 1, Shift 8) held, a moment between
// press and release.
func (h *hand) clickAt(x, y float64, modifiers int) {
	h.t.Helper()
	send := func(typ string) {
		p := map[string]any{"type": typ, "x": x, "y": y, "modifiers": modifiers}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		if _, err := h.c.Call(h.session, "Input.dispatchMouseEvent", p); err != nil {
			h.t.Fatalf("%s at %v,%v: %v", typ, x, y, err)
		}
	}
	send("mouseMoved")
	send("mousePressed")
	time.Sleep(80 * time.Millisecond) // a person's click lasts about this long
	send("mouseReleased")
}

// click clicks the middle of the element sel names.
func (h *hand) click(sel string) {
	h.t.Helper()
	x, y := h.center(sel)
	h.clickAt(x, y, 0)
}

// keys types text a key at a time, as a keyboard does.
func (h *hand) keys(text string) {
	h.t.Helper()
	for _, r := range text {
		s := string(r)
		for _, typ := range []string{"keyDown", "keyUp"} {
			p := map[string]any{"type": typ, "key": s}
			if typ == "keyDown" {
				p["text"] = s
			}
			if _, err := h.c.Call(h.session, "Input.dispatchKeyEvent", p); err != nil {
				h.t.Fatalf("type %q: %v", s, err)
			}
		}
	}
}

// press presses a named key: Enter, Tab, ArrowDown.
func (h *hand) press(key string) {
	h.t.Helper()
	codes := map[string]int{"Enter": 13, "Tab": 9, "ArrowDown": 40, "Escape": 27}
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		p := map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": codes[key]}
		if key == "Enter" && typ == "rawKeyDown" {
			p["type"], p["text"] = "keyDown", "\r"
		}
		if _, err := h.c.Call(h.session, "Input.dispatchKeyEvent", p); err != nil {
			h.t.Fatalf("press %s: %v", key, err)
		}
	}
}

// chooseFiles sets the files of the file input sel as the person's file
// chooser does (DOM.setFileInputFiles: the browser fires input and change,
// trusted, as after the dialog).
func (h *hand) chooseFiles(sel string, paths ...string) {
	h.t.Helper()
	raw, err := h.c.Call(h.session, "Runtime.evaluate", map[string]any{"expression": fmt.Sprintf("document.querySelector(%q)", sel)})
	if err != nil {
		h.t.Fatalf("find %s: %v", sel, err)
	}
	var r struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Result.ObjectID == "" {
		h.t.Fatalf("no element %s: %v %s", sel, err, raw)
	}
	if _, err := h.c.Call(h.session, "DOM.setFileInputFiles", map[string]any{"files": paths, "objectId": r.Result.ObjectID}); err != nil {
		h.t.Fatalf("choose files for %s: %v", sel, err)
	}
}
