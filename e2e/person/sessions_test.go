//go:build linux

package person

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// targetAt is the page target showing url (each test gives its tabs a
// URL of their own).
func targetAt(t *testing.T, c *harness.CDP, url string) string {
	t.Helper()
	ts, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type == "page" && tg.URL == url {
			return tg.TargetID
		}
	}
	t.Fatalf("no page target at %s", url)
	return ""
}

// historyEntry is one entry of the extension's sessionHistory
// (chrome.storage.local, extension/src/sessions/session-manager.js).
type historyEntry struct {
	TabID       int    `json:"tabId"`
	Domain      string `json:"domain"`
	Reason      string `json:"reason"`
	ActionCount int    `json:"actionCount"`
	EndedAt     int64  `json:"endedAt"`
}

// storedHistory reads sessionHistory from an extension page.
func storedHistory(t *testing.T, probe *page) []historyEntry {
	t.Helper()
	raw, _ := json.Marshal(probe.eval(`chrome.storage.local.get("sessionHistory").then((g) => g.sessionHistory || [])`))
	var h []historyEntry
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// activeSessionTabs reads the tab ids of activeSessions from an extension
// page.
func activeSessionTabs(t *testing.T, probe *page) []int {
	t.Helper()
	raw, _ := json.Marshal(probe.eval(`chrome.storage.local.get("activeSessions").then((g) => (g.activeSessions || []).map((s) => s.tabId))`))
	var ids []int
	json.Unmarshal(raw, &ids)
	return ids
}

func contains(ids []int, id int) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// TestSessionEnds ends bua's sessions the ways a person's browser does and
// reads the reasons back where the person and the agent see them: the
// daemon's event log (`bua events`) and the extension's sessionHistory in
// chrome.storage.local (docs/protocol.md#events, docs/extension.md#state-ownership).
func TestSessionEnds(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	probe := extProbe(t, c)
	ended := map[int]string{}

	t.Run("tab closed", func(t *testing.T) {
		// The person closes bua's tab (Target.closeTarget, as the tab's ×).
		url := siteURL("person/card.html?end=closed")
		tab, _ := openTab(t, url)
		mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(tab)))
		t0 := time.Now()
		if _, err := c.Call("", "Target.closeTarget", map[string]any{"targetId": targetAt(t, c, url)}); err != nil {
			t.Fatal(err)
		}
		e := waitEvent(t, 10*time.Second, "session_ended", tab)
		if e.Event.Reason != "tab_closed" || e.Kind != "user" || e.Event.Domain != "127.0.0.1" {
			t.Errorf("session_ended for the closed tab = %+v, want reason tab_closed from the user extension on 127.0.0.1", e)
		}
		if countEvents(t, "tab_closed", tab) != 1 {
			t.Errorf("want one tab_closed event for tab %d before its session_ended", tab)
		}
		ended[tab] = "tab_closed"
		t.Logf("session_ended (tab_closed) reached the event log %s after the tab closed", time.Since(t0).Round(time.Millisecond))
	})

	t.Run("debugger detached", func(t *testing.T) {
		// The person presses Cancel on Chrome's '"bua bridge" started
		// debugging this browser' bar: chrome.debugger detaches with
		// canceled_by_user.
		url := siteURL("person/card.html?end=detached")
		mine := newPage(t, c, siteURL("person/mine.html?end=detached"), nil)
		tab, _ := openTab(t, url)
		mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(tab)))
		mine.front()
		mine.waitTrue(10*time.Second, `document.hasFocus()`)
		t0 := time.Now()
		cancelDebuggingBar(t)
		if !poll(10*time.Second, func() bool { return countEvents(t, "session_ended", tab) > 0 }) {
			t.Fatalf("no session_ended for tab %d within 10 s of pressing F6 F6 F6 Return: did the keys reach the debugging bar's Cancel? (Chrome's pane order may have changed; see cancelDebuggingBar)", tab)
		}
		e := waitEvent(t, time.Second, "session_ended", tab)
		if e.Event.Reason != "debugger_detached" || e.Event.ActionCount < 1 {
			t.Errorf("session_ended after Cancel = %+v, want reason debugger_detached counting the extract", e)
		}
		ended[tab] = "debugger_detached"
		t.Logf("session_ended (debugger_detached) reached the event log %s after Cancel", time.Since(t0).Round(time.Millisecond))
	})

	t.Run("worker restart", func(t *testing.T) {
		// Chrome stops an MV3 worker whenever it likes; the sessions, the
		// blocklist and the pairing live in chrome.storage.local and come
		// back with the next worker (docs/extension.md#state-ownership).
		tab, _ := openTab(t, siteURL("person/card.html?end=worker"))
		id := strconv.Itoa(tab)
		mustOK(t, "extract", bua(t, "extract", "--tab", id))
		probe.eval(`chrome.storage.local.set({ blocklist: ["localhost"] }).then(() => true)`)
		t.Cleanup(func() { probe.eval(`chrome.storage.local.set({ blocklist: [] }).then(() => true)`) })
		blocked := siteURL("person/card.html?end=blocked")
		blocked = strings.Replace(blocked, "127.0.0.1", "localhost", 1)
		checkBlocked := func(when string) {
			t.Helper()
			var r harness.Result
			// The worker follows storage.onChanged: until it has, an open
			// may still work; close what it opened and ask again.
			poll(5*time.Second, func() bool {
				r = bua(t, "--json", "open", blocked)
				if r.Code == 0 {
					bua(t, "close", strconv.Itoa(tabOf(t, r)))
				}
				return r.Code == 3
			})
			if e := harness.Failure(t, r); e.Error.Code != "domain_blocked" || r.Code != 3 {
				t.Errorf("%s: open %s: exit %d, %s: want exit 3, domain_blocked", when, blocked, r.Code, e.Error.Code)
			}
		}
		checkBlocked("before the restart")
		if !contains(activeSessionTabs(t, probe), tab) {
			t.Fatalf("activeSessions in storage lacks tab %d before the restart", tab)
		}
		startedBefore := countEvents(t, "session_started", tab)

		sw, ok := workerOf(c)
		if !ok {
			t.Fatal("the extension's service worker is not running")
		}
		stopped := time.Now()
		if _, err := c.Call("", "Target.closeTarget", map[string]any{"targetId": sw.TargetID}); err != nil {
			t.Fatalf("stop the service worker: %v", err)
		}
		if !poll(10*time.Second, func() bool { return status(t).userSince().IsZero() }) {
			t.Fatal("the daemon still lists the user connection 10 s after the worker stopped")
		}
		// Any event the worker listens to starts it again: here a runtime
		// message from an extension page, as the popup sends.
		woken := time.Now()
		probe.eval(`chrome.runtime.sendMessage({ kind: "e2e_person_wake" }).then(() => true, () => true)`)
		var since time.Time
		if !poll(10*time.Second, func() bool { since = status(t).userSince(); return since.After(stopped) }) {
			t.Fatal("the worker did not reconnect within 10 s of an event starting it again")
		}
		back := since.Sub(woken)

		checkBlocked("after the restart")
		mustOK(t, "extract after the restart", bua(t, "extract", "--tab", id))
		if n := countEvents(t, "session_started", tab); n != startedBefore {
			t.Errorf("tab %d had %d session_started events, %d before the restart: the session did not survive it", tab, n, startedBefore)
		}
		if !contains(activeSessionTabs(t, probe), tab) {
			t.Errorf("activeSessions in storage lacks tab %d after the restart", tab)
		}
		t.Logf("worker stopped; started again by a message, it reconnected in %s", back.Round(time.Millisecond))
	})

	t.Run("sessionHistory", func(t *testing.T) {
		if len(ended) != 2 {
			t.Fatalf("the ends above did not all happen: %v", ended)
		}
		h := storedHistory(t, probe)
		for tab, reason := range ended {
			found := false
			for _, e := range h {
				if e.TabID == tab {
					found = true
					if e.Reason != reason || e.Domain != "127.0.0.1" || e.EndedAt == 0 {
						t.Errorf("sessionHistory entry for tab %d = %+v, want reason %s on 127.0.0.1 with endedAt", tab, e, reason)
					}
				}
			}
			if !found {
				t.Errorf("sessionHistory has no entry for tab %d (%s): %+v", tab, reason, h)
			}
		}
	})
}
