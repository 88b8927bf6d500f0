//go:build linux

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

// TestOptionsBlocklist: bua has a live session on localhost when the
// person adds localhost to the blocklist on the options page: the session
// ends (domain_blocked), bua's next action on that tab is refused
// (domain_blocked, exit 3), and so is opening the domain again; the person
// removes the entry and bua may open it.
func TestOptionsBlocklist(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	live, _ := openTab(t, strings.Replace(siteURL("person/card.html?ui=block-live"), "127.0.0.1", "localhost", 1))
	mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(live)))
	p := openOptions(t, c)
	t.Cleanup(func() { p.tryEval(`chrome.storage.local.set({ blocklist: [] }).then(() => true)`) })
	url := strings.Replace(siteURL("person/card.html?ui=block"), "127.0.0.1", "localhost", 1)

	p.fill("#block-domain", "localhost")
	p.click("#block-add")
	p.waitTrue(5*time.Second, `Boolean(document.querySelector('#blocklist li[data-domain="localhost"]'))`)
	if e := waitEvent(t, 5*time.Second, "session_ended", live); e.Event.Reason != "domain_blocked" {
		t.Errorf("the live session on localhost ended with %+v, want reason domain_blocked", e)
	}
	next := bua(t, "--json", "extract", "--tab", strconv.Itoa(live))
	if e := harness.Failure(t, next); next.Code != 3 || e.Error.Code != "domain_blocked" {
		t.Errorf("the next action on the blocked session's tab: exit %d, %s: want exit 3, domain_blocked", next.Code, e.Error.Code)
	}
	var r harness.Result
	if !poll(5*time.Second, func() bool {
		if r = bua(t, "--json", "open", url); r.Code == 0 {
			bua(t, "close", strconv.Itoa(tabOf(t, r)))
		}
		return r.Code == 3
	}) {
		t.Fatalf("open %s after blocking localhost: exit %d, want 3\n%s", url, r.Code, r.Output())
	}
	if e := harness.Failure(t, r); e.Error.Code != "domain_blocked" {
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

// TestPopupStopAllInFlight: bua waits on a page (a 30 s wait-for) when the
// person presses Stop all in the popup. The worker tells the daemon
// (global_stop, in `bua events`), and the waiting command is answered at
// once with internal_error, reason global_stop, and a hint naming the
// person's Stop all (docs/protocol.md#errors, docs/cancellation.md#cancellation).
func TestPopupStopAllInFlight(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	tab, _ := openTab(t, siteURL("person/card.html?ui=stop-in-flight"))
	id := strconv.Itoa(tab)
	mustOK(t, "extract", bua(t, "extract", "--tab", id))
	stopsBefore := countEvents(t, "global_stop", 0)
	p := newPage(t, c, manifestPage(t, "popup"), map[string]any{"newWindow": true})
	p.waitTrue(10*time.Second, `Boolean(document.querySelector('#sessions li[data-tab-id="`+id+`"]')) && !document.querySelector("#stop-all").disabled`)

	ch := start(t, "--json", "wait-for", "#never", "--timeout", "30s", "--tab", id)
	waitInFlight(t, 1)
	pressed := time.Now()
	p.click("#stop-all")
	var r ended
	select {
	case r = <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("the wait-for in flight was not answered within 20 s of Stop all (it had 30 s)")
	}
	after := r.at.Sub(pressed)
	e := harness.Failure(t, r.Result)
	if r.Code != 1 || e.Error.Code != "internal_error" || e.Error.Reason != "global_stop" || !strings.Contains(e.Error.Hint, "Stop all") {
		t.Errorf("wait-for after Stop all: exit %d, %+v: want exit 1, internal_error reason global_stop, a hint naming Stop all", r.Code, e.Error)
	}
	if after > 5*time.Second {
		t.Errorf("the in-flight wait-for was answered %s after Stop all, want at once", after)
	}
	if !poll(5*time.Second, func() bool { return countEvents(t, "global_stop", 0) > stopsBefore }) {
		t.Error("no global_stop event reached the daemon's log")
	}
	if e := waitEvent(t, 5*time.Second, "session_ended", tab); e.Event.Reason != "global_stop" {
		t.Errorf("session_ended for tab %d = %+v, want reason global_stop", tab, e)
	}
	if n := status(t).InFlight; n != 0 {
		t.Errorf("in flight = %d after Stop all, want 0", n)
	}
	t.Logf("Stop all answered the in-flight wait-for %s after the press", after.Round(time.Millisecond))
}
