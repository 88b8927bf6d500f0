package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestCloseTabs: the tabs a session opened (its first navigate's, open_tab's
// and a click's new tab) are closed when it ends, and no other: not the
// person's it read or navigated, not one it was given.
func TestCloseTabs(t *testing.T) {
	f := start(t, Options{}, nil)
	person := f.tabs.Open("https://person.test/")
	first := f.navigate(t, "https://a.test/")
	res, text := f.call(t, map[string]any{"action": "open_tab", "url": "https://b.test/"})
	if res.IsError {
		t.Fatal(text)
	}
	second := tabIDOfResult(t, res)
	popup := f.tabs.Open("https://popup.test/")
	f.ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		return map[string]any{"ok": true, "tabId": *a.TabID, "newTabId": popup}, nil
	})
	f.call(t, map[string]any{"action": "click", "uid": "e1", "tabId": second})
	f.call(t, map[string]any{"action": "extract", "tabId": person})
	f.call(t, map[string]any{"action": "navigate", "url": "https://person.test/2", "tabId": person})
	if cur := f.navigate(t, "https://c.test/"); cur != person {
		t.Fatalf("navigate with no tabId went to tab %d, want the current one, the person's %d", cur, person)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n := f.srv.CloseTabs(ctx)
	for _, tab := range []int{first, second, popup} {
		if u := f.tabs.URL(tab); u != "" {
			t.Errorf("tab %d (%s), which the session opened, is still open", tab, u)
		}
	}
	if f.tabs.URL(person) == "" {
		t.Errorf("the person's tab %d was closed", person)
	}
	if n != 3 {
		t.Errorf("CloseTabs closed %d tabs, want 3", n)
	}
	if again := f.srv.CloseTabs(ctx); again != 0 {
		t.Errorf("a second CloseTabs closed %d tabs", again)
	}
}

// tabIDOfResult is the tabId in a result's structured content.
func tabIDOfResult(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	tab, _ := res.StructuredContent.(map[string]any)["tabId"].(float64)
	if tab == 0 {
		t.Fatalf("no tabId in %v", res.StructuredContent)
	}
	return int(tab)
}
