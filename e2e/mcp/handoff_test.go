package mcp

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestHandoff: on a captcha (high), handoff hands the tab to the person
// and answers the page once they cleared it; here the "person" clicks the
// fixture's I am human button with a one-shot `bua eval`. With nobody to
// see the browser (the package's headless managed one, and no
// BUA_HANDOFF=force), handoff is an error that says to stop and tell the
// person.
func TestHandoff(t *testing.T) {
	captcha := siteURL("handoff/shop.html")
	blind := startAgent(t, nil)
	blind.must(t, map[string]any{"action": "navigate", "url": captcha})
	res, text := blind.call(t, map[string]any{"action": "handoff"})
	if !res.IsError || !strings.Contains(text, "headless") || !strings.Contains(text, "next: stop and tell the person") {
		t.Errorf("handoff to a headless browser: isError %v\n%s", res.IsError, text)
	}

	a := startAgentEnv(t, []string{"BUA_HANDOFF=force"}, nil)
	res, _ = a.must(t, map[string]any{"action": "navigate", "url": captcha})
	tab := tabOf(t, res)
	if _, page := a.must(t, map[string]any{"action": "extract"}); !strings.Contains(page, "obstacle: captcha (high)") || !strings.Contains(page, "call handoff") {
		t.Fatalf("the captcha's extract:\n%s", page)
	}
	type answer struct {
		res  *mcp.CallToolResult
		text string
	}
	done := make(chan answer, 1)
	go func() {
		res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "handoff"}})
		if err != nil {
			done <- answer{text: err.Error()}
			return
		}
		done <- answer{res, textOf(res)}
	}()
	time.Sleep(time.Second) // the tab is in the person's hands
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "eval", `document.getElementById("solve").click(); return 1`, "--tab", strconv.Itoa(tab))
	if r.Code != 0 {
		t.Fatalf("the person's click: exit %d\n%s", r.Code, r.Output())
	}
	select {
	case got := <-done:
		if got.res == nil || got.res.IsError || !strings.Contains(got.text, "the person cleared the captcha on tab "+strconv.Itoa(tab)) || !strings.Contains(got.text, "Welcome back. Your basket has 2 items.") {
			t.Errorf("handoff's answer:\n%s", got.text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("handoff still waits 20 s after the person cleared the page")
	}
}
