package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/internal/syncbuf"
)

// What an agent used to Playwright MCP expects of `bua mcp`
// (docs/decisions/agent-answers.md), in
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

// TestOneShotClient: a client that writes its requests and closes bua
// mcp's stdin at once (`printf ... | bua mcp`) gets every one answered,
// a navigate that loads a page included, and bua mcp then exits 0.
func TestOneShotClient(t *testing.T) {
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"one-shot","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"browser","arguments":{"action":"navigate","url":"` + siteURL("mcp/signin.html") + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"browser","arguments":{"action":"get_tabs"}}}`,
	}
	cmd := exec.Command(buaBin, "mcp")
	cmd.Env = buaEnv
	cmd.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	var err error
	start := time.Now()
	go func() {
		out, err = cmd.Output()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("bua mcp still runs 30 s after its stdin closed\n%s", stderr.String())
	}
	t.Logf("bua mcp answered and exited %s after its input", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("bua mcp: %v\n%s", err, stderr.String())
	}
	answers := map[int]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil {
			answers[*m.ID] = sc.Text()
		}
	}
	for id := 1; id <= 4; id++ {
		if answers[id] == "" {
			t.Errorf("no answer to request %d; stdout:\n%s\nstderr:\n%s", id, out, stderr.String())
		}
	}
	if !strings.Contains(answers[2], `"name":"browser"`) {
		t.Errorf("tools/list's answer: %s", answers[2])
	}
	if !strings.Contains(answers[3], "ok: navigate") || strings.Contains(answers[3], `"isError":true`) {
		t.Errorf("navigate's answer: %s", answers[3])
	}
}

// TestTypeReplaces: the tool's type replaces the field's value, as
// Playwright MCP's browser_type does: a prefilled field gets the agent's
// text alone, a type repeated gives the text once (not AdaAda), and
// clear: false adds to the value.
func TestTypeReplaces(t *testing.T) {
	a := startAgent(t, nil)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("mcp/signin.html")})
	_, page := a.must(t, map[string]any{"action": "extract"})
	email := uidOf(t, page, "textbox", "Email")
	// value is the field's value: the line inside evaluate's fence.
	value := func() string {
		_, v := a.must(t, map[string]any{"action": "evaluate", "expression": "return document.querySelector('[name=email]').value"})
		lines := strings.Split(v, "\n")
		for i, l := range lines[:len(lines)-1] {
			if strings.HasPrefix(l, "<page-content ") {
				return lines[i+1]
			}
		}
		t.Fatalf("no fenced value in evaluate's answer:\n%s", v)
		return ""
	}
	for _, step := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "type", "uid": email, "text": "ada@example.com"}, "ada@example.com"},
		{map[string]any{"action": "type", "uid": email, "text": "ada@example.com"}, "ada@example.com"},
		{map[string]any{"action": "type", "uid": email, "text": ".uk", "clear": false}, "ada@example.com.uk"},
	} {
		a.must(t, step.args)
		if v := value(); v != step.want {
			t.Errorf("after %v the field holds %q, want %q (the prefilled value was old@example.com)", step.args, v, step.want)
		}
	}
}

// TestReadOnlyNoTab: a read-only agent with no tab of its own is not
// told to navigate, which it may not: it is told it opens none, and which
// open tab it may read by its tabId; reading that one works.
func TestReadOnlyNoTab(t *testing.T) {
	cmd := harness.Cmd{Bin: buaBin, Env: buaEnv}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := cmd.Run(ctx, "open", siteURL("mcp/article.html"), "--json")
	var person struct {
		TabID int `json:"tabId"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &person) != nil || person.TabID == 0 {
		t.Fatalf("bua open: exit %d\n%s", r.Code, r.Output())
	}
	t.Cleanup(func() { cmd.Run(context.Background(), "close", strconv.Itoa(person.TabID)) })
	a := startAgent(t, nil, "--read-only")
	res, text := a.call(t, map[string]any{"action": "extract"})
	if !res.IsError || strings.Contains(text, "navigate") || !strings.Contains(text, "--read-only") || !strings.Contains(text, strconv.Itoa(person.TabID)+" 127.0.0.1") {
		t.Errorf("a read-only extract with no tab: isError %v\n%s", res.IsError, text)
	}
	if res, text := a.call(t, map[string]any{"action": "extract", "tabId": person.TabID}); res.IsError {
		t.Errorf("extract of the tab it was told of: %s", text)
	}
}

// TestTabsClosedAtEnd: when an agent's client hangs up, the tabs it
// opened (its first navigate's, open_tab's, the one its click on a
// target=_blank link opened) are closed; a tab it only read (the
// person's) stays, and so do the tabs of an agent run with --keep-tabs.
func TestTabsClosedAtEnd(t *testing.T) {
	cmd := harness.Cmd{Bin: buaBin, Env: buaEnv}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := cmd.Run(ctx, "open", siteURL("blank.html"), "--json")
	var person struct {
		TabID int `json:"tabId"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &person) != nil || person.TabID == 0 {
		t.Fatalf("bua open: exit %d\n%s", r.Code, r.Output())
	}
	t.Cleanup(func() { cmd.Run(context.Background(), "close", strconv.Itoa(person.TabID)) })

	a := startAgent(t, nil)
	res, _ := a.must(t, map[string]any{"action": "navigate", "url": siteURL("nav/newtab.html")})
	first := tabOf(t, res)
	_, page := a.must(t, map[string]any{"action": "extract"})
	clicked, _ := a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "link", "Read the article")})
	var click struct {
		NewTabID int `json:"newTabId"`
	}
	structured(t, clicked, &click)
	if click.NewTabID == 0 {
		t.Fatalf("the target=_blank click opened no tab: %v", clicked.StructuredContent)
	}
	res, _ = a.must(t, map[string]any{"action": "open_tab", "url": siteURL("blank.html?second")})
	second := tabOf(t, res)
	a.must(t, map[string]any{"action": "extract", "tabId": person.TabID})

	a.hangUp()
	ended(t, a)
	open := openTabs(t, cmd)
	for _, tab := range []int{first, click.NewTabID, second} {
		if open[tab] {
			t.Errorf("tab %d, which the agent opened, is still open after it ended", tab)
		}
	}
	if !open[person.TabID] {
		t.Errorf("the person's tab %d, which the agent only read, was closed", person.TabID)
	}
	if !strings.Contains(a.stderr.String(), `msg="closed the tabs this agent opened" tabs=3`) {
		t.Errorf("bua mcp's log does not say it closed 3 tabs:\n%s", a.stderr.String())
	}

	kept := startAgent(t, nil, "--keep-tabs")
	res, _ = kept.must(t, map[string]any{"action": "navigate", "url": siteURL("blank.html?kept")})
	keptTab := tabOf(t, res)
	t.Cleanup(func() { cmd.Run(context.Background(), "close", strconv.Itoa(keptTab)) })
	kept.hangUp()
	ended(t, kept)
	if !openTabs(t, cmd)[keptTab] {
		t.Errorf("the --keep-tabs agent's tab %d was closed when it ended", keptTab)
	}
}

// ended waits for a's process to exit once its stdin closed.
func ended(t *testing.T, a *agent) {
	t.Helper()
	select {
	case <-a.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("bua mcp did not exit 15 s after its stdin closed\n%s", a.stderr.String())
	}
}

// openTabs are the tabs open now, by id (bua tabs).
func openTabs(t *testing.T, cmd harness.Cmd) map[int]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := cmd.Run(ctx, "tabs", "--json")
	var tabs []struct {
		TabID int `json:"tabId"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &tabs) != nil {
		t.Fatalf("bua tabs: exit %d\n%s", r.Code, r.Output())
	}
	open := map[int]bool{}
	for _, tab := range tabs {
		open[tab.TabID] = true
	}
	return open
}
