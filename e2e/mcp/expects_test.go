package mcp

import (
	"testing"
	"time"
)

// What an agent used to Playwright MCP expects of `bua mcp` (issue 31), in
// real Chromium: waitUntil on its first navigate too, an answer to every
// request a one-shot client wrote, a type that replaces the field's value,
// and no tabs left behind when it ends.

// TestFirstNavigateWaitUntil: an agent's first navigate (which opens its
// tab) with waitUntil commit answers once the page commits, not after the
// 6 s parser-blocking script the page waits for; the page then loads.
func TestFirstNavigateWaitUntil(t *testing.T) {
	a := startAgent(t, nil)
	start := time.Now()
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("mcp/blocking-script.html"), "waitUntil": "commit"})
	took := time.Since(start)
	t.Logf("first navigate, waitUntil commit, to a page with a 6 s blocking script: %s", took.Round(time.Millisecond))
	if took >= 3*time.Second {
		t.Errorf("the first navigate with waitUntil commit took %s: it waited for the 6 s script", took)
	}
	// The page is the real one, and loads in the end.
	if res, text := a.call(t, map[string]any{"action": "wait_for", "text": "After the blocking script", "timeoutMs": 20000}); res.IsError {
		t.Errorf("the page never showed its text: %s", text)
	}
}
