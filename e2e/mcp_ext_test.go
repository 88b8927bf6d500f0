package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// The extension's side of what `bua mcp` gives an agent
// (docs/decisions/agent-answers.md), in real
// Chromium: extract's budget and parts, changes reads, set-of-marks
// screenshots, describe's locators and type's clear.

// send sends action (a map) on cl and decodes its result into out, failing
// the test on an error.
func send(t testing.TB, cl *bridge.Client, action map[string]any, out any) {
	t.Helper()
	raw, _ := json.Marshal(action)
	res := benchRequest(t, cl, string(raw))
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: result %s: %v", raw, res, err)
		}
	}
}

// actErr sends action and returns its protocol error (nil on success).
func actErr(t testing.TB, cl *bridge.Client, action map[string]any) *protocol.Error {
	t.Helper()
	raw, _ := json.Marshal(action)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := cl.RequestRaw(ctx, raw, false)
	return err
}

func openOn(t testing.TB, cl *bridge.Client, url string) int {
	t.Helper()
	var r openTabResult
	send(t, cl, map[string]any{"type": "open_tab", "url": url}, &r)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cl.RequestRaw(ctx, json.RawMessage(fmt.Sprintf(`{"type":"close_tab","tabId":%d}`, r.TabID)), false)
	})
	return r.TabID
}

func evalOn(t testing.TB, cl *bridge.Client, tab int, expression string) any {
	t.Helper()
	var r struct {
		Value any `json:"value"`
	}
	send(t, cl, map[string]any{"type": "evaluate", "tabId": tab, "expression": expression}, &r)
	return r.Value
}

// elementLine is an element's line as bua writes it (pkg/render), for
// counting the budget the way the extension must.
func elementLine(e protocol.Element) string {
	var b strings.Builder
	render.Elements(&b, []protocol.Element{e})
	return strings.TrimSuffix(b.String(), "\n")
}

// utf16Len counts as JavaScript does, which the budget uses.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// TestExtractBudget_PartsTile: on a long generated article, fixtures and
// real articles from the corpus, the parts of a budgeted read put back
// together are the page's whole markdown (no loss, no overlap) at every
// budget; each part with its element lines stays within maxChars; every
// part lists the elements inside it, and together they list every element
// of the page once; no part ends in the middle of a word; a page that fits
// one read gives exactly extract's own markdown, and a longer one stops at
// a block boundary with the maxChars whose part 2 reads on.
func TestExtractBudget_PartsTile(t *testing.T) {
	cl := benchClient(t)
	srv := httptest.NewServer(corpusHandler())
	defer srv.Close()
	pages := []string{siteURL("mcp/article.html"), siteURL("markdown.html"), siteURL("form.html"), siteURL("many.html")}
	hashes, _ := filepath.Glob(filepath.Join(corpusDir, "articles", "*.html.gz"))
	sort.Strings(hashes)
	for _, h := range hashes[:6] {
		pages = append(pages, srv.URL+"/"+strings.TrimSuffix(filepath.Base(h), ".gz"))
	}
	for _, url := range pages {
		t.Run(filepath.Base(url), func(t *testing.T) {
			tab := openOn(t, cl, url)
			var plain, every protocol.ExtractResult
			send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &plain)
			send(t, cl, map[string]any{"type": "extract", "tabId": tab, "maxElements": 5000}, &every)
			var whole string
			for _, budget := range []int{1000000, 40000, 6000, 1500} {
				var parts []string
				var listed []protocol.Element
				var first protocol.ExtractResult
				for p := 1; ; p++ {
					var r protocol.ExtractResult
					send(t, cl, map[string]any{"type": "extract", "tabId": tab, "maxChars": budget, "part": p}, &r)
					if p == 1 {
						first = r
					}
					shown := utf16Len(r.Markdown)
					for _, e := range r.Elements {
						shown += utf16Len(elementLine(e)) + 1
					}
					if shown > budget {
						t.Errorf("maxChars %d part %d: %d characters shown", budget, p, shown)
					}
					listed = append(listed, r.Elements...)
					parts = append(parts, r.Markdown)
					if r.BudgetCut == nil {
						if p != 1 {
							t.Fatalf("maxChars %d part %d has no cut", budget, p)
						}
						break
					}
					if r.BudgetCut.Part != p || r.BudgetCut.ShownChars != shown || (first.BudgetCut != nil && (r.BudgetCut.Parts != first.BudgetCut.Parts || r.BudgetCut.TotalChars != first.BudgetCut.TotalChars)) {
						t.Errorf("maxChars %d part %d: cut %+v, shown %d, part 1's %+v", budget, p, *r.BudgetCut, shown, first.BudgetCut)
					}
					if p < r.BudgetCut.Parts {
						if last := parts[p-1]; last != "" && !strings.ContainsAny(last[len(last)-1:], " \n") {
							t.Errorf("maxChars %d part %d ends mid-word: %q", budget, p, last[max(0, len(last)-30):])
						}
						continue
					}
					if e := actErr(t, cl, map[string]any{"type": "extract", "tabId": tab, "maxChars": budget, "part": p + 1}); e == nil || e.Code != protocol.CodeInvalidAction || !strings.Contains(e.Message, "past the end") {
						t.Errorf("maxChars %d part %d of %d: %v, want invalid_action past the end", budget, p+1, p, e)
					}
					break
				}
				got := strings.Join(parts, "")
				if whole == "" {
					whole = got
				} else if got != whole {
					t.Errorf("maxChars %d: the %d parts make %d characters, not the markdown's %d", budget, len(parts), len(got), len(whole))
				}
				// The parts list every element once, in order, each in its
				// part: as one read of them all (maxElements 5000) lists them.
				if len(listed) != len(every.Elements) {
					t.Errorf("maxChars %d: the parts list %d elements, the page has %d", budget, len(listed), len(every.Elements))
				}
				for i := range min(len(listed), len(every.Elements)) {
					if !reflect.DeepEqual(listed[i], every.Elements[i]) {
						t.Fatalf("maxChars %d: element %d is %+v, extract's is %+v", budget, i, listed[i], every.Elements[i])
					}
				}
			}
			if plain.BudgetCut == nil && whole != plain.Markdown {
				t.Errorf("the page fits one read, but its parts differ from extract's markdown:\n%q\n%q", whole[:min(200, len(whole))], plain.Markdown[:min(200, len(plain.Markdown))])
			}
			if c := plain.BudgetCut; c != nil {
				// A read past the 30 KB cap ends at a block boundary and
				// names the maxChars whose part 2 reads on from there.
				if c.MaxChars == 0 || c.Part != 1 || !strings.HasPrefix(whole, plain.Markdown) || !strings.HasSuffix(plain.Markdown, "\n\n") || utf16Len(plain.Markdown) > markdownMaxChars {
					t.Errorf("a long read: cut %+v, markdown ends %q", *c, plain.Markdown[max(0, len(plain.Markdown)-40):])
				}
				var next protocol.ExtractResult
				send(t, cl, map[string]any{"type": "extract", "tabId": tab, "maxChars": c.MaxChars, "part": 2}, &next)
				if plain.ElementsTotal <= len(plain.Elements) && !strings.HasPrefix(whole[len(plain.Markdown):], next.Markdown) {
					t.Errorf("part 2 at maxChars %d does not start where the read stopped: %q", c.MaxChars, next.Markdown[:min(80, len(next.Markdown))])
				}
			}
			if strings.HasSuffix(url, "article.html") {
				if utf16Len(whole) <= markdownMaxChars || !strings.Contains(whole, "## Section 40") || !strings.Contains(whole, "f35();") {
					t.Errorf("the article's parts (%d characters) lack its end, past one read's 30 KB", len(whole))
				}
			}
		})
	}
}

// markdownMaxChars is one extract's markdown cap (the schema's
// result.extract markdown maxLength).
const markdownMaxChars = 30720

type changesResult struct {
	URL     string                  `json:"url"`
	Changes protocol.ElementChanges `json:"changes"`
}

func uidNames(els []protocol.Element) []string {
	var out []string
	for _, e := range els {
		out = append(out, e.UID+" "+e.Name)
	}
	return out
}

// TestExtractChanges_RevealKeepsUids: after a click that reveals three
// buttons and takes one away, a changes read lists exactly the three, with
// uids that continue the tab's numbering, and the one gone; the uids of
// the first extract still click what they named; a full extract renumbers
// from e0; after a navigation every old uid is removed and the numbering
// goes on.
func TestExtractChanges_RevealKeepsUids(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("mcp/reveal.html"))
	var first protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &first)
	if got := strings.Join(uidNames(first.Elements), ", "); got != "e0 Show more, e1 Dismiss banner, e2 Order 1, e3 Order 2" {
		t.Fatalf("extract: %s", got)
	}
	var ch changesResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	if len(ch.Changes.Added)+len(ch.Changes.Removed) != 0 {
		t.Fatalf("changes right after extract: %+v", ch.Changes)
	}
	send(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e0"}, nil)
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	if got := strings.Join(uidNames(ch.Changes.Added), ", "); got != "e4 Open order 3, e5 Open order 4, e6 Open order 5" {
		t.Errorf("added: %s", got)
	}
	if got := strings.Join(ch.Changes.Removed, ","); got != "e1" {
		t.Errorf("removed: %q, want e1", got)
	}
	if !strings.HasSuffix(ch.URL, "mcp/reveal.html") {
		t.Errorf("url %q", ch.URL)
	}
	// The old uids still act on what they named, the new ones too.
	send(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e2"}, nil)
	if got := evalOn(t, cl, tab, "return document.getElementById('clicks').textContent"); got != "order 1" {
		t.Errorf("click e2 (from the first extract): %v, want order 1", got)
	}
	send(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e6"}, nil)
	if got := evalOn(t, cl, tab, "return document.getElementById('clicks').textContent"); got != "order 5" {
		t.Errorf("click e6 (from the changes read): %v, want order 5", got)
	}
	if e := actErr(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e1"}); e == nil || e.Code != protocol.CodeElementStale {
		t.Errorf("click e1 (removed): %v, want element_stale", e)
	}
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	if len(ch.Changes.Added)+len(ch.Changes.Removed) != 0 {
		t.Errorf("a second changes read: %+v, want nothing", ch.Changes)
	}
	// A full extract numbers from e0 in document order.
	var full protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &full)
	if got := strings.Join(uidNames(full.Elements), ", "); got != "e0 Show more, e1 Order 1, e2 Order 2, e3 Open order 3, e4 Open order 4, e5 Open order 5" {
		t.Errorf("full extract after: %s", got)
	}
	// A new document: all six gone, and its elements numbered on from e6.
	send(t, cl, map[string]any{"type": "navigate", "tabId": tab, "url": siteURL("mcp/reveal.html?again")}, nil)
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	if got := strings.Join(ch.Changes.Removed, ","); got != "e0,e1,e2,e3,e4,e5" {
		t.Errorf("removed after navigating: %q", got)
	}
	if got := strings.Join(uidNames(ch.Changes.Added), ", "); got != "e6 Show more, e7 Dismiss banner, e8 Order 1, e9 Order 2" {
		t.Errorf("added after navigating: %s", got)
	}
	send(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e8"}, nil)
	if got := evalOn(t, cl, tab, "return document.getElementById('clicks').textContent"); got != "order 1" {
		t.Errorf("click e8: %v, want order 1", got)
	}
}

// TestExtractChanges_Frames: the elements of a same-origin and of an
// out-of-process iframe keep their uids across changes reads (each frame's
// session keeps its own array), and a button added in the same-origin frame
// is the one element added.
func TestExtractChanges_Frames(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("frames/page.html"))
	var full protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &full)
	if len(full.Elements) < 5 {
		t.Fatalf("extract on frames/page.html: %v", uidNames(full.Elements))
	}
	var ch changesResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	if len(ch.Changes.Added)+len(ch.Changes.Removed) != 0 {
		t.Fatalf("changes with frames, nothing changed: %+v", ch.Changes)
	}
	evalOn(t, cl, tab, `const d = document.getElementById("notes").contentDocument; const b = d.createElement("button"); b.textContent = "Add a card"; d.body.appendChild(b); return 1`)
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, &ch)
	want := fmt.Sprintf("e%d Add a card", len(full.Elements))
	if got := strings.Join(uidNames(ch.Changes.Added), ", "); got != want || len(ch.Changes.Removed) != 0 || ch.Changes.Added[0].Frame == "" {
		t.Errorf("added %s (frame %q), removed %v; want %s in the frame", got, ch.Changes.Added[0].Frame, ch.Changes.Removed, want)
	}
	// The out-of-process frame's uid from the first extract still types.
	uid := ""
	for _, e := range full.Elements {
		if e.Name == "Card number" {
			uid = e.UID
		}
	}
	send(t, cl, map[string]any{"type": "type", "tabId": tab, "uid": uid, "text": "4242"}, nil)
}

// jpegOf decodes a screenshot result's image.
func jpegOf(t *testing.T, r protocol.ScreenshotResult) image.Image {
	t.Helper()
	b64, ok := strings.CutPrefix(r.DataURL, "data:image/jpeg;base64,")
	if !ok {
		t.Fatalf("dataUrl %.40q", r.DataURL)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// countChanged counts the pixels of the rectangle that differ clearly
// between two captures of the same page (more than JPEG's noise): where a
// mark was drawn.
func countChanged(a, b image.Image, x0, y0, x1, y1 int) int {
	n := 0
	for y := max(0, y0); y < min(y1, a.Bounds().Dy()); y++ {
		for x := max(0, x0); x < min(x1, a.Bounds().Dx()); x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := absDiff(r1>>8, r2>>8) + absDiff(g1>>8, g2>>8) + absDiff(b1>>8, b2>>8)
			if d > 150 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestScreenshotLabels: the labelled screenshot differs from the plain one
// where the marks are (a coloured tag over each element's box), on a tab
// with no extract (which gets its element pass, whose uids then click)
// and with fullPage (marks at page coordinates, far below the fold); the
// page sees no mutation and no layout shift, and holds no overlay after.
func TestScreenshotLabels(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("mcp/signin.html"))
	evalOn(t, cl, tab, `window.__mut = 0; new MutationObserver((m) => { window.__mut += m.length; }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
window.__shift = 0; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__shift += e.value; }).observe({ type: "layout-shift" });
window.__count = document.getElementsByTagName("*").length; return 1`)
	var plain, labelled protocol.ScreenshotResult
	send(t, cl, map[string]any{"type": "screenshot", "tabId": tab}, &plain)
	send(t, cl, map[string]any{"type": "screenshot", "tabId": tab, "labels": true}, &labelled)
	a, b := jpegOf(t, plain), jpegOf(t, labelled)
	if a.Bounds() != b.Bounds() {
		t.Fatalf("sizes differ: %v and %v", a.Bounds(), b.Bounds())
	}
	// The email field's mark: its outline and tag around its box.
	box := evalOn(t, cl, tab, `const r = document.querySelector("[name=email]").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom].map((v) => v * devicePixelRatio)`).([]any)
	x0, y0, x1, y1 := int(box[0].(float64)), int(box[1].(float64)), int(box[2].(float64)), int(box[3].(float64))
	if n, all := countChanged(a, b, x0-4, y0-24, x1+4, y1+4), countChanged(a, b, 0, 0, a.Bounds().Dx(), a.Bounds().Dy()); n < 150 || all > 40*n {
		t.Errorf("around the email field %d pixels changed, %d in the whole image; want a mark there", n, all)
	}
	// The form is 22em wide: right of it there is no element, so no mark.
	if n := countChanged(a, b, 480, 0, a.Bounds().Dx(), a.Bounds().Dy()); n > 0 {
		t.Errorf("%d pixels changed right of the form, where no element is", n)
	}
	st := evalOn(t, cl, tab, `return [window.__mut, window.__shift, document.getElementsByTagName("*").length - window.__count]`).([]any)
	if st[0].(float64) != 0 || st[1].(float64) != 0 || st[2].(float64) != 0 {
		t.Errorf("the page saw %v mutations, %v layout shift, %v more elements", st[0], st[1], st[2])
	}
	// The element pass numbered the page: its uids act.
	send(t, cl, map[string]any{"type": "click", "tabId": tab, "uid": "e6"}, nil)
	if got := evalOn(t, cl, tab, "return document.getElementById('status').textContent"); got != "signed in as old@example.com" {
		t.Errorf("click e6 (Sign in, numbered by the labels' element pass): status %q", got)
	}

	// A full page: the last of its 600 elements, listed all, far below the
	// fold (of the 1280x720 viewport), is marked at its place on the page.
	long := openOn(t, cl, siteURL("many.html"))
	var ex protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": long, "maxElements": 600}, &ex)
	var fp, fpl protocol.ScreenshotResult
	send(t, cl, map[string]any{"type": "screenshot", "tabId": long, "fullPage": true}, &fp)
	send(t, cl, map[string]any{"type": "screenshot", "tabId": long, "fullPage": true, "labels": true}, &fpl)
	pa, pb := jpegOf(t, fp), jpegOf(t, fpl)
	last := ex.Elements[len(ex.Elements)-1]
	at := evalOn(t, cl, long, fmt.Sprintf(`const e = [...document.querySelectorAll("button, a, input")].find((e) => (e.getAttribute("aria-label") || e.textContent) === %q); const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY, innerHeight]`, last.Name)).([]any)
	lx0, ly0, lx1, ly1 := int(at[0].(float64)), int(at[1].(float64)), int(at[2].(float64)), int(at[3].(float64))
	if ly0 < int(at[4].(float64)) || ly1 > pb.Bounds().Dy() {
		t.Fatalf("%s %q at %v, image %v: not below the fold in the image", last.UID, last.Name, at, pb.Bounds())
	}
	if n := countChanged(pa, pb, lx0-4, ly0-20, lx1+4, ly1+4); n < 100 {
		t.Errorf("around %s %q (page y %d): %d pixels changed, want its mark", last.UID, last.Name, ly0, n)
	}
}

// TestDescribe_SignIn: on a sign-in form whose ids are generated, describe
// gives each field and button a role and name locator first, unique,
// which a click with that role and name resolves to the same element a
// click by uid reaches; no locator uses a generated id; the password and
// one-time code fields say so; two links alike get nth; an element in an
// out-of-process iframe names its frame, and its role locator resolves
// there.
func TestDescribe_SignIn(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("mcp/signin.html"))
	var ex protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &ex)
	desc := map[string]protocol.DescribeResult{}
	for _, e := range ex.Elements {
		var d protocol.DescribeResult
		send(t, cl, map[string]any{"type": "describe", "tabId": tab, "uid": e.UID}, &d)
		desc[e.Name] = d
		for _, l := range d.Locators {
			for _, gen := range []string{":r1:", ":r3:", "r3", "ember1234", "a8f3k2q9x", "css-1x2y3z4"} {
				if strings.Contains(l.Selector, gen) {
					t.Errorf("%s: locator %+v uses the generated %q", e.Name, l, gen)
				}
			}
		}
	}
	if d := desc["Password"]; d.InputType != "password" || d.Autocomplete != "current-password" || d.Label != "Password" {
		t.Errorf("password field: %+v", d)
	}
	if d := desc["One-time code"]; d.Autocomplete != "one-time-code" {
		t.Errorf("one-time code field: %+v", d)
	}
	if d := desc["Email"]; d.InputType != "email" || d.Label != "Email" {
		t.Errorf("email field: %+v", d)
	}
	if d := desc["Sign in"]; len(d.Locators) < 2 || d.Locators[1].By != "testid" || d.Locators[1].Selector != `[data-testid="signin-submit"]` {
		t.Errorf("Sign in's locators: %+v", d.Locators)
	}
	for _, e := range ex.Elements {
		d := desc[e.Name]
		if e.Name == "Bio" {
			continue // a contenteditable <div>: Chromium's tree gives it no textbox role
		}
		if len(d.Locators) == 0 || d.Locators[0].By != "role" || d.Locators[0].Role != e.Role || d.Locators[0].Name != e.Name {
			t.Errorf("%s %q: first locator %+v, want role %s named %q", e.UID, e.Name, d.Locators, e.Role, e.Name)
			continue
		}
		l := d.Locators[0]
		if e.Name == "Help" {
			if l.Count != 2 || l.Nth == nil {
				t.Errorf("Help: %+v, want 2 matches with nth", l)
			}
		} else if l.Count != 1 {
			t.Errorf("%s: count %d, want 1", e.Name, l.Count)
		}
		// The role target reaches the element the uid reaches.
		reached := func(target map[string]any) string {
			evalOn(t, cl, tab, "window.clicked = []; return 1")
			target["type"], target["tabId"] = "click", tab
			send(t, cl, target, nil)
			v := evalOn(t, cl, tab, "return window.clicked.join('|')")
			return fmt.Sprint(v)
		}
		byRole := map[string]any{"role": l.Role, "name": l.Name}
		if l.Nth != nil {
			byRole["nth"] = *l.Nth
		}
		if a, b := reached(byRole), reached(map[string]any{"uid": e.UID}); a != b || a == "" {
			t.Errorf("%s: click by role reached %q, by uid %q", e.UID, a, b)
		}
	}

	// An element in the out-of-process frame.
	fr := openOn(t, cl, siteURL("frames/page.html"))
	var d protocol.DescribeResult
	send(t, cl, map[string]any{"type": "describe", "tabId": fr, "role": "textbox", "name": "Card number", "frame": "pay"}, &d)
	if d.Frame != "pay" || len(d.Locators) == 0 || d.Locators[0].By != "role" || d.Locators[0].Count != 1 {
		t.Fatalf("Card number in the pay frame: %+v", d)
	}
	send(t, cl, map[string]any{"type": "type", "tabId": fr, "role": "textbox", "name": "Card number", "frame": d.Frame, "text": "4242"}, nil)
}

// TestTypeClear: clear replaces a prefilled value in an input, a textarea
// and a contenteditable, firing input events (the delete, then the
// insert); an empty text just clears; an empty field gets no delete.
func TestTypeClear(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("mcp/signin.html"))
	events := func() string {
		v := evalOn(t, cl, tab, "const e = window.events.map((x) => x.field + ':' + x.type + '=' + x.value); window.events = []; return e.join('; ')")
		return fmt.Sprint(v)
	}
	value := func(sel string) any {
		return evalOn(t, cl, tab, fmt.Sprintf("const el = document.querySelector(%q); return el.value !== undefined ? el.value : el.textContent", sel))
	}
	tests := []struct {
		target     map[string]any
		text, sel  string
		wantEvents string
	}{
		{map[string]any{"selector": "[name=email]"}, "new@example.com", "[name=email]", "email:deleteContentForward=; email:insertText=new@example.com"},
		{map[string]any{"role": "textbox", "name": "Notes"}, "new note", "#notes", "Notes:deleteContentForward=; Notes:insertText=new note"},
		{map[string]any{"selector": "[aria-label=Bio]"}, "new bio", "[aria-label=Bio]", "Bio:deleteContentForward=; Bio:insertText=new bio"},
		{map[string]any{"selector": "[name=email]"}, "", "[name=email]", "email:deleteContentForward="},
		{map[string]any{"selector": "[name=email]"}, "again", "[name=email]", "email:insertText=again"},
	}
	for _, tt := range tests {
		a := map[string]any{"type": "type", "tabId": tab, "text": tt.text, "clear": true}
		for k, v := range tt.target {
			a[k] = v
		}
		send(t, cl, a, nil)
		if got := value(tt.sel); got != tt.text {
			t.Errorf("%v: value %q, want %q", tt.target, got, tt.text)
		}
		if got := events(); got != tt.wantEvents {
			t.Errorf("%v: input events %q, want %q", tt.target, got, tt.wantEvents)
		}
	}
	// Without clear, type still adds to what is there.
	send(t, cl, map[string]any{"type": "type", "tabId": tab, "selector": "[name=password]", "text": "abc"}, nil)
	send(t, cl, map[string]any{"type": "type", "tabId": tab, "selector": "[name=password]", "text": "def"}, nil)
	if got := value("[name=password]"); got != "abcdef" {
		t.Errorf("type without clear: %q, want abcdef", got)
	}
}

// cdp sends one command on sess and decodes its result into out.
func cdp(t *testing.T, c *harness.CDP, sess, method string, params map[string]any, out any) {
	t.Helper()
	res, err := c.Call(sess, method, params)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// remote is a CDP result holding a remote object or a value.
type remote struct {
	Result struct {
		ObjectID string `json:"objectId"`
		Value    string `json:"value"`
	} `json:"result"`
	Object struct {
		ObjectID string `json:"objectId"`
	} `json:"object"`
}

// axResolve finds the element a role target names, on the page's own
// DevTools session, by the lookup docs/extension.md §Role targets sets
// out (the reference the extension's role targets must agree with): the
// exact name asked of Chromium's tree first, and when that finds none,
// every element of the role with names compared after collapsing
// whitespace (describe writes a name that reads as /pattern/ as the exact
// pattern for it); ignored nodes skipped; the nth. It returns the
// element's data-e2e mark.
func axResolve(t *testing.T, c *harness.CDP, sess, role, name string, nth int) string {
	var doc remote
	cdp(t, c, sess, "Runtime.evaluate", map[string]any{"expression": "document"}, &doc)
	q := map[string]any{"objectId": doc.Result.ObjectID, "role": role}
	if alias := map[string]string{"img": "image", "directory": "list"}[role]; alias != "" {
		q["role"] = alias
	}
	if lit, ok := strings.CutPrefix(name, "/^"); ok && strings.HasSuffix(lit, "$/") {
		var b strings.Builder
		lit = strings.TrimSuffix(lit, "$/")
		for i := 0; i < len(lit); i++ {
			if lit[i] == '\\' && i+1 < len(lit) {
				i++
			}
			b.WriteByte(lit[i])
		}
		name = b.String()
	}
	hits := func(q map[string]any) []int {
		var r struct {
			Nodes []axNode `json:"nodes"`
		}
		cdp(t, c, sess, "Accessibility.queryAXTree", q, &r)
		var out []int
		for _, n := range r.Nodes {
			nm := ""
			if n.Name != nil {
				nm, _ = n.Name.Value.(string)
			}
			if n.Ignored || n.BackendDOMNodeID == 0 || (name != "" && strings.Join(strings.Fields(nm), " ") != name) {
				continue
			}
			out = append(out, n.BackendDOMNodeID)
		}
		return out
	}
	var found []int
	if name != "" {
		found = hits(map[string]any{"objectId": q["objectId"], "role": q["role"], "accessibleName": name})
	}
	if len(found) == 0 {
		found = hits(q)
	}
	if nth >= len(found) {
		return fmt.Sprintf("(none: %d matches)", len(found))
	}
	var obj, mark remote
	cdp(t, c, sess, "DOM.resolveNode", map[string]any{"backendNodeId": found[nth]}, &obj)
	cdp(t, c, sess, "Runtime.callFunctionOn", map[string]any{"objectId": obj.Object.ObjectID, "functionDeclaration": "function () { return this.getAttribute('data-e2e'); }", "returnByValue": true}, &mark)
	return mark.Result.Value
}

// pageResolve finds, in the page, what a label, text or selector locator
// names, as Playwright's getByLabel (exact), getByText (exact, the
// innermost element) and querySelectorAll read them, and returns its
// data-e2e mark.
const pageResolve = `(loc) => {
  const norm = (s) => String(s || "").replace(/\s+/g, " ").trim();
  let all = [];
  if (loc.selector) all = [...document.querySelectorAll(loc.selector)];
  else if (loc.by === "label") {
    const labels = (e) => {
      const out = [...(e.labels || [])].map((l) => norm(l.textContent));
      const ids = norm(e.getAttribute("aria-labelledby"));
      if (ids) out.push(norm(ids.split(" ").map((id) => { const r = document.getElementById(id); return r ? r.textContent : ""; }).join(" ")));
      out.push(norm(e.getAttribute("aria-label")));
      return out;
    };
    all = [...document.querySelectorAll("*")].filter((e) => labels(e).includes(loc.label));
  } else if (loc.by === "text") {
    all = [...document.querySelectorAll("body *")].filter((e) => !/^(script|style|template|noscript)$/.test(e.localName) && norm(e.textContent) === loc.text && ![...e.children].some((k) => norm(k.textContent) === loc.text));
  }
  const el = all[loc.nth || 0];
  return el ? el.getAttribute("data-e2e") : "(none: " + all.length + " matches)";
}`

// TestDescribe_ResolveBackOnRealPages: on Playwright's test pages and real
// articles from the corpus, every visible interactive element's best
// locator, resolved the way its kind is (a role target through the page's
// accessibility tree, a selector with querySelectorAll, a label or a text
// as Playwright reads them), finds that element again. The rate is
// reported and held at its floor.
func TestDescribe_ResolveBackOnRealPages(t *testing.T) {
	cl := benchClient(t)
	srv := httptest.NewServer(corpusHandler())
	defer srv.Close()
	var pages []string
	for _, p := range []string{
		"input/button.html", "input/checkbox.html", "input/select.html", "input/scrollable.html", "input/fileupload.html",
		"input/rotatedButton.html", "offscreenbuttons.html", "selectors-role/detect-roles.html", "selectors-role/name.html",
		"selectors-role/filter-hidden.html", "input/animating-button.html",
	} {
		pages = append(pages, siteURL("playwright/"+p))
	}
	hashes, _ := filepath.Glob(filepath.Join(corpusDir, "articles", "*.html.gz"))
	sort.Strings(hashes)
	for _, h := range hashes[:corpusDescribePages] {
		pages = append(pages, srv.URL+"/"+strings.TrimSuffix(filepath.Base(h), ".gz"))
	}
	total, ok, none := 0, 0, 0
	byKind := map[string]int{}
	var misses []string
	start := time.Now()
	for _, url := range pages {
		tab := openOn(t, cl, url)
		marks := evalOn(t, cl, tab, `let i = 0; for (const e of document.querySelectorAll("*")) e.setAttribute("data-e2e", String(i++));
const cand = [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary, [role], [tabindex], [contenteditable=true]")]
  .filter((e) => e.checkVisibility() && e.getClientRects().length > 0);
return cand.map((e) => e.getAttribute("data-e2e"))`).([]any)
		if len(marks) > describePerPage {
			step := float64(len(marks)) / describePerPage
			var pick []any
			for i := 0; i < describePerPage; i++ {
				pick = append(pick, marks[int(float64(i)*step)])
			}
			marks = pick
		}
		c, sess := attachTarget(t, func(ti harness.Target) bool { return ti.Type == "page" && ti.URL == url })
		for _, m := range marks {
			mark := m.(string)
			total++
			var d protocol.DescribeResult
			send(t, cl, map[string]any{"type": "describe", "tabId": tab, "selector": fmt.Sprintf(`[data-e2e="%s"]`, mark)}, &d)
			if len(d.Locators) == 0 {
				none++
				misses = append(misses, fmt.Sprintf("%s [data-e2e=%s] <%s>: no locator", filepath.Base(url), mark, d.Tag))
				continue
			}
			l := d.Locators[0]
			nth := 0
			if l.Nth != nil {
				nth = *l.Nth
			}
			var got string
			if l.By == "role" {
				got = axResolve(t, c, sess, l.Role, l.Name, nth)
			} else {
				raw, _ := json.Marshal(l)
				var r remote
				cdp(t, c, sess, "Runtime.evaluate", map[string]any{"expression": "(" + pageResolve + ")(" + string(raw) + ")", "returnByValue": true}, &r)
				got = r.Result.Value
			}
			byKind[l.By]++
			if got == mark {
				ok++
			} else {
				misses = append(misses, fmt.Sprintf("%s [data-e2e=%s] <%s>: best %+v found %s", filepath.Base(url), mark, d.Tag, l, got))
			}
		}
	}
	rate := float64(ok) / float64(max(1, total))
	t.Logf("describe on %d real pages: %d of %d elements found again by their best locator (%.1f%%), %d with no locator, in %s; best locators by kind: %v",
		len(pages), ok, total, 100*rate, none, time.Since(start).Round(time.Second), byKind)
	for _, m := range misses[:min(len(misses), 20)] {
		t.Log(m)
	}
	if rate < describeResolveFloor {
		t.Errorf("resolve-back rate %.3f, under the floor %.2f", rate, describeResolveFloor)
	}
}

// The resolve-back test's sample and floor: corpusDescribePages articles
// (of the corpus's 40, in hash order) and at most describePerPage elements
// of each page, evenly spread, keep it near a minute on the 2-core CI
// machine. The floor sits under the rate measured (BENCHMARKS.md
// "describe").
const (
	corpusDescribePages  = 12
	describePerPage      = 25
	describeResolveFloor = 0.97
)

// BenchmarkExtractChanges1000: a changes read on a page of 1,000 buttons
// where nothing changed (after a full extract listing the default 200),
// and one where 10 buttons were added (timed alone, the additions outside
// the timing), against the full extract of the same page, and against
// one listing all 1,000 (what a read returning every node would cost).
func BenchmarkExtractChanges1000(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "bench/buttons.html?n=1000")
	full := fmt.Sprintf(`{"type":"extract","tabId":%d}`, tab)
	changes := fmt.Sprintf(`{"type":"extract","tabId":%d,"changes":true}`, tab)
	add := fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"for (let i = 0; i < 10; i++) { const b = document.createElement('button'); b.textContent = 'added ' + i; document.body.appendChild(b); } return 1"}`, tab)
	benchRequest(b, cl, full)
	b.Run("full", func(b *testing.B) { timeMedian(b, func() { benchRequest(b, cl, full) }) })
	all := fmt.Sprintf(`{"type":"extract","tabId":%d,"maxElements":1000}`, tab)
	b.Run("full1000", func(b *testing.B) { timeMedian(b, func() { benchRequest(b, cl, all) }) })
	benchRequest(b, cl, full)
	b.Run("unchanged", func(b *testing.B) {
		timeMedian(b, func() {
			var r changesResult
			json.Unmarshal(benchRequest(b, cl, changes), &r)
			if len(r.Changes.Added)+len(r.Changes.Removed) != 0 {
				b.Fatalf("changes on an unchanged page: %+v", r.Changes)
			}
		})
	})
	b.Run("10added", func(b *testing.B) {
		var samples []time.Duration
		for i := 0; i < b.N; i++ {
			benchRequest(b, cl, add)
			s := time.Now()
			var r changesResult
			json.Unmarshal(benchRequest(b, cl, changes), &r)
			samples = append(samples, time.Since(s))
			if len(r.Changes.Added) != 10 {
				b.Fatalf("added %d, want 10", len(r.Changes.Added))
			}
		}
		reportMedian(b, samples)
	})
}

// BenchmarkDescribe: describe's round trip on the sign-in form's password
// field and on a link of a real article (which has a few hundred elements
// to count its locators against).
func BenchmarkDescribe(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "mcp/signin.html")
	one := fmt.Sprintf(`{"type":"describe","tabId":%d,"selector":"[name=password]"}`, tab)
	benchRequest(b, cl, one)
	b.Run("signin", func(b *testing.B) { timeMedian(b, func() { benchRequest(b, cl, one) }) })
	srv := httptest.NewServer(corpusHandler())
	defer srv.Close()
	hashes, _ := filepath.Glob(filepath.Join(corpusDir, "articles", "*.html.gz"))
	sort.Strings(hashes)
	var r openTabResult
	json.Unmarshal(benchRequest(b, cl, fmt.Sprintf(`{"type":"open_tab","url":%q}`, srv.URL+"/"+strings.TrimSuffix(filepath.Base(hashes[0]), ".gz"))), &r)
	defer benchRequest(b, cl, fmt.Sprintf(`{"type":"close_tab","tabId":%d}`, r.TabID))
	link := fmt.Sprintf(`{"type":"describe","tabId":%d,"selector":"a[href]"}`, r.TabID)
	benchRequest(b, cl, link)
	b.Run("article", func(b *testing.B) { timeMedian(b, func() { benchRequest(b, cl, link) }) })
}
