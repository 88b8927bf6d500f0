package main

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// mcpProc is `bua mcp args...` run in-process against a fake extension's
// daemon, with a pipe for its stdin.
type mcpProc struct {
	out, errb syncbuf.Buffer
	feed      *io.PipeWriter
	done      chan int
	cancel    context.CancelFunc
	ids       int
}

// startMCP runs `bua mcp args...` against h's daemon and initializes an
// MCP session with it.
func startMCP(t *testing.T, h *bridgetest.Harness, args ...string) *mcpProc {
	t.Helper()
	in, feed := io.Pipe()
	p := &mcpProc{feed: feed, done: make(chan int, 1)}
	env := &Env{Stdin: in, Stdout: &p.out, Stderr: &p.errb, Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) },
		Getenv: func(k string) string { return map[string]string{"BUA_HOME": h.Dirs.Config}[k] }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	p.cancel = cancel
	t.Cleanup(cancel)
	go func() { p.done <- run(ctx, append([]string{"bua", "mcp"}, args...), env) }()
	p.request(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *mcpProc) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(p.feed, msg+"\n"); err != nil {
		t.Fatal(err)
	}
}

// request sends a request and waits for its answer's line on stdout.
func (p *mcpProc) request(t *testing.T, method, params string) string {
	t.Helper()
	p.ids++
	id := strconv.Itoa(p.ids)
	p.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		for _, line := range strings.Split(p.out.String(), "\n") {
			if strings.Contains(line, `"id":`+id+`,`) {
				return line
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no answer to request %s; stdout:\n%s\nstderr:\n%s", id, p.out.String(), p.errb.String())
		}
	}
}

// tool calls the browser tool with args (JSON) and returns the answer's
// line.
func (p *mcpProc) tool(t *testing.T, args string) string {
	t.Helper()
	return p.request(t, "tools/call", `{"name":"browser","arguments":`+args+`}`)
}

// exit waits for the command to end and returns its exit code.
func (p *mcpProc) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-p.done:
		return code
	case <-time.After(15 * time.Second):
		t.Fatalf("bua mcp did not end; stderr:\n%s", p.errb.String())
		return -1
	}
}

// TestMCPCommand: `bua mcp` speaks JSON-RPC on stdout and nothing else
// (its log goes to stderr), acts through the daemon as an agent with its
// own tab (its first navigate opens one), and exits 0 when its client
// closes stdin.
func TestMCPCommand(t *testing.T) {
	h, ext := startFake(t)
	p := startMCP(t, h)
	p.tool(t, `{"action":"navigate","url":"https://a.test/"}`)
	p.feed.Close()
	if code := p.exit(t); code != 0 {
		t.Errorf("bua mcp exited %d when its client closed stdin, want 0\n%s", code, p.errb.String())
	}
	lines := strings.Split(strings.TrimSpace(p.out.String()), "\n")
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout has a line that is not JSON-RPC: %q", line)
		}
	}
	if !strings.Contains(lines[len(lines)-1], `ok: navigate https://a.test/`) {
		t.Errorf("navigate's answer: %s", lines[len(lines)-1])
	}
	if !strings.Contains(p.errb.String(), "bua mcp serving on stdio") {
		t.Errorf("stderr has no log:\n%s", p.errb.String())
	}
	if reqs := ext.Requests(); len(reqs) == 0 || reqs[0].Type != protocol.ActionOpenTab {
		t.Errorf("the agent's first navigate sent %v, want open_tab (a tab of its own)", reqs)
	}
}

// TestMCPClosesTabs: when the client hangs up, `bua mcp` closes the tabs
// its agent opened (its first navigate's, open_tab's) and no other;
// with --keep-tabs it leaves them open.
func TestMCPClosesTabs(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "keep_tabs"}[keep], func(t *testing.T) {
			h, ext := startFake(t)
			tabs := bridgetest.NewTabs()
			tabs.Serve(ext)
			person := tabs.Open("https://person.test/")
			var args []string
			if keep {
				args = []string{"--keep-tabs"}
			}
			p := startMCP(t, h, args...)
			first := toolTab(t, p.tool(t, `{"action":"navigate","url":"https://a.test/"}`))
			second := toolTab(t, p.tool(t, `{"action":"open_tab","url":"https://b.test/"}`))
			p.tool(t, `{"action":"extract","tabId":`+strconv.Itoa(person)+`}`)
			p.feed.Close()
			if code := p.exit(t); code != 0 {
				t.Fatalf("exit %d\n%s", code, p.errb.String())
			}
			open := []string{}
			for _, tab := range []int{first, second} {
				if u := tabs.URL(tab); u != "" {
					open = append(open, u)
				}
			}
			want := []string{}
			if keep {
				want = []string{"https://a.test/", "https://b.test/"}
			}
			if !slices.Equal(open, want) {
				t.Errorf("the agent's tabs still open after it ended: %v, want %v\n%s", open, want, p.errb.String())
			}
			if tabs.URL(person) == "" {
				t.Errorf("the person's tab %d was closed", person)
			}
		})
	}
}

// toolTab is the tabId of a tools/call answer's line.
func toolTab(t *testing.T, line string) int {
	t.Helper()
	var m struct {
		Result struct {
			StructuredContent struct {
				TabID int `json:"tabId"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result.StructuredContent.TabID == 0 {
		t.Fatalf("no tabId in %s (%v)", line, err)
	}
	return m.Result.StructuredContent.TabID
}

// TestMCPCommandUsage: arguments and domains that name nothing are usage
// errors.
func TestMCPCommandUsage(t *testing.T) {
	for _, args := range [][]string{{"mcp", "serve"}, {"mcp", "--allow", " "}, {"mcp", "--block", "https:///"}} {
		if r := runCLI(t, nil, "", args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}
