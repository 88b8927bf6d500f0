package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// closedByPeer reads c until deadline: true when the daemon closed it.
func closedByPeer(c net.Conn, deadline time.Time) bool {
	_ = c.SetReadDeadline(deadline)
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || (err != nil && strings.Contains(err.Error(), "reset"))
}

// TestUnauthenticatedCap floods the extension port with idle TCP
// connections, three times the cap: the daemon sheds the oldest, so it
// holds MaxUnauthenticated of them, and the right token is acked in the
// middle of it (gate.go).
func TestUnauthenticatedCap(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	const n = 3 * bridge.MaxUnauthenticated
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", h.Daemon.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	// Dialled in order, accepted in order: the first n-cap are the oldest.
	shed := 0
	for i, c := range conns[:n-bridge.MaxUnauthenticated] {
		if !closedByPeer(c, time.Now().Add(5*time.Second)) {
			t.Fatalf("connection %d of %d is still open: the oldest past the cap must be shed", i, n)
		}
		shed++
	}
	still := time.Now().Add(50 * time.Millisecond)
	for i, c := range conns[n-bridge.MaxUnauthenticated:] {
		if closedByPeer(c, still) {
			t.Errorf("connection %d, among the newest %d, was closed", n-bridge.MaxUnauthenticated+i, bridge.MaxUnauthenticated)
		}
	}
	// The cap is full of idle connections: the right token still gets in,
	// and once acked it no longer counts, so more floods cannot shed it.
	e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken})
	if err != nil {
		t.Fatalf("right token during the flood: %v", err)
	}
	defer e.Close()
	for range 2 * bridge.MaxUnauthenticated {
		c, err := net.Dial("tcp", h.Daemon.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	e.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) { return []protocol.TabInfo{}, nil })
	if _, perr := h.Client(t).Request(context.Background(), protocol.GetTabs()); perr != nil {
		t.Fatalf("the acked extension after another flood: %v", perr)
	}
	t.Logf("%d idle connections: %d shed, the right token acked with the cap full", n, shed)
}

// TestHTTPIdleTimeout: a kept-alive connection that sends nothing after
// its request is closed by the daemon after HTTPIdleTimeout, not held.
func TestHTTPIdleTimeout(t *testing.T) {
	t.Parallel()
	h := bridgetest.StartDaemon(t, bridge.Config{})
	c, err := net.Dial("tcp", h.Daemon.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A refused request (web page Origin) answered 403 on a keep-alive.
	if _, err := io.WriteString(c, "GET /ws/browser HTTP/1.1\r\nHost: "+h.Daemon.Addr()+"\r\nOrigin: https://evil.example\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || res.Close {
		t.Fatalf("status %d, close %v: want 403 on a kept-alive connection", res.StatusCode, res.Close)
	}
	start := time.Now()
	if !closedByPeer(c, start.Add(bridge.HTTPIdleTimeout+5*time.Second)) {
		t.Fatalf("the idle connection is still open after %s", time.Since(start).Round(time.Millisecond))
	}
	if took := time.Since(start); took < bridge.HTTPIdleTimeout-time.Second {
		t.Errorf("closed after %s, before the %s idle timeout", took, bridge.HTTPIdleTimeout)
	}
}

// TestRequestLineCap: a CLI request over MaxRequestLine is answered with
// invalid_action naming the cap, on the same connection, which goes on
// serving; answers are not capped: a result over it comes back whole.
func TestRequestLineCap(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	big := strings.Repeat("a", 3<<20) // a full-page screenshot's size
	ext.Handle(protocol.ActionEvaluate, func(protocol.Action) (any, *protocol.Error) {
		return map[string]any{"value": big}, nil
	})
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) { return []protocol.TabInfo{}, nil })
	c := h.Client(t)

	action, _ := json.Marshal(map[string]any{"type": "type", "selector": "#a", "text": strings.Repeat("x", bridge.MaxRequestLine)})
	_, err := c.RequestRaw(context.Background(), action, false)
	if err == nil || err.Code != protocol.CodeInvalidAction || !strings.Contains(err.Message, "over 1 MiB") {
		t.Fatalf("request over the cap = %v, want invalid_action naming 1 MiB", err)
	}
	if len(ext.Requests()) != 0 {
		t.Error("the request over the cap reached the extension")
	}
	if _, err := c.Request(context.Background(), protocol.GetTabs()); err != nil {
		t.Fatalf("the next request on the same connection: %v", err)
	}
	res, err := c.Request(context.Background(), protocol.Action{Type: protocol.ActionEvaluate, Expression: "return 1"})
	if err != nil {
		t.Fatalf("an answer of %d bytes: %v", len(big), err)
	}
	if len(res) < len(big) {
		t.Errorf("answer is %d bytes, want over %d", len(res), len(big))
	}
}

// TestRequestLineCapRaw: a raw client that sends an over-long line with
// no id, and never ends it, gets the refusal as soon as the cap passes,
// not when it stops sending.
func TestRequestLineCapRaw(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	c, err := home.DialLink(context.Background(), h.Dirs)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		chunk := []byte(strings.Repeat("z", 64<<10))
		for range 4 << 20 / len(chunk) { // 4 MiB, no newline
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
		_, _ = c.Write([]byte("\n{\"id\":\"s\",\"op\":\"status\"}\n"))
	}()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	dec := json.NewDecoder(c)
	var first, second struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *protocol.Error `json:"error"`
	}
	if err := dec.Decode(&first); err != nil {
		t.Fatalf("no answer to the over-long line: %v", err)
	}
	if first.Error == nil || first.Error.Code != protocol.CodeInvalidAction || !strings.Contains(first.Error.Message, "over 1 MiB") {
		t.Fatalf("answer = %+v, want invalid_action naming 1 MiB", first)
	}
	if err := dec.Decode(&second); err != nil || second.ID != "s" || second.Error != nil {
		t.Fatalf("the status after it = %+v, %v", second, err)
	}
}
