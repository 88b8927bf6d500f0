package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestMCPCommand: `bua mcp` speaks JSON-RPC on stdout and nothing else
// (its log goes to stderr), acts through the daemon as an agent with its
// own tab (its first navigate opens one), and exits 0 when its client
// closes stdin.
func TestMCPCommand(t *testing.T) {
	h, ext := startFake(t)
	in, feed := io.Pipe()
	var out, errb syncbuf.Buffer
	env := &Env{Stdin: in, Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return map[string]string{"BUA_HOME": h.Dirs.Config}[k] }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"bua", "mcp"}, env) }()
	send := func(msg string) {
		if _, err := io.WriteString(feed, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answered := func(id string) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), `"id":`+id+`,`); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("no answer to request %s; stdout:\n%s\nstderr:\n%s", id, out.String(), errb.String())
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answered("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser","arguments":{"action":"navigate","url":"https://a.test/"}}}`)
	answered("2")
	feed.Close()
	if code := <-done; code != 0 {
		t.Errorf("bua mcp exited %d when its client closed stdin, want 0\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout has a line that is not JSON-RPC: %q", line)
		}
	}
	if !strings.Contains(lines[len(lines)-1], `ok: navigate https://a.test/`) {
		t.Errorf("navigate's answer: %s", lines[len(lines)-1])
	}
	if !strings.Contains(errb.String(), "bua mcp serving on stdio") {
		t.Errorf("stderr has no log:\n%s", errb.String())
	}
	if reqs := ext.Requests(); len(reqs) == 0 || reqs[0].Type != protocol.ActionOpenTab {
		t.Errorf("the agent's first navigate sent %v, want open_tab (a tab of its own)", reqs)
	}
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
