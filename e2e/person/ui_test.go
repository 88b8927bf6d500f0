package person

// These tests drive the extension's person-facing pages through the DOM
// contract those pages keep: the options page's blocklist
// (#block-domain, #block-add, #blocklist li[data-domain] button.remove) and
// audit log (#history-filter, #history tr[data-domain][data-reason]), and
// the popup (#state[data-state], #sessions li[data-tab-id] button.stop,
// #stop-all, #empty).

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// visibleRows is a JavaScript expression counting the elements sel
// matches that have a box on the page.
func visibleRows(sel string) string {
	return `[...document.querySelectorAll(` + jsString(sel) + `)].filter((el) => el.getClientRects().length > 0).length`
}

// TestOptionsBlocklist: the person adds a domain to the blocklist on the
// options page; bua is refused it (domain_blocked, exit 3); the person
// removes it again and bua may open it.
func TestOptionsBlocklist(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	p := openOptions(t, c)
	t.Cleanup(func() { p.tryEval(`chrome.storage.local.set({ blocklist: [] }).then(() => true)`) })
	url := strings.Replace(siteURL("person/card.html?ui=block"), "127.0.0.1", "localhost", 1)

	p.fill("#block-domain", "localhost")
	p.click("#block-add")
	p.waitTrue(5*time.Second, `Boolean(document.querySelector('#blocklist li[data-domain="localhost"]'))`)
	var r harness.Result
	if !poll(5*time.Second, func() bool {
		if r = bua(t, "--json", "open", url); r.Code == 0 {
			bua(t, "close", strconv.Itoa(tabOf(t, r)))
		}
		return r.Code == 3
	}) {
		t.Fatalf("open %s after blocking localhost: exit %d, want 3\n%s", url, r.Code, r.Output())
	}
	if e := failure(t, r); e.Error.Code != "domain_blocked" {
		t.Errorf("open a blocked domain: %s, want domain_blocked", e.Error.Code)
	}

	p.click(`#blocklist li[data-domain="localhost"] button.remove`)
	p.waitTrue(5*time.Second, `!document.querySelector('#blocklist li[data-domain="localhost"]')`)
	if !poll(5*time.Second, func() bool { r = bua(t, "--json", "open", url); return r.Code == 0 }) {
		t.Fatalf("open %s after unblocking localhost: exit %d\n%s", url, r.Code, r.Output())
	}
	bua(t, "close", strconv.Itoa(tabOf(t, r)))
}

// TestOptionsHistory: a session bua ran and that ended shows in the
// options page's audit log with its domain and reason, and the filter
// hides what does not match.
func TestOptionsHistory(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	tab, _ := openTab(t, siteURL("person/card.html?ui=history"))
	mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(tab)))
	mustOK(t, "close", bua(t, "close", strconv.Itoa(tab)))
	waitEvent(t, 10*time.Second, "session_ended", tab)

	p := openOptions(t, c)
	row := `#history tr[data-domain="127.0.0.1"][data-reason="tab_closed"]`
	p.waitTrue(5*time.Second, visibleRows(row)+` > 0`)
	p.fill("#history-filter", "nothing-matches.invalid")
	p.waitTrue(5*time.Second, visibleRows("#history tr[data-domain]")+` === 0`)
	p.fill("#history-filter", "127.0.0.1")
	p.waitTrue(5*time.Second, visibleRows(row)+` > 0`)
}

// TestPopupStop: the popup lists bua's live sessions; the person stops
// one (user_stopped), then all the rest (global_stop), and the popup says
// there are none.
func TestPopupStop(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	popup := manifestPage(t, "popup")
	if popup == "" {
		t.Fatal("the extension's manifest names no action.default_popup")
	}
	one, _ := openTab(t, siteURL("person/card.html?ui=stop-one"))
	two, _ := openTab(t, siteURL("person/card.html?ui=stop-all"))
	for _, tab := range []int{one, two} {
		mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(tab)))
	}
	p := newPage(t, c, popup, map[string]any{"newWindow": true})
	li := func(tab int) string { return `#sessions li[data-tab-id="` + strconv.Itoa(tab) + `"]` }
	p.waitTrue(10*time.Second, `document.querySelector("#state").dataset.state === "connected" && Boolean(document.querySelector('`+li(one)+`')) && Boolean(document.querySelector('`+li(two)+`'))`)

	p.click(li(one) + " button.stop")
	if e := waitEvent(t, 10*time.Second, "session_ended", one); e.Event.Reason != "user_stopped" {
		t.Errorf("Stop on tab %d ended it with %q, want user_stopped", one, e.Event.Reason)
	}
	p.waitTrue(5*time.Second, `!document.querySelector('`+li(one)+`')`)

	p.click("#stop-all")
	if e := waitEvent(t, 10*time.Second, "session_ended", two); e.Event.Reason != "global_stop" {
		t.Errorf("Stop all ended tab %d with %q, want global_stop", two, e.Event.Reason)
	}
	p.waitTrue(5*time.Second, `!document.querySelector('`+li(two)+`') && document.querySelector("#empty").getClientRects().length > 0`)
}
