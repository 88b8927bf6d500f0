package bridge_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// tabOf is the tabId of a result.
func tabOf(t *testing.T, res json.RawMessage) int {
	t.Helper()
	var r struct {
		TabID *int `json:"tabId"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.TabID == nil {
		t.Fatalf("result %s has no tabId", res)
	}
	return *r.TabID
}

func mustRequest(t *testing.T, r protocol.Requester, a protocol.Action) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := r.Request(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Type, err)
	}
	return res
}

// TestOwnedTabs: two agents (link clients naming owners) on one daemon
// each get a tab of their own from navigate, their actions with no tabId
// go to their own tab, an action on the other's tab is refused before it
// is sent, get_tabs marks whose is whose, and the tabs of an agent that
// hangs up are free again. A one-shot client (no owner) keeps the
// protocol's own choice.
func TestOwnedTabs(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	browser := bridgetest.NewTabs()
	browser.Serve(ext)
	person := browser.Open("https://mail.test/") // the person's own tab

	a, b := h.ClientAs(t, "agent-a"), h.ClientAs(t, "agent-b")
	tabA := tabOf(t, mustRequest(t, a, protocol.Navigate("https://a.test/")))
	tabB := tabOf(t, mustRequest(t, b, protocol.Navigate("https://b.test/")))
	if tabA == tabB || tabA == person || tabB == person {
		t.Fatalf("navigate with no tab: a got %d, b got %d, the person has %d: want a new tab each", tabA, tabB, person)
	}
	reqs := ext.Requests()
	if reqs[0].Type != protocol.ActionOpenTab || reqs[0].URL != "https://a.test/" {
		t.Errorf("an agent's first navigate sent %s %q, want open_tab with its url", reqs[0].Type, reqs[0].URL)
	}

	if got := tabOf(t, mustRequest(t, a, protocol.Click(protocol.Target{UID: "e1"}))); got != tabA {
		t.Errorf("a's click with no tabId went to tab %d, want its own %d", got, tabA)
	}
	if got := tabOf(t, mustRequest(t, b, protocol.Click(protocol.Target{UID: "e1"}))); got != tabB {
		t.Errorf("b's click with no tabId went to tab %d, want its own %d", got, tabB)
	}
	if got := tabOf(t, mustRequest(t, a, protocol.Navigate("https://a.test/2"))); got != tabA || browser.URL(tabB) != "https://b.test/" {
		t.Errorf("a's second navigate went to tab %d (b's tab now at %s)", got, browser.URL(tabB))
	}

	sent := len(ext.Requests())
	_, err := a.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}).OnTab(tabB))
	if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonTabHeld {
		t.Fatalf("a's click on b's tab: %v, want invalid_action reason tab_held", err)
	}
	if n := len(ext.Requests()); n != sent {
		t.Errorf("the refused click reached the extension (%d requests, was %d)", n, sent)
	}

	var tabs []protocol.TabInfo
	if err := json.Unmarshal(mustRequest(t, a, protocol.GetTabs()), &tabs); err != nil {
		t.Fatal(err)
	}
	marks := map[int]protocol.TabInfo{}
	for _, tb := range tabs {
		marks[tb.TabID] = tb
	}
	if m := marks[tabA]; !m.Mine || !m.Current || m.HeldByOther {
		t.Errorf("a's get_tabs marks its own tab %+v, want mine and current", m)
	}
	if m := marks[tabB]; m.Mine || !m.HeldByOther {
		t.Errorf("a's get_tabs marks b's tab %+v, want heldByOther", m)
	}
	if m := marks[person]; m.Mine || m.HeldByOther {
		t.Errorf("a's get_tabs marks the person's tab %+v, want it free", m)
	}

	// A free tab (the person's) may be used by tabId, and becomes a's.
	if got := tabOf(t, mustRequest(t, a, protocol.Click(protocol.Target{UID: "e1"}).OnTab(person))); got != person {
		t.Errorf("a's click on the person's free tab went to %d", got)
	}
	if _, err := b.Request(context.Background(), protocol.Hover(protocol.Target{UID: "e1"}).OnTab(person)); err == nil || err.Reason != protocol.ReasonTabHeld {
		t.Errorf("b's hover on the tab a used: %v, want tab_held", err)
	}

	// A one-shot command (no owner) is not an agent: today's behaviour.
	if got := tabOf(t, mustRequest(t, h.Client(t), protocol.Click(protocol.Target{UID: "e1"}).OnTab(tabB))); got != tabB {
		t.Errorf("a one-shot click on tab %d went to %d", tabB, got)
	}

	// b hangs up: its tab stays open and is free again.
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := a.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}).OnTab(tabB))
		if err == nil {
			break
		}
		if err.Reason != protocol.ReasonTabHeld || time.Now().After(deadline) {
			t.Fatalf("a's click on the tab of b, which hung up: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if browser.URL(tabB) == "" {
		t.Error("b's tab was closed when b hung up; want it left open")
	}
}

// TestOwnedTabs_NoTabYet: an agent's tab action before it has a tab is
// session_not_found naming what to do; a tab that closes (the event, or
// tab_not_found) is dropped, so the agent's next action with no tabId
// does not go to a dead tab.
func TestOwnedTabs_NoTabYet(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	browser := bridgetest.NewTabs()
	browser.Serve(ext)
	a := h.ClientAs(t, "agent-a")
	_, err := a.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}))
	if err == nil || err.Code != protocol.CodeSessionNotFound {
		t.Fatalf("click before any tab: %v, want session_not_found", err)
	}
	first := tabOf(t, mustRequest(t, a, protocol.Navigate("https://a.test/")))
	second := tabOf(t, mustRequest(t, a, protocol.OpenTab("https://a.test/other", false)))
	if got := tabOf(t, mustRequest(t, a, protocol.Click(protocol.Target{UID: "e1"}))); got != second {
		t.Fatalf("after open_tab, a's click went to %d, want the tab it opened, %d", got, second)
	}
	// The person closes the tab: the browser says tab_closed.
	browser.Close(second)
	if err := ext.SendEvent(map[string]any{"type": "tab_closed", "tabId": second}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Until the event is read, a click goes to the closed tab and
		// fails tab_not_found, which drops it too.
		res, err := a.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}))
		if err == nil && tabOf(t, res) == first {
			break
		}
		if err != nil && err.Code != protocol.CodeTabNotFound {
			t.Fatalf("click after tab %d closed: %v", second, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after tab %d closed, a's click did not go to its other tab %d (last: %v)", second, first, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOwnedTabs_NewTab: a tab the agent's click opened (newTabId in
// click's result) is the agent's too, but not its current tab.
func TestOwnedTabs_NewTab(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	browser := bridgetest.NewTabs()
	browser.Serve(ext)
	a, b := h.ClientAs(t, "agent-a"), h.ClientAs(t, "agent-b")
	tabA := tabOf(t, mustRequest(t, a, protocol.Navigate("https://a.test/")))
	popup := browser.Open("https://a.test/popup")
	ext.Handle(protocol.ActionClick, func(act protocol.Action) (any, *protocol.Error) {
		return map[string]any{"ok": true, "tabId": *act.TabID, "newTabId": popup}, nil
	})
	mustRequest(t, a, protocol.Click(protocol.Target{UID: "e1"}))
	if _, err := b.Request(context.Background(), protocol.Extract("").OnTab(popup)); err == nil || err.Reason != protocol.ReasonTabHeld {
		t.Errorf("b's extract on the tab a's click opened: %v, want tab_held", err)
	}
	if got := tabOf(t, mustRequest(t, a, protocol.Hover(protocol.Target{UID: "e1"}))); got != tabA {
		t.Errorf("a's next action went to %d, want its current tab %d, not the new one", got, tabA)
	}
}

// TestOwnedWindows: an owner that asks for a window of its own (a worker
// of `bua run --parallel` in the person's Chrome) has its first tab, from
// navigate or open_tab, opened with open_tab's window key: one key per
// owner, the same for each of its tabs, and none for an owner that did
// not ask. An extension without the own_windows feature is never sent the
// key: the owner's navigate fails invalid_action, saying so.
func TestOwnedWindows(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	bridgetest.NewTabs().Serve(ext)
	client := func(owner string, own bool) *bridge.Client {
		c, err := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Owner: owner, OwnWindow: own})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	w0, w1, agent := client("worker-0", true), client("worker-1", true), client("agent", false)
	mustRequest(t, w0, protocol.Navigate("https://a.test/"))
	mustRequest(t, w1, protocol.Navigate("https://b.test/"))
	mustRequest(t, w0, protocol.OpenTab("https://a.test/2", false))
	mustRequest(t, agent, protocol.Navigate("https://c.test/"))
	var keys []string
	for _, r := range ext.Requests() {
		if r.Type != protocol.ActionOpenTab {
			t.Fatalf("sent %s, want open_tab for each first tab and the open_tab", r.Type)
		}
		keys = append(keys, r.Window)
	}
	if len(keys) != 4 || keys[0] == "" || keys[1] == "" || keys[0] == keys[1] || keys[2] != keys[0] || keys[3] != "" {
		t.Fatalf("window keys = %q: want worker-0's, worker-1's (another), worker-0's again, and none for the agent", keys)
	}
	if err := protocol.ValidateAction(bridgetest.MustJSON(protocol.Action{Type: protocol.ActionOpenTab, URL: "https://a.test/", Window: keys[0]})); err != nil {
		t.Fatalf("the key %q does not pass the schema: %v", keys[0], err)
	}

	old := h.ConnectWith(t, bridgetest.Options{Caps: &protocol.Caps{Features: []string{protocol.FeatureCancel}}})
	bridgetest.NewTabs().Serve(old)
	// The older extension replaces the first once the pool has let that
	// one go: wait for it, or the request may still reach the first.
	sc := h.Client(t)
	if !poll(func() bool {
		st, err := sc.Status(context.Background())
		return err == nil && len(st.Connections) == 1 && !slices.Contains(st.Connections[0].Caps.Features, protocol.FeatureOwnWindows)
	}) {
		t.Fatal("the older extension never replaced the first")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := client("worker-2", true).Request(ctx, protocol.Navigate("https://d.test/"))
	if err == nil || err.Code != protocol.CodeInvalidAction || !strings.Contains(err.Message, protocol.FeatureOwnWindows) {
		t.Fatalf("own window on an extension without %s: %+v, want invalid_action naming the feature", protocol.FeatureOwnWindows, err)
	}
	if n := len(old.Requests()); n != 0 {
		t.Fatalf("the older extension got %d requests", n)
	}
}
