//go:build linux

package person

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// windowInfo is chrome.windows' view of a window, read from an extension
// page.
type windowInfo struct {
	ID      int    `json:"id"`
	State   string `json:"state"`
	Focused bool   `json:"focused"`
}

// buaWindow reads the BUA window's state through chrome.windows, from the
// extension page probe: its id is the one the worker stored (buaWindowId,
// extension/src/windows/window-manager.js).
func buaWindow(t *testing.T, probe *page) windowInfo {
	t.Helper()
	v := probe.eval(`(async () => {
		const { buaWindowId } = await chrome.storage.local.get("buaWindowId");
		if (!Number.isInteger(buaWindowId)) return null;
		const w = await chrome.windows.get(buaWindowId);
		return { id: w.id, state: w.state, focused: w.focused };
	})()`)
	raw, _ := json.Marshal(v)
	var w windowInfo
	if v == nil || json.Unmarshal(raw, &w) != nil {
		t.Fatalf("the worker stored no BUA window id (got %v)", v)
	}
	return w
}

// personFocused reports whether the person's tab still has the focus
// (its document.hasFocus()) and the BUA window is still minimized and
// unfocused after what; when not, it says so and puts both back, so the
// next step is judged on its own.
func personFocused(t *testing.T, mine, probe *page, buaID int, what string) bool {
	t.Helper()
	f := mine.eval(`document.hasFocus()`)
	w := buaWindow(t, probe)
	if f == true && w.ID == buaID && w.State == "minimized" && !w.Focused {
		return true
	}
	t.Errorf("after %s: the person's tab has the focus: %v; BUA window %+v: want the person's focus kept and window %d minimized and unfocused", what, f, w, buaID)
	probe.eval(`chrome.windows.update(` + strconv.Itoa(buaID) + `, { state: "minimized" }).then(() => true)`)
	mine.front()
	mine.waitTrue(10*time.Second, `document.hasFocus()`)
	return false
}

// TestBuaWindowKeepsFocus: the person reads their own page in their own
// window while bua opens a tab and works in it. bua's tab opens in the
// BUA window, which is minimized and never focused
// (docs/extension.md#focus-and-input-in-the-bua-window); after each of open, extract, type, screenshot and
// click the person's tab still has the focus and the BUA window is still
// minimized. The screenshot, taken of a tab in a minimized window, is the
// page and not a black frame: its red block reads back red.
func TestBuaWindowKeepsFocus(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	mine := newPage(t, c, siteURL("person/mine.html"), nil)
	mine.front()
	mine.waitTrue(10*time.Second, `document.hasFocus()`)
	probe := extProbe(t, c)
	if f := mine.eval(`document.hasFocus()`); f != true {
		t.Fatalf("opening the extension probe in the background took the person's focus")
	}

	tab, win := openTab(t, siteURL("person/card.html"))
	w := buaWindow(t, probe)
	if w.ID != win {
		t.Errorf("bua open put tab %d in window %d, but the BUA window is %d", tab, win, w.ID)
	}
	personFocused(t, mine, probe, w.ID, "bua open")
	id := strconv.Itoa(tab)

	r := bua(t, "--json", "extract", "--tab", id)
	mustOK(t, "extract", r)
	var ex struct {
		Elements []struct {
			UID  string `json:"uid"`
			Role string `json:"role"`
			Name string `json:"name"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &ex); err != nil {
		t.Fatalf("extract --json: %v\n%s", err, r.Stdout)
	}
	uids := map[string]string{}
	for _, e := range ex.Elements {
		uids[e.Role+" "+e.Name] = e.UID
	}
	if uids["textbox Name"] == "" || uids["button Go"] == "" {
		t.Fatalf("extract of card.html lists no Name field or Go button: %+v", ex.Elements)
	}
	personFocused(t, mine, probe, w.ID, "bua extract")

	mustOK(t, "type", bua(t, "type", "--tab", id, uids["textbox Name"], "Ada"))
	personFocused(t, mine, probe, w.ID, "bua type")

	shot := filepath.Join(t.TempDir(), "card.jpg")
	t0 := time.Now()
	mustOK(t, "screenshot", bua(t, "screenshot", "--tab", id, "-o", shot))
	took := time.Since(t0)
	personFocused(t, mine, probe, w.ID, "bua screenshot")
	checkShot(t, shot, id)

	// Chrome activates the window of a page that gets a mouse press; the
	// extension minimizes it again and gives the focus back
	// (docs/extension.md §Focus). The probe times that flash.
	probe.eval(`(() => { window.__focus = []; chrome.windows.onFocusChanged.addListener((id) => __focus.push([id, performance.now()])); return true })()`)
	mustOK(t, "click", bua(t, "click", "--tab", id, uids["button Go"]))
	personFocused(t, mine, probe, w.ID, "bua click")
	flash := probe.eval(`(() => { const f = __focus, i = f.findIndex(([id]) => id === ` + strconv.Itoa(w.ID) + `);
		return i < 0 ? 0 : ((f.slice(i + 1).find(([id]) => id !== ` + strconv.Itoa(w.ID) + `) || [0, performance.now()])[1] - f[i][1]) })()`)
	t.Logf("the click's press focused the BUA window for %.0f ms before the extension gave the focus back", flash)
	r = bua(t, "eval", "--tab", id, `return document.getElementById("result").textContent + "|" + document.getElementById("result").dataset.trusted`)
	mustOK(t, "eval", r)
	if got := strings.TrimSpace(r.Stdout); got != "Hello, Ada|true" {
		t.Errorf("after type and click in the BUA window the page says %q, want \"Hello, Ada|true\"", got)
	}
	t.Logf("screenshot of a tab in the minimized BUA window took %s", took.Round(time.Millisecond))
}

// checkShot decodes the JPEG at path and checks it is the page as the tab
// lays it out (its viewport's size in device pixels) and shows card.html:
// red inside the 200×200 CSS px block at the top left, white beside it.
func checkShot(t *testing.T, path, tab string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot is not a JPEG (%d bytes): %v", len(data), err)
	}
	r := bua(t, "eval", "--tab", tab, `return [innerWidth, innerHeight, devicePixelRatio].join(" ")`)
	mustOK(t, "eval viewport", r)
	var vw, vh int
	var dpr float64
	if _, err := fmt.Sscanf(strings.TrimSpace(r.Stdout), "%d %d %g", &vw, &vh, &dpr); err != nil {
		t.Fatalf("viewport %q: %v", r.Stdout, err)
	}
	b := img.Bounds()
	if want := (image.Point{int(float64(vw) * dpr), int(float64(vh) * dpr)}); b.Size() != want || want.X < 200 || want.Y < 200 {
		t.Errorf("screenshot is %v, want the viewport %v (%d×%d CSS px at %g)", b.Size(), want, vw, vh, dpr)
	}
	px := func(x, y int) [3]uint32 {
		r, g, bl, _ := img.At(int(float64(x)*dpr), int(float64(y)*dpr)).RGBA()
		return [3]uint32{r >> 8, g >> 8, bl >> 8}
	}
	near := func(got, want [3]uint32) bool {
		for i := range got {
			d := int(got[i]) - int(want[i])
			if d < -40 || d > 40 { // JPEG q=80 moves flat colours a little
				return false
			}
		}
		return true
	}
	if got := px(100, 100); !near(got, [3]uint32{220, 40, 40}) {
		t.Errorf("screenshot pixel inside the red block = %v, want about (220, 40, 40): not the page (black frame?)", got)
	}
	if got := px(220, 300); !near(got, [3]uint32{255, 255, 255}) {
		t.Errorf("screenshot pixel beside the block = %v, want white", got)
	}
}

// TestBuaWindowTwoTabs: bua works in two tabs of its window, as an agent
// comparing two pages does. The second `bua open` goes into the minimized
// BUA window without restoring or focusing it, and a click on either tab,
// the one in front of the BUA window or the one behind it, reaches its
// page (the form's submit handler runs) while the person keeps the focus.
func TestBuaWindowTwoTabs(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	mine := newPage(t, c, siteURL("person/mine.html?two"), nil)
	mine.front()
	mine.waitTrue(10*time.Second, `document.hasFocus()`)
	probe := extProbe(t, c)

	first, _ := openTab(t, siteURL("person/card.html?two=first"))
	buaID := buaWindow(t, probe).ID
	second, win := openTab(t, siteURL("person/card.html?two=second"))
	if win != buaID {
		t.Errorf("the second bua open went to window %d, not the BUA window %d", win, buaID)
	}
	personFocused(t, mine, probe, buaID, "a second bua open")

	for _, tab := range []int{first, second} {
		id := strconv.Itoa(tab)
		mustOK(t, "type", bua(t, "type", "--tab", id, "#name", "Ada"))
		mustOK(t, "click", bua(t, "click", "--tab", id, "#go"))
		r := bua(t, "eval", "--tab", id, `return document.getElementById("result").textContent`)
		mustOK(t, "eval", r)
		if got := strings.TrimSpace(r.Stdout); got != "Hello, Ada" {
			t.Errorf("tab %d: after bua type and click exited 0 the page says %q, want \"Hello, Ada\": the click never reached it", tab, got)
		}
		personFocused(t, mine, probe, buaID, "bua click on tab "+id)
	}
}

// TestScreenshotMinimizedWindowUnchanged: a capture in the person's
// minimized BUA window leaves the page's visibility as it was and fires no
// visibilitychange, then and after a later navigation, for the window's
// first tab and a later one. That the window stays minimized is
// extension/test/capture.test.js's: a capture that answers never calls
// Page.bringToFront.
func TestScreenshotMinimizedWindowUnchanged(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	first, _ := openTab(t, siteURL("cli/cli.html?shot=first"))
	second, _ := openTab(t, siteURL("cli/cli.html?shot=second"))
	eval := func(id, expr string) string {
		t.Helper()
		r := bua(t, "eval", "--tab", id, expr)
		mustOK(t, "eval", r)
		return strings.TrimSpace(r.Stdout)
	}
	for _, tab := range []struct {
		what string
		id   int
	}{{"the BUA window's first tab", first}, {"a later tab in the BUA window", second}} {
		id := strconv.Itoa(tab.id)
		before := eval(id, `window.__vc = 0; document.addEventListener("visibilitychange", () => window.__vc++); return document.visibilityState`)
		mustOK(t, "screenshot", bua(t, "screenshot", "--tab", id, "-o", t.TempDir()+"/shot.jpg"))
		if got, want := eval(id, `return document.visibilityState + " " + window.__vc`), before+" 0"; got != want {
			t.Errorf("%s: after a screenshot: visibility and visibilitychange count %q, want %q", tab.what, got, want)
		}
		mustOK(t, "navigate", bua(t, "navigate", "--tab", id, siteURL("form.html")))
		if got := eval(id, "return document.visibilityState"); got != before {
			t.Errorf("%s: after a screenshot and a navigation: visibility %q, want %q", tab.what, got, before)
		}
	}
}
