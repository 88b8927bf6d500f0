//go:build linux

package person

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/extension"
)

// devtools dials the person's browser over the test's own DevTools port;
// the connection closes when t ends. Each test has its own, so one test's
// half-read answer never reaches another.
func devtools(t *testing.T) *harness.CDP {
	t.Helper()
	u, err := harness.DevToolsURL(profile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := harness.DialCDP(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// workerOf is the extension's service worker target, when it runs.
func workerOf(c *harness.CDP) (harness.Target, bool) {
	ts, err := c.Targets()
	if err != nil {
		return harness.Target{}, false
	}
	for _, tg := range ts {
		if tg.Type == "service_worker" && strings.HasPrefix(tg.URL, extension.Origin+"/") {
			return tg, true
		}
	}
	return harness.Target{}, false
}

// manifestPage is a page the written manifest names, as a chrome-extension://
// URL: options_ui.page for the options page, action.default_popup for the
// popup. Read at run time, so the test follows the pages wherever the
// extension keeps them. "" when the manifest names none.
func manifestPage(t *testing.T, which string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(extDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		OptionsUI struct {
			Page string `json:"page"`
		} `json:"options_ui"`
		Action struct {
			DefaultPopup string `json:"default_popup"`
		} `json:"action"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	p := map[string]string{"options": m.OptionsUI.Page, "popup": m.Action.DefaultPopup}[which]
	if p == "" {
		return ""
	}
	return extension.Origin + "/" + strings.TrimPrefix(p, "/")
}

// optionsURL is the options page's URL from the manifest.
func optionsURL(t *testing.T) string {
	t.Helper()
	u := manifestPage(t, "options")
	if u == "" {
		t.Fatal("the extension's manifest names no options_ui.page")
	}
	return u
}

// page is one tab of the person's browser, driven over the test's CDP.
type page struct {
	t       *testing.T
	c       *harness.CDP
	target  string
	session string
}

// newPage opens url in a new tab (Target.createTarget with opts, e.g.
// {"newWindow": true} or {"background": true}) and attaches to it; the tab
// is closed when t ends.
func newPage(t *testing.T, c *harness.CDP, url string, opts map[string]any) *page {
	t.Helper()
	params := map[string]any{"url": url}
	for k, v := range opts {
		params[k] = v
	}
	res, err := c.Call("", "Target.createTarget", params)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &created); err != nil {
		t.Fatal(err)
	}
	sess, err := c.Attach(created.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	p := &page{t: t, c: c, target: created.TargetID, session: sess}
	t.Cleanup(func() { c.Call("", "Target.closeTarget", map[string]any{"targetId": created.TargetID}) })
	p.waitTrue(15*time.Second, `document.readyState === "complete" && location.href !== "about:blank"`)
	return p
}

// eval evaluates expr in the page (promises awaited) and returns its value.
func (p *page) eval(expr string) any {
	p.t.Helper()
	v, err := p.tryEval(expr)
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func (p *page) tryEval(expr string) (any, error) {
	res, err := p.c.Call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		return nil, &evalError{r.ExceptionDetails.Text + " " + r.ExceptionDetails.Exception.Description}
	}
	return r.Result.Value, nil
}

type evalError struct{ msg string }

func (e *evalError) Error() string { return e.msg }

// waitTrue polls expr until it is true, failing t after d.
func (p *page) waitTrue(d time.Duration, expr string) {
	p.t.Helper()
	var last any
	var lastErr error
	if !poll(d, func() bool { last, lastErr = p.tryEval(expr); return last == true }) {
		p.t.Fatalf("%s stayed %v (%v) for %s", expr, last, lastErr, d)
	}
}

// str is eval's value as a string.
func (p *page) str(expr string) string {
	p.t.Helper()
	s, _ := p.eval(expr).(string)
	return s
}

// fill types text into the field sel as a person does: focus it, select
// what is there, and insert the text as real input (Input.insertText,
// which fires the page's input events), replacing the selection.
func (p *page) fill(sel, text string) {
	p.t.Helper()
	p.eval(`(() => { const el = ` + query(sel) + `; el.focus(); el.select(); return true })()`)
	if _, err := p.c.Call(p.session, "Input.insertText", map[string]any{"text": text}); err != nil {
		p.t.Fatalf("type into %s: %v", sel, err)
	}
	if got := p.str(`document.querySelector(` + jsString(sel) + `).value`); got != text {
		p.t.Fatalf("%s holds %q after typing %q", sel, got, text)
	}
}

// click clicks the middle of sel with a real mouse press and release.
func (p *page) click(sel string) {
	p.t.Helper()
	box, _ := p.eval(`(() => { const el = ` + query(sel) + `; el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] })()`).([]any)
	if len(box) != 2 {
		p.t.Fatalf("no box for %s", sel)
	}
	x, y := box[0].(float64), box[1].(float64)
	_, err := p.c.CallAll(p.session, []harness.CDPCmd{
		{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mouseMoved", "x": x, "y": y}},
		{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mousePressed", "x": x, "y": y, "button": "left", "clickCount": 1}},
		{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mouseReleased", "x": x, "y": y, "button": "left", "clickCount": 1}},
	})
	if err != nil {
		p.t.Fatalf("click %s: %v", sel, err)
	}
}

// front makes the page its window's active tab and the window the focused
// one, as a person clicking the tab does.
func (p *page) front() {
	p.t.Helper()
	if _, err := p.c.Call(p.session, "Page.bringToFront", nil); err != nil {
		p.t.Fatal(err)
	}
}

// png captures the page's viewport as width×height CSS px, as a PNG.
func (p *page) png(width, height int) []byte {
	p.t.Helper()
	_, err := p.c.Call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false})
	if err != nil {
		p.t.Fatal(err)
	}
	res, err := p.c.Call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		p.t.Fatal(err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	json.Unmarshal(res, &shot)
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(data) == 0 {
		p.t.Fatalf("screenshot: %v (%d bytes)", err, len(data))
	}
	return data
}

// query is a JavaScript expression for the element sel matches, which
// throws, naming sel, when nothing does.
func query(sel string) string {
	return `(document.querySelector(` + jsString(sel) + `) || (() => { throw new Error("no element matches " + ` + jsString(sel) + `) })())`
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// extProbe opens an extension page in a background tab, from which a
// test reads what only the extension can see (chrome.windows,
// chrome.storage.local) without taking the person's focus.
func extProbe(t *testing.T, c *harness.CDP) *page {
	t.Helper()
	return newPage(t, c, optionsURL(t), map[string]any{"background": true})
}
