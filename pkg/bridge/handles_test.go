package bridge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// handleClient dials the daemon like a CLI command with --tab handle.
func handleClient(t *testing.T, h *bridgetest.Harness, handle string) *bridge.Client {
	t.Helper()
	c, err := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Tab: handle})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// listHandles is get_tabs on sel's browser: each tab's handle by its id.
func listHandles(t *testing.T, h *bridgetest.Harness, sel bridge.Selection) map[int]string {
	t.Helper()
	var rows []protocol.TabInfo
	if err := json.Unmarshal(mustRequest(t, h.ClientFor(t, sel), protocol.GetTabs()), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, r := range rows {
		out[r.TabID] = r.Handle
	}
	return out
}

// TestTabHandles: two browsers that number their tabs alike (1, 2) get
// handles unique across both, in the order the daemon first sees the tabs;
// a tab keeps its handle in every later answer (get_tabs, an input's
// tabHandle, the tab an input opened); a request that names a handle goes
// to that tab's browser and tab; a closed tab's handle is never given
// again, and naming it says what to do.
func TestTabHandles(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	userExt, workExt := h.Connect(t), h.ConnectAs(t, "work", bridgetest.Options{})
	user, work := bridgetest.NewTabs(), bridgetest.NewTabs()
	user.Serve(userExt)
	work.Serve(workExt)
	u1, u2 := user.Open("https://u.test/1"), user.Open("https://u.test/2")
	w1, w2 := work.Open("https://w.test/1"), work.Open("https://w.test/2")
	if u1 != w1 || u2 != w2 {
		t.Fatalf("the fake browsers number tabs differently (%d %d, %d %d): the test needs equal ids", u1, u2, w1, w2)
	}

	uh, wh := listHandles(t, h, bridge.SelectUser), listHandles(t, h, "work")
	if uh[u1] != "t1" || uh[u2] != "t2" || wh[w1] != "t3" || wh[w2] != "t4" {
		t.Fatalf("handles: user %v, work %v; want t1 t2 for user's tabs, t3 t4 for work's", uh, wh)
	}
	if again := listHandles(t, h, "work"); again[w1] != "t3" || again[w2] != "t4" {
		t.Errorf("work's handles changed between two get_tabs: %v, then %v", wh, again)
	}

	// A request naming t3 goes to work's tab 1, though user's Chrome is
	// what auto picks and has a tab 1 too; its answer names t3.
	var r protocol.OKResult
	if err := json.Unmarshal(mustRequest(t, handleClient(t, h, "t3"), protocol.Navigate("https://w.test/moved")), &r); err != nil {
		t.Fatal(err)
	}
	if work.URL(w1) != "https://w.test/moved" || user.URL(u1) != "https://u.test/1" || r.TabHandle != "t3" {
		t.Errorf("navigate --tab t3: work's tab %q, user's %q, tabHandle %q; want work's tab 1 moved, named t3", work.URL(w1), user.URL(u1), r.TabHandle)
	}

	// A tab an input opened gets the next handle, beside newTabId.
	userExt.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		opened := user.Open("https://u.test/new")
		return protocol.OKResult{OK: true, TabID: a.TabID, NewTabID: &opened, NewTabURL: "https://u.test/new"}, nil
	})
	if err := json.Unmarshal(mustRequest(t, handleClient(t, h, "t2"), protocol.Click(protocol.Target{Selector: "a"})), &r); err != nil {
		t.Fatal(err)
	}
	if r.TabHandle != "t2" || r.NewTabHandle != "t5" || r.NewTabURL != "https://u.test/new" {
		t.Errorf("click on t2 that opened a tab = %+v; want tabHandle t2, newTabHandle t5", r)
	}

	// close_tab by handle, answered as the extension does: its tab_closed
	// event first, then {ok, tabId}, which still names t4. The handle then
	// names nothing, and the next tab seen gets a new one, not t4.
	workExt.Handle(protocol.ActionCloseTab, func(a protocol.Action) (any, *protocol.Error) {
		work.Close(*a.TabID)
		if err := workExt.SendEvent(map[string]any{"type": "tab_closed", "tabId": *a.TabID}); err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "%v", err)
		}
		return protocol.OKResult{OK: true, TabID: a.TabID}, nil
	})
	if err := json.Unmarshal(mustRequest(t, handleClient(t, h, "t4"), protocol.Action{Type: protocol.ActionCloseTab}), &r); err != nil {
		t.Fatal(err)
	}
	if work.URL(w2) != "" || r.TabHandle != "t4" {
		t.Fatalf("close --tab t4: work's tab %d at %q, answer's tabHandle %q; want it closed, named t4", w2, work.URL(w2), r.TabHandle)
	}
	wantNoTab(t, handleClient(t, h, "t4"), "t4")
	w3 := work.Open("https://w.test/3")
	if got := listHandles(t, h, "work"); got[w3] != "t6" || got[w1] != "t3" {
		t.Errorf("after t4 closed, work's handles are %v; want the new tab %d as t6 (t4 is not given again), tab %d still t3", got, w3, w1)
	}

	// A tab that closes under the daemon loses its handle: with its
	// tab_closed event, or when the browser answers tab_not_found.
	if err := userExt.SendEvent(map[string]any{"type": "tab_closed", "tabId": u1}); err != nil {
		t.Fatal(err)
	}
	waitNoTab(t, h, "t1")
	work.Close(w3)
	wantNoTab(t, handleClient(t, h, "t6"), "t6")
	wantNoTab(t, handleClient(t, h, "t99"), "t99")

	// A handle of one browser with --browser naming another is refused.
	c, err := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Tab: "t3", Browser: bridge.SelectUser})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, e := c.Request(context.Background(), protocol.Evaluate("return 1")); e == nil || e.Reason != protocol.ReasonRefused || e.Message != "tab t3 is in browser work, not user: leave out --browser, or name a tab of user (bua tabs --browser user lists them)" {
		t.Errorf("--browser user --tab t3 (work's): %v", e)
	}

	// An agent (a caller naming an owner) keeps tab ids alone.
	res := mustRequest(t, h.ClientAs(t, "agent"), protocol.GetTabs())
	var rows []protocol.TabInfo
	if err := json.Unmarshal(res, &rows); err != nil || len(rows) == 0 || rows[0].Handle != "" {
		t.Errorf("an agent's get_tabs: %s; want no handles", res)
	}
}

// wantNoTab checks that evaluate on c's handle fails as an unknown handle.
func wantNoTab(t *testing.T, c *bridge.Client, handle string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, e := c.Request(ctx, protocol.Evaluate("return 1"))
	if e == nil || e.Code != protocol.CodeTabNotFound || e.Message != "no tab "+handle+": bua tabs lists them" {
		t.Errorf("evaluate --tab %s: %v; want tab_not_found \"no tab %s: bua tabs lists them\"", handle, e, handle)
	}
}

// waitNoTab waits until the daemon has dropped handle (an event is
// handled after the test sent it).
func waitNoTab(t *testing.T, h *bridgetest.Harness, handle string) {
	t.Helper()
	c := handleClient(t, h, handle)
	for deadline := time.Now().Add(5 * time.Second); ; {
		_, e := c.Request(context.Background(), protocol.Evaluate("return 1"))
		if e != nil && e.Message == "no tab "+handle+": bua tabs lists them" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon still knows %s 5 s after its tab_closed: %v", handle, e)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
