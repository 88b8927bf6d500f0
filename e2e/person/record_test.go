//go:build linux

package person

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRecordInPersonChrome: `bua record URL -o FILE` in the person's own
// headful Chrome (paired; --browser user, so no managed browser may serve)
// opens the page in the person's window, focused. While it records, the
// badge says REC and the popup shows the recording with its Stop and the
// two checks (pictured as record.png, docs/record.png with -update-docs).
// The person clicks with the X server's mouse (xdotool), the popup's
// "Assert URL" and "Assert title" add checks, and its Stop ends the
// recording: bua record writes the flow and exits 0; the flow lints and
// replays green.
func TestRecordInPersonChrome(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	probe := extProbe(t, c)
	url := siteURL("record/terms.html")
	out := filepath.Join(t.TempDir(), "terms.yaml")
	ch := start(t, "record", url, "-o", out)

	var target string
	if !poll(20*time.Second, func() bool {
		ts, err := c.Targets()
		for _, tg := range ts {
			if err == nil && tg.Type == "page" && tg.URL == url {
				target = tg.TargetID
			}
		}
		return target != ""
	}) {
		t.Fatalf("bua record opened no tab at %s within 20 s", url)
	}
	sess, err := c.Attach(target)
	if err != nil {
		t.Fatal(err)
	}
	page := &page{t: t, c: c, target: target, session: sess}
	page.waitTrue(10*time.Second, `document.readyState === "complete" && document.visibilityState === "visible" && document.hasFocus()`)
	tab := page.tabID(probe)
	t.Cleanup(func() { bua(t, "close", strconv.Itoa(tab)) })

	// The badge says REC once the recording runs (a state push, coalesced).
	wantBadge := `REC|bua is recording what you do on "Terms – Recorder demo": open this popup to stop`
	var badge any
	if !poll(10*time.Second, func() bool {
		badge = probe.eval(`Promise.all([chrome.action.getBadgeText({}), chrome.action.getTitle({})]).then((b) => b.join("|"))`)
		return badge == wantBadge
	}) {
		t.Fatalf("badge while recording = %q, want %q", badge, wantBadge)
	}

	personClick(t, page, "#accept")
	page.waitTrue(5*time.Second, `document.querySelector("#done").textContent === "Terms accepted"`)

	popup := newPage(t, c, manifestPage(t, "popup"), map[string]any{"newWindow": true})
	li := `#recordings li[data-tab-id="` + strconv.Itoa(tab) + `"]`
	popup.waitTrue(10*time.Second, `!document.querySelector("#recording").hidden && Boolean(document.querySelector('`+li+`')) &&
		document.querySelector('`+li+` .meta').textContent.startsWith("1 step")`)
	if got := popup.str(`document.querySelector("#recording-title").textContent + ": " + document.querySelector('` + li + ` .text').textContent`); got != "Recording: Terms – Recorder demo" {
		t.Errorf("the popup says %q, want %q", got, "Recording: Terms – Recorder demo")
	}
	for sel, want := range map[string]string{" .stop-recording": "Stop", " .assert-url": "Assert URL", " .assert-title": "Assert title"} {
		if got := popup.str(`document.querySelector('` + li + sel + `').textContent`); got != want {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}
	popup.png(popupW, 600)
	h := int(popup.eval(`Math.min(600, Math.max(200, Math.ceil(16 + Math.max(...[...document.body.children].map((e) => e.getBoundingClientRect().bottom)))))`).(float64))
	savePicture(t, "record.png", popup.png(popupW, h), popupW, h)

	popup.click(li + " .assert-url")
	popup.waitTrue(10*time.Second, `document.querySelector("#msg").textContent === "added a check: the page is at `+url+`"`)
	popup.click(li + " .assert-title")
	popup.waitTrue(10*time.Second, `document.querySelector("#msg").textContent === 'added a check: the page\'s title is "Terms – Recorder demo"'`)
	popup.click(li + " .stop-recording")

	var r ended
	select {
	case r = <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("bua record did not end within 30 s of Stop in the popup")
	}
	if r.Code != 0 || !strings.Contains(r.Output(), "ended (Stop in the extension's popup)") {
		t.Fatalf("bua record after Stop: exit %d, want 0 and the popup's Stop named\n%s", r.Code, r.Output())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, r.Output())
	}
	flow := string(raw)
	t.Logf("the recorded flow:\n%s", flow)
	for _, want := range []string{
		"#   bua record --browser user " + url + " -o " + out,
		"- click: {role: button, name: Accept the terms}\n  # a check added while recording\n  - wait_for: {url: \"${{ vars.base }}/record/terms.html\"}\n",
		"  # a check added while recording: the page's title\n  - evaluate: return document.title\n    as: title_1\n",
		`assert: title_1.value == "Terms – Recorder demo"`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q", want)
		}
	}
	mustOK(t, "lint", bua(t, "lint", out))
	mustOK(t, "the replay", bua(t, "run", out))
	if !poll(10*time.Second, func() bool {
		badge = probe.eval(`chrome.action.getBadgeText({})`)
		return badge != "REC"
	}) {
		t.Errorf("the badge still says REC after the recording ended")
	}
}
