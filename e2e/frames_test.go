package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/e2e/harness"
)

// These tests prove frames in real Chromium: extract lists the elements of
// a same-origin iframe and of a cross-site one (out of process, reached
// through its own debugger target), each with its frame's URL; click,
// type, hover and wait_for reach them by uid and by selector + frame.
//
// The fixture testdata/sites/frames/page.html, served on 127.0.0.1, holds
// a same-origin frame (same.html) and a payment form served from
// localhost (pay.html), another site, which site isolation puts in its
// own renderer process.

// frameElement is one extract element with its frame.
type frameElement struct {
	UID     string `json:"uid"`
	Role    string `json:"role"`
	Name    string `json:"name"`
	Value   string `json:"value"`
	Visible bool   `json:"visible"`
	Frame   string `json:"frame"`
}

type frameExtract struct {
	Markdown      string         `json:"markdown"`
	Elements      []frameElement `json:"elements"`
	ElementsTotal int            `json:"elementsTotal"`
}

func extractFrames(t *testing.T, tab int) frameExtract {
	t.Helper()
	var r frameExtract
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	return r
}

// find returns the element with role and name, failing the test when
// extract did not list it.
func (r frameExtract) find(t *testing.T, role, name string) frameElement {
	t.Helper()
	for _, e := range r.Elements {
		if e.Role == role && e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s %q among %d elements: %+v", role, name, len(r.Elements), r.Elements)
	return frameElement{}
}

// openCheckout opens the fixture and waits until both frames have their
// content: the payment form through wait_for with frame, which itself
// waits for a frame that is not there yet.
func openCheckout(t *testing.T) int {
	t.Helper()
	tab := openTab(t, "frames/page.html")
	act(t, tab, "wait_for", map[string]any{"selector": "#card", "frame": "pay"})
	act(t, tab, "wait_for", map[string]any{"selector": "#wrap", "frame": "notes"})
	return tab
}

// payURL is the payment frame's URL: the fixture server under localhost.
func payURL() string { return hostURL("localhost", "frames/pay.html") }

// TestFrames_CrossSiteFrameIsOutOfProcess: Chromium itself (its DevTools
// target list, read on the browser's own socket) shows the payment form
// as a target of type iframe, a renderer of its own, and the same-origin
// frame as none: so what the other tests reach is really out of process.
func TestFrames_CrossSiteFrameIsOutOfProcess(t *testing.T) {
	openCheckout(t)
	c, err := harness.DialCDP(devToolsURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	targets, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	var pay, same int
	for _, ti := range targets {
		if ti.Type == "iframe" && ti.URL == payURL() {
			pay++
		}
		if strings.HasSuffix(ti.URL, "/frames/same.html") {
			same++
		}
	}
	if pay != 1 || same != 0 {
		t.Fatalf("out-of-process targets: %d for %s (want 1), %d for same.html (want 0); targets %+v", pay, payURL(), same, targets)
	}
}

// TestFrames_Extract: the elements of both frames are listed after
// (same-origin: in place of) their iframe, each with its frame's URL;
// main-frame elements carry none. Markdown holds the same-origin frame's
// text under a frame marker, and not the cross-site frame's.
func TestFrames_Extract(t *testing.T) {
	tab := openCheckout(t)
	r := extractFrames(t, tab)
	for _, tt := range []struct{ role, name, frame string }{
		{"textbox", "Note", siteURL("frames/same.html")},
		{"button", "Add gift wrap", siteURL("frames/same.html")},
		{"textbox", "Name on card", payURL()},
		{"textbox", "Card number", payURL()},
		{"button", "Pay now", payURL()},
	} {
		if e := r.find(t, tt.role, tt.name); e.Frame != tt.frame || !e.Visible {
			t.Errorf("%s %q: frame %q visible %v, want frame %q visible", tt.role, tt.name, e.Frame, e.Visible, tt.frame)
		}
	}
	if len(r.Elements) != 5 || r.ElementsTotal != 5 {
		t.Errorf("%d elements (total %d), want 5: %+v", len(r.Elements), r.ElementsTotal, r.Elements)
	}
	wantContains(t, "markdown", r.Markdown, "[frame: /frames/same.html]\n\nGift wrap is free this week.")
	wantContains(t, "markdown", r.Markdown, "Your order: one book.")
	if strings.Contains(r.Markdown, "Card number") || strings.Contains(r.Markdown, "localhost") {
		t.Errorf("markdown shows the cross-site frame:\n%s", r.Markdown)
	}

	// The cap counts the frames' elements too.
	var capped frameExtract
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "maxElements": 3}, &capped)
	if len(capped.Elements) != 3 || capped.ElementsTotal != 5 {
		t.Errorf("maxElements 3: %d elements (total %d), want 3 of 5", len(capped.Elements), capped.ElementsTotal)
	}

	// A hidden iframe's content is left out, as the accessibility tree
	// leaves it out, out of process or not.
	evaluate(t, tab, "document.getElementById('pay').style.display = 'none'; document.getElementById('notes').style.display = 'none'; return true")
	hidden := extractFrames(t, tab)
	if len(hidden.Elements) != 0 || hidden.ElementsTotal != 0 {
		t.Errorf("with both iframes hidden: %+v (total %d), want none", hidden.Elements, hidden.ElementsTotal)
	}
}

// TestFrames_ActByUID fills and submits the cross-site payment form by
// uid, and the same-origin frame's note: trusted input lands in the frame
// (the form's own click listener sees isTrusted), and the page hears it.
func TestFrames_ActByUID(t *testing.T) {
	tab := openCheckout(t)
	r := extractFrames(t, tab)
	act(t, tab, "type", map[string]any{"uid": r.find(t, "textbox", "Name on card").UID, "text": "Ada"})
	act(t, tab, "type", map[string]any{"uid": r.find(t, "textbox", "Card number").UID, "text": "4242 4242 4242 4242"})
	act(t, tab, "hover", map[string]any{"uid": r.find(t, "button", "Pay now").UID})
	act(t, tab, "click", map[string]any{"uid": r.find(t, "button", "Pay now").UID})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid Ada 4242 (trusted click)")

	act(t, tab, "wait_for", map[string]any{"uid": r.find(t, "textbox", "Note").UID})
	act(t, tab, "type", map[string]any{"uid": r.find(t, "textbox", "Note").UID, "text": "bows"})
	act(t, tab, "click", map[string]any{"uid": r.find(t, "button", "Add gift wrap").UID})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "wrap bows" {
		t.Fatalf("after the same-origin frame's click: %q", got)
	}
	// The frame's own status shows what was typed there.
	after := extractFrames(t, tab)
	if e := after.find(t, "textbox", "Card number"); e.Value != "4242 4242 4242 4242" {
		t.Errorf("card number value %q", e.Value)
	}
}

// TestFrames_ActByRole: a role target with frame is looked up in that
// frame's accessibility tree: the cross-site form (the frame's own
// session) and the same-origin notes frame; the same name in the page
// does not count, and a name the frame lacks says what it has.
func TestFrames_ActByRole(t *testing.T) {
	tab := openCheckout(t)
	act(t, tab, "wait_for", map[string]any{"role": "button", "name": "Pay now", "frame": "pay"})
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Name on card", "frame": "pay", "text": "Lin"})
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Card number", "frame": "pay", "text": "1881"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Pay now", "frame": "pay"})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid Lin 1881 (trusted click)")
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Note", "frame": "notes", "text": "tape"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Add gift wrap", "frame": "notes"})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "wrap tape" {
		t.Fatalf("after the same-origin frame's click by role: %q", got)
	}
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "role": "button", "name": "Refund", "frame": "pay"}, "element_not_found")
	wantContains(t, "message", e.Message, `role button named "Refund" in frame "pay"; its button elements are named "Pay now"`)

	// In a background tab, which never answers queryAXTree, the frame's
	// whole tree is read instead: the same elements are found.
	openTab(t, "blank.html")
	if v := evalString(t, tab, "return document.visibilityState"); v != "hidden" {
		t.Fatalf("the checkout tab is %s behind another tab, want hidden", v)
	}
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Name on card", "frame": "pay", "text": "Bo"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Pay now", "frame": "pay"})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid LinBo 1881 (trusted click)")
	act(t, tab, "click", map[string]any{"role": "button", "name": "Add gift wrap", "frame": "notes"})
	e = wantError(t, map[string]any{"type": "click", "tabId": tab, "role": "button", "name": "Refund", "frame": "pay"}, "element_not_found")
	wantContains(t, "message", e.Message, `its button elements are named "Pay now"`)
}

// TestFrames_RoleWithoutFrame: a role target without frame is looked up
// in the main frame and, when it has no match there, in every frame (as
// extract lists them all): the cross-site form's button and fields (out of
// process) and the same-origin notes frame's are reached with no frame
// given, in a shown tab and in a background one; a role the page has in
// two frames is invalid_action naming both; a match in the main frame
// wins over the frames'.
func TestFrames_RoleWithoutFrame(t *testing.T) {
	tab := openCheckout(t)
	act(t, tab, "wait_for", map[string]any{"role": "button", "name": "Pay now"})
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Name on card", "text": "Ada"})
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Card number", "text": "1815"})
	act(t, tab, "hover", map[string]any{"role": "button", "name": "Pay now"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Pay now"})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid Ada 1815 (trusted click)")
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Note", "text": "bow"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Add gift wrap"})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "wrap bow" {
		t.Fatalf("after the same-origin frame's click by role: %q", got)
	}

	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "role": "button"}, "invalid_action")
	wantContains(t, "message", e.Message, "role button matches elements in 2 frames and none in the main frame")
	wantContains(t, "message", e.Message, `button "Add gift wrap" <button#wrap> in frame "`+siteURL("frames/same.html")+`"`)
	wantContains(t, "message", e.Message, `button "Pay now" <button#paybtn> in frame "`+payURL()+`"`)
	e = wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "role": "textbox"}, "invalid_action")
	wantContains(t, "message", e.Message, "role textbox matches elements in 2 frames")
	e = wantError(t, map[string]any{"type": "click", "tabId": tab, "role": "button", "name": "Refund"}, "element_not_found")
	wantContains(t, "message", e.Message, `no element with role button named "Refund" in the page; its button elements are named "Add gift wrap", "Pay now"`)

	// In a background tab, which never answers queryAXTree, each frame's
	// whole tree is read instead: the same elements are found.
	openTab(t, "blank.html")
	if v := evalString(t, tab, "return document.visibilityState"); v != "hidden" {
		t.Fatalf("the checkout tab is %s behind another tab, want hidden", v)
	}
	act(t, tab, "type", map[string]any{"role": "textbox", "name": "Name on card", "text": "B"})
	act(t, tab, "click", map[string]any{"role": "button", "name": "Pay now"})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid AdaB 1815 (trusted click)")

	// The main frame's match wins: a "Pay now" button of the page's own.
	evaluate(t, tab, `const b = document.createElement('button'); b.textContent = 'Pay now';
		b.onclick = () => { document.getElementById('result').textContent = 'main pay'; };
		document.body.prepend(b); return true`)
	act(t, tab, "click", map[string]any{"role": "button", "name": "Pay now"})
	eventually(t, tab, "return document.getElementById('result').textContent", "main pay")

	// A cross-site frame in a cross-site frame: found in the inner one's
	// own session.
	nested := openTab(t, "frames/nested.html")
	act(t, nested, "wait_for", map[string]any{"role": "button", "name": "Pay now"})
	act(t, nested, "type", map[string]any{"role": "textbox", "name": "Card number", "text": "77"})
	act(t, nested, "click", map[string]any{"role": "button", "name": "Pay now"})
	eventually(t, nested, "return document.getElementById('result').textContent", "paid  77 (trusted click)")
}

// TestFrames_ActBySelector: a selector with frame (the iframe's name, or a
// part of its URL) reaches the same fields; a frame nobody has is
// element_not_found naming the frames there are; a selector missing in
// the frame is element_not_found, and wait_for times out on it.
func TestFrames_ActBySelector(t *testing.T) {
	tab := openCheckout(t)
	act(t, tab, "type", map[string]any{"selector": "#holder", "frame": "pay", "text": "Grace"})
	act(t, tab, "type", map[string]any{"selector": "#card", "frame": "localhost:", "text": "5555"})
	act(t, tab, "hover", map[string]any{"selector": "#paybtn", "frame": "pay.html"})
	act(t, tab, "click", map[string]any{"selector": "#paybtn", "frame": "pay"})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid Grace 5555 (trusted click)")
	act(t, tab, "type", map[string]any{"selector": "#note", "frame": "same.html", "text": "ribbon"})
	act(t, tab, "click", map[string]any{"selector": "#wrap", "frame": "notes"})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "wrap ribbon" {
		t.Fatalf("after the same-origin frame's click: %q", got)
	}

	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#paybtn", "frame": "nope"}, "element_not_found")
	wantContains(t, "message", e.Message, `no frame matches "nope"`)
	wantContains(t, "message", e.Message, payURL())
	e = wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#missing", "frame": "pay"}, "element_not_found")
	wantContains(t, "message", e.Message, `no element matches selector "#missing" in frame "pay"`)
	e = wantError(t, map[string]any{"type": "wait_for", "tabId": tab, "selector": "#missing", "frame": "pay", "timeoutMs": 300}, "timeout")
	wantContains(t, "message", e.Message, `selector "#missing" in frame "pay" still not visible after`)
}

// TestFrames_CoveredFrameIsNotClicked: "receives the hit" holds across the
// frame boundary: with an overlay of the page over the payment frame, a
// click on the frame's button waits and names the overlay; once it goes,
// the click lands.
func TestFrames_CoveredFrameIsNotClicked(t *testing.T) {
	tab := openCheckout(t)
	r := extractFrames(t, tab)
	pay := r.find(t, "button", "Pay now").UID
	evaluate(t, tab, `const d = document.createElement('div'); d.id = 'cover'; d.textContent = 'Please wait';
		const b = document.getElementById('pay').getBoundingClientRect();
		Object.assign(d.style, {position: 'absolute', left: b.left + 'px', top: (b.top + window.scrollY) + 'px', width: b.width + 'px', height: b.height + 'px', background: 'white'});
		document.body.appendChild(d); return true`)
	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "uid": pay}, "timeout", "--timeout", "2s")
	wantContains(t, "message", e.Message, `covered by div#cover "Please wait"`)
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "" {
		t.Fatalf("the covered frame was clicked: %q", got)
	}
	evaluate(t, tab, "document.getElementById('cover').remove(); return true")
	act(t, tab, "click", map[string]any{"uid": pay})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid   (trusted click)")
}

// TestShadowDOM_OpenRoot: an open shadow root's content is the page's:
// extract lists its button and shows its text, and a click by uid lands
// inside it.
func TestShadowDOM_OpenRoot(t *testing.T) {
	tab := openTab(t, "shadow.html")
	r := extractFrames(t, tab)
	b := r.find(t, "button", "Shadow button")
	if b.Frame != "" {
		t.Errorf("shadow button frame %q, want none", b.Frame)
	}
	wantContains(t, "markdown", r.Markdown, "Inside the shadow root.")
	act(t, tab, "click", map[string]any{"uid": b.UID})
	if got := evalString(t, tab, "return document.getElementById('result').textContent"); got != "shadow clicked" {
		t.Fatalf("after the click: %q", got)
	}
}

// Playwright's frames pages (testdata/sites/playwright/frames), with what
// its tests/page specs assert for them.

// "should have correct execution contexts" and "should work inside a
// frame locator" (frame-evaluate.spec.ts, locator-get.spec.ts): on
// one-frame.html the main frame has no text and the frame says "Hi, I'm
// frame".
func TestPlaywright_OneFrame(t *testing.T) {
	tab := openTab(t, "playwright/frames/one-frame.html")
	act(t, tab, "wait_for", map[string]any{"selector": "div", "frame": "frame.html"})
	if got := evalString(t, tab, "return document.body.textContent.trim()"); got != "" {
		t.Fatalf("main frame text %q, want empty", got)
	}
	r := extractFrames(t, tab)
	if want := "[frame: /playwright/frames/frame.html]\n\nHi, I'm frame"; strings.TrimSpace(r.Markdown) != want {
		t.Fatalf("markdown %q, want %q", r.Markdown, want)
	}
}

// "should handle nested frames" and "should stitch all frame snapshots"
// (frame-hierarchy.spec.ts, page-aria-snapshot-ai.spec.ts): nested-frames
// holds 2frames (two-frames.html, itself holding uno and dos) and aframe,
// each frame.html saying "Hi, I'm frame"; every frame is found by its
// name.
func TestPlaywright_NestedFrames(t *testing.T) {
	tab := openTab(t, "playwright/frames/nested-frames.html")
	for _, name := range []string{"uno", "dos", "aframe"} {
		act(t, tab, "wait_for", map[string]any{"selector": "div", "frame": name})
	}
	act(t, tab, "wait_for", map[string]any{"selector": "iframe[name=dos]", "frame": "2frames"})
	r := extractFrames(t, tab)
	if n := strings.Count(r.Markdown, "Hi, I'm frame"); n != 3 {
		t.Errorf("markdown holds %d frame texts, want 3:\n%s", n, r.Markdown)
	}
	want := "[frame: /playwright/frames/two-frames.html]\n\n[frame: /playwright/frames/frame.html]\n\nHi, I'm frame\n\n[frame: /playwright/frames/frame.html]\n\nHi, I'm frame\n\n[frame: /playwright/frames/frame.html]\n\nHi, I'm frame"
	if strings.TrimSpace(r.Markdown) != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", r.Markdown, want)
	}
	// The first frame that matches is the one searched: two-frames.html
	// holds frames but no div of its own.
	var res json.RawMessage
	res, e, _ := request(t, map[string]any{"type": "wait_for", "tabId": tab, "selector": "div", "frame": "two-frames", "timeoutMs": 300})
	if e == nil || e.Code != "timeout" {
		t.Fatalf("div in two-frames.html (which has none of its own): %s %+v", res, e)
	}
}

// TestFrames_Flow runs flows/frames-checkout.yaml: a flow fills and
// submits the cross-site payment form, by selector with frame and by uid.
func TestFrames_Flow(t *testing.T) {
	out, code, rep, _ := runFlow(t, "frames-checkout.yaml")
	if code != 0 || len(rep.Flows) != 1 || rep.Flows[0].Status != "passed" {
		t.Fatalf("bua run frames-checkout.yaml: exit %d\n%s", code, out)
	}
	var typed bool
	for _, s := range rep.Flows[0].Steps {
		if s.Kind == "type" && s.Params["frame"] == "pay" {
			typed = true
		}
	}
	if !typed {
		t.Errorf("the report shows no type step with frame pay: %+v", rep.Flows[0].Steps)
	}
}

// TestFrames_NestedOutOfProcess: the payment form from this site inside a
// wallet frame from another site (frames/nested.html): two out-of-process
// frames deep, its uids and its selector still land, the point placed
// through both frames' offsets.
func TestFrames_NestedOutOfProcess(t *testing.T) {
	tab := openTab(t, "frames/nested.html")
	act(t, tab, "wait_for", map[string]any{"selector": "#card", "frame": "inner"})
	r := extractFrames(t, tab)
	card := r.find(t, "textbox", "Card number")
	if card.Frame != siteURL("frames/pay.html") {
		t.Fatalf("card number frame %q, want %q", card.Frame, siteURL("frames/pay.html"))
	}
	act(t, tab, "type", map[string]any{"uid": card.UID, "text": "4242"})
	act(t, tab, "type", map[string]any{"selector": "#holder", "frame": "inner", "text": "Ada"})
	act(t, tab, "click", map[string]any{"uid": r.find(t, "button", "Pay now").UID})
	eventually(t, tab, "return document.getElementById('result').textContent", "paid Ada 4242 (trusted click)")
}
