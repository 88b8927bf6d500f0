package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// serveLines serves srv on stdio-like pipes: initialize (answered before
// anything else is written, as a client waits for it), then lines, one
// request at a time unless together; with together they are written at
// once and the input closed right after, as a one-shot client does. It
// returns the lines the server wrote once it ended.
func serveLines(t *testing.T, srv *Server, together time.Duration, lines ...string) []string {
	t.Helper()
	in, feed := io.Pipe()
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), in, &out) }()
	if together > 0 {
		all := strings.Join(append([]string{initializeLine, initializedLine}, lines...), "\n") + "\n"
		if _, err := io.WriteString(feed, all); err != nil {
			t.Fatal(err)
		}
		feed.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(together):
			t.Fatalf("Serve still runs %s after its input closed; wrote:\n%s", together, out.String())
		}
		return strings.Split(strings.TrimSpace(out.String()), "\n")
	}
	send := func(line string) {
		if _, err := io.WriteString(feed, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(initializeLine)
	waitUntil(t, func() bool { return strings.Contains(out.String(), `"id":1,`) })
	send(initializedLine)
	for _, l := range lines {
		send(l)
		var id struct {
			ID int `json:"id"`
		}
		_ = json.Unmarshal([]byte(l), &id)
		waitUntil(t, func() bool { return strings.Contains(out.String(), `"id":`+itoa(id.ID)+`,`) })
	}
	feed.Close()
	<-done
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// answerTo is the result of the answer to request id among lines; it
// fails t when there is none, or it is an error.
func answerTo(t *testing.T, lines []string, id int) json.RawMessage {
	t.Helper()
	for _, l := range lines {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(l), &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			t.Fatalf("request %d answered a JSON-RPC error: %s", id, m.Error)
		}
		return m.Result
	}
	t.Fatalf("no answer to request %d in:\n%s", id, strings.Join(lines, "\n"))
	return nil
}

// TestServeAnswersWhatItRead: a client that writes its requests and closes
// its input at once (a one-shot client, a test harness) gets an answer to
// every one, a tools/call that takes a while included; one that runs past
// the drain's grace is cancelled in the browser and answered as such, and
// the server ends.
func TestServeAnswersWhatItRead(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	tabs := bridgetest.NewTabs()
	tabs.Serve(ext)
	ext.Handle(protocol.ActionEvaluate, bridgetest.Slow(300*time.Millisecond, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.EvaluateResult{Type: "number", Value: json.RawMessage("2"), TabID: a.TabID}, nil
	}))
	srv, err := New(Options{Requester: h.ClientAs(t, "agent-drain")})
	if err != nil {
		t.Fatal(err)
	}
	lines := serveLines(t, srv, 10*time.Second,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"browser","arguments":{"action":"navigate","url":"https://a.test/"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"browser","arguments":{"action":"open_tab","url":"https://b.test/"}}}`,
	)
	answerTo(t, lines, 1)
	if !strings.Contains(string(answerTo(t, lines, 2)), `"name":"browser"`) {
		t.Errorf("tools/list's answer names no browser tool")
	}
	for _, id := range []int{3, 4} {
		if r := string(answerTo(t, lines, id)); !strings.Contains(r, "ok: ") {
			t.Errorf("request %d: %s", id, r)
		}
	}

	// A call still running after the grace: cancelled, answered, ended.
	ext.Handle(protocol.ActionWaitFor, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	const grace = time.Second // past the evaluate's 300 ms
	srv, err = New(Options{Requester: h.ClientAs(t, "agent-drain-2"), Drain: grace})
	if err != nil {
		t.Fatal(err)
	}
	tab := tabs.Open("https://c.test/")
	start := time.Now()
	lines = serveLines(t, srv, 5*time.Second,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser","arguments":{"action":"evaluate","expression":"return 1","tabId":`+itoa(tab)+`}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"browser","arguments":{"action":"wait_for","selector":"#never","timeoutMs":30000,"tabId":`+itoa(tab)+`}}}`,
	)
	took := time.Since(start)
	t.Logf("input closed with a 30 s wait_for in flight: ended after %s", took.Round(time.Millisecond))
	if took < grace {
		t.Errorf("ended %s after the input closed, before the drain's %s", took, grace)
	}
	if r := string(answerTo(t, lines, 2)); !strings.Contains(r, "evaluate") || strings.Contains(r, `"isError":true`) {
		t.Errorf("the evaluate read with the wait_for: %s", r)
	}
	if r := string(answerTo(t, lines, 3)); !strings.Contains(r, `"isError":true`) || !strings.Contains(r, "closed its input") {
		t.Errorf("the wait_for cut by the drain: %s", r)
	}
	waitUntil(t, func() bool { return len(ext.Cancels()) == 1 })
}
