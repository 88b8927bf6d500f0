package mcpserver

import (
	"strings"
	"testing"
)

// TestReadOnlyNoTab: a read-only agent with no tab is not told to
// navigate, which it may not: it is told which tabs it may read (the
// person's and free ones, within its bounds), and how.
func TestReadOnlyNoTab(t *testing.T) {
	f := start(t, Options{ReadOnly: true, Block: []string{"mail.test"}}, nil)
	res, text := f.call(t, map[string]any{"action": "extract"})
	if !res.IsError || strings.Contains(text, "navigate") || !strings.Contains(text, "read-only") || !strings.Contains(text, "no tab is open") {
		t.Errorf("extract with no tab open, read-only: isError %v\n%s", res.IsError, text)
	}
	news := f.tabs.Open("https://news.test/")
	f.tabs.Open("https://mail.test/inbox")
	res, text = f.call(t, map[string]any{"action": "extract"})
	if !res.IsError || strings.Contains(text, "navigate") || !strings.Contains(text, "tabId") || !strings.Contains(text, itoa(news)+" news.test") || strings.Contains(text, "mail.test") {
		t.Errorf("extract with no tab of its own, read-only: isError %v\n%s", res.IsError, text)
	}
	errBody, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	if next, _ := errBody["next"].(string); strings.Contains(next, "open a tab") || !strings.Contains(next, "tabId") {
		t.Errorf("structured next: %q", next)
	}
	if res, text := f.call(t, map[string]any{"action": "extract", "tabId": news}); res.IsError {
		t.Errorf("extract on the tab it was told of: %s", text)
	}
}
