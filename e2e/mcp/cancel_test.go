package mcp

import (
	"context"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCancelledWaitFreesTab: the client's notifications/cancelled on a
// 30 s wait_for cancels the action in the browser (the daemon logs it
// and sends the extension cancel), so the next action on the same tab
// answers at once instead of queueing behind the wait.
func TestCancelledWaitFreesTab(t *testing.T) {
	a := startAgent(t, nil)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("blank.html")})
	_, logStart := daemonLog(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "wait_for", "selector": "#never", "timeoutMs": 30000}})
		done <- err
	}()
	time.Sleep(700 * time.Millisecond) // well into its polling
	cancelled := time.Now()
	cancel() // the Go SDK sends notifications/cancelled
	if err := <-done; err == nil {
		t.Fatal("the cancelled call answered as if it finished")
	}
	_, text := a.must(t, map[string]any{"action": "evaluate", "expression": "return 1 + 1"})
	next := time.Since(cancelled)
	t.Logf("cancel to the next action's answer on the same tab: %s", next.Round(time.Millisecond))
	if !strings.Contains(text, "2") || next > 3*time.Second {
		t.Fatalf("the next action answered %s after the cancel (it queued behind the wait?):\n%s", next, text)
	}
	if log := waitLog(t, logStart, `msg="request cancelled" id=\S+ action=wait_for reason="aborted by caller".* cancelSent=true`); log == "" {
		t.Fatal("the daemon logged no cancellation of the wait_for")
	}
}

// TestClientDisconnects: a client that goes away mid-action (its host
// closed it) ends the server once the drain's grace (3 s) passed, the
// daemon cancels the action in the browser, and the next client's agent
// works at once, on that very tab (kept open: --keep-tabs).
func TestClientDisconnects(t *testing.T) {
	a := startAgent(t, nil, "--keep-tabs")
	res, _ := a.must(t, map[string]any{"action": "navigate", "url": siteURL("blank.html")})
	tab := tabOf(t, res)
	_, logStart := daemonLog(t, 0)
	go a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "wait_for", "selector": "#never", "timeoutMs": 30000}})
	time.Sleep(700 * time.Millisecond)
	gone := time.Now()
	a.hangUp()
	select {
	case <-a.exited:
	case <-time.After(8 * time.Second):
		t.Fatal("bua mcp still runs 8 s after its client went away (the drain's grace is 3 s)")
	}
	t.Logf("client gone to bua mcp exited: %s", time.Since(gone).Round(time.Millisecond))
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("bua mcp exited %d when its client went away, want 0", code)
	}
	if waitLog(t, logStart, `msg="request cancelled" id=\S+ action=wait_for reason="aborted by caller".* cancelSent=true`) == "" {
		t.Fatal("the daemon logged no cancellation of the wait_for")
	}

	b := startAgent(t, nil)
	_, text := b.must(t, map[string]any{"action": "evaluate", "expression": "return 40 + 2", "tabId": tab})
	if next := time.Since(gone); next > 8*time.Second || !strings.Contains(text, "42") {
		t.Fatalf("the next agent's action on the tab answered %s after the first client went:\n%s", next, text)
	}
}

// waitLog waits up to 5 s for the daemon's log since offset to match
// pattern, and returns the log ("" when it never did).
func waitLog(t *testing.T, offset int64, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if log, _ := daemonLog(t, offset); re.MatchString(log) {
			return log
		}
	}
	return ""
}

// TestTerminated: SIGTERM (an MCP host stopping its servers) ends bua mcp
// at once, mid-action, and the daemon cancels the action in the browser.
func TestTerminated(t *testing.T) {
	a := startAgent(t, nil)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("blank.html")})
	_, logStart := daemonLog(t, 0)
	go a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "wait_for", "selector": "#never", "timeoutMs": 30000}})
	time.Sleep(700 * time.Millisecond)
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.exited:
	case <-time.After(3 * time.Second):
		t.Fatal("bua mcp still runs 3 s after SIGTERM")
	}
	if waitLog(t, logStart, `msg="request cancelled" id=\S+ action=wait_for reason="aborted by caller".* cancelSent=true`) == "" {
		t.Fatal("the daemon logged no cancellation of the wait_for")
	}
}
