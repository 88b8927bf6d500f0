package mcp

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTwoAgents: two `bua mcp` against one daemon work side by side: each
// navigate opens a tab of its own, each action with no tabId stays on its
// own tab while the other acts at the same time, get_tabs marks whose tab
// is whose, and an action on the other agent's tab is refused with
// nothing done to it.
func TestTwoAgents(t *testing.T) {
	a, b := startAgent(t, nil), startAgent(t, nil)
	resA, _ := a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	resB, _ := b.must(t, map[string]any{"action": "navigate", "url": siteURL("app/form.html")})
	tabA, tabB := tabOf(t, resA), tabOf(t, resB)
	if tabA == tabB {
		t.Fatalf("both agents got tab %d", tabA)
	}

	// Both at once, many times: each reads and types on its own page.
	var wg sync.WaitGroup
	for _, ag := range []struct {
		who *agent
		tab int
	}{{a, tabA}, {b, tabB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				res, err := ag.who.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "evaluate", "expression": "document.body.dataset.n = '" + strconv.Itoa(i) + "'; return location.pathname"}})
				if err != nil || res.IsError {
					t.Errorf("an agent's evaluate: %v %v", err, res)
					return
				}
				if got, _ := res.StructuredContent.(map[string]any)["tabId"].(float64); int(got) != ag.tab {
					t.Errorf("an agent's evaluate ran on tab %v, want its own %d", got, ag.tab)
					return
				}
			}
		}()
	}
	wg.Wait()
	_, pathA := a.must(t, map[string]any{"action": "evaluate", "expression": "return location.pathname"})
	_, pathB := b.must(t, map[string]any{"action": "evaluate", "expression": "return location.pathname"})
	if !strings.Contains(pathA, "/app/login.html") || !strings.Contains(pathB, "/app/form.html") {
		t.Errorf("the agents' pages moved: a at %s, b at %s", pathA, pathB)
	}

	_, tabs := a.must(t, map[string]any{"action": "get_tabs"})
	if !strings.Contains(tabs, strconv.Itoa(tabA)+" ") || !strings.Contains(lineOf(tabs, strconv.Itoa(tabA)), "[yours]") || !strings.Contains(lineOf(tabs, strconv.Itoa(tabB)), "[another agent's") {
		t.Errorf("a's get_tabs does not mark the tabs:\n%s", tabs)
	}

	res, text := a.call(t, map[string]any{"action": "navigate", "url": siteURL("blank.html"), "tabId": tabB})
	if !res.IsError || !strings.Contains(text, "held by another agent") {
		t.Errorf("a's navigate on b's tab: isError %v\n%s", res.IsError, text)
	}
	if _, p := b.must(t, map[string]any{"action": "evaluate", "expression": "return location.pathname"}); !strings.Contains(p, "/app/form.html") {
		t.Errorf("b's tab moved after a's refused navigate: %s", p)
	}
}

// lineOf is the line of text that starts with prefix and a space.
func lineOf(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix+" ") {
			return line
		}
	}
	return ""
}
