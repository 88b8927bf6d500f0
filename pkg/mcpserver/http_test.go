package mcpserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// httpFixture is an HTTPHandler on a loopback port in front of a daemon
// with a fake extension; each session's server is an agent of its own
// (an owner of its own on the daemon's link).
type httpFixture struct {
	h      *HTTPHandler
	url    string
	token  string
	ext    *bridgetest.Extension
	tabs   *bridgetest.Tabs
	ended  atomic.Int32 // sessions whose end hook ran
	served *http.Server
}

func startHTTP(t *testing.T) *httpFixture {
	t.Helper()
	d := bridgetest.StartDaemon(t, bridge.Config{})
	f := &httpFixture{ext: d.Connect(t), tabs: bridgetest.NewTabs(), token: bridge.NewToken()}
	f.tabs.Serve(f.ext)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var n atomic.Int32
	f.h, err = NewHTTP(HTTPOptions{
		Token: f.token, Port: port,
		Session: func() (*Server, func(), error) {
			cl := d.ClientAs(t, fmt.Sprintf("http-agent-%d", n.Add(1)))
			srv, err := New(Options{Requester: cl})
			return srv, func() { f.ended.Add(1); cl.Close() }, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.served = &http.Server{Handler: f.h}
	go f.served.Serve(ln)
	t.Cleanup(func() { f.h.Close(); f.served.Close() })
	f.url = fmt.Sprintf("http://127.0.0.1:%d%s", port, HTTPPath)
	return f
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (f *httpFixture) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{Transport: bearerTransport{f.token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// waitingCall starts a wait_for the fake extension never answers, on the
// session's own tab, and returns when the extension has it; the channel
// gets the call's end.
func (f *httpFixture) waitingCall(t *testing.T, cs *mcp.ClientSession) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"action": "navigate", "url": "https://a.test/"}}); err != nil || res.IsError {
		t.Fatalf("navigate: %v %v", res, err)
	}
	before := len(f.ext.Requests())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"action": "wait_for", "selector": "#never", "timeoutMs": 60000}})
		done <- err
	}()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if reqs := f.ext.Requests(); len(reqs) > before && reqs[len(reqs)-1].Type == protocol.ActionWaitFor {
			return done
		}
		if time.Now().After(end) {
			t.Fatal("the wait_for never reached the extension")
		}
	}
}

// TestHTTPDeleteEndsSession: a client that ends its session (DELETE)
// while a call waits gets its answer at once (the call is cancelled in
// the browser, not waited out), and the session's end hook runs, which
// frees its tabs; the other session goes on.
func TestHTTPDeleteEndsSession(t *testing.T) {
	f := startHTTP(t)
	f.ext.Handle(protocol.ActionWaitFor, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	a, b := f.connect(t), f.connect(t)
	done := f.waitingCall(t, a)
	// The DELETE a client sends when it ends its session, here while its
	// call waits.
	start := time.Now()
	req, _ := http.NewRequest("DELETE", f.url, nil)
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set("Mcp-Session-Id", a.ID())
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("DELETE with a call in flight: %v (after %v)", err, time.Since(start))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", resp.StatusCode)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight did not end with its session")
	}
	for end := time.Now().Add(5 * time.Second); f.ended.Load() != 1 || f.h.Sessions() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after a's DELETE: %d end hooks ran, %d sessions open; want 1 and 1", f.ended.Load(), f.h.Sessions())
		}
	}
	t.Logf("DELETE with a call in flight took %v", time.Since(start))
	for end := time.Now().Add(5 * time.Second); len(f.ext.Cancels()) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the browser was not told to cancel the wait_for")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.ListTools(ctx, nil); err != nil {
		t.Errorf("the other session after a's DELETE: %v", err)
	}
}

// TestHTTPCloseEndsSessions: closing the handler (the server's Ctrl-C)
// ends every session: calls in flight end at once, each end hook runs,
// and a new client is refused a session.
func TestHTTPCloseEndsSessions(t *testing.T) {
	f := startHTTP(t)
	f.ext.Handle(protocol.ActionWaitFor, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	a, _ := f.connect(t), f.connect(t)
	done := f.waitingCall(t, a)
	if n := f.h.Sessions(); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
	closed := make(chan struct{})
	go func() { f.h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the call in flight")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight did not end with the server")
	}
	if n, s := f.ended.Load(), f.h.Sessions(); n != 2 || s != 0 {
		t.Errorf("after Close: %d end hooks ran, %d sessions open; want 2 and 0", n, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{Transport: bearerTransport{f.token}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Errorf("a client after Close got a session")
	}
}

// TestHTTPSessionTimeout: a session idle for SessionTimeout ends, freeing
// its tabs.
func TestHTTPSessionTimeout(t *testing.T) {
	f := startHTTP(t)
	f.h.Close()
	// A handler of its own, with a short timeout, on the same daemon.
	d := bridgetest.StartDaemon(t, bridge.Config{})
	ext := d.Connect(t)
	bridgetest.NewTabs().Serve(ext)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var ended atomic.Int32
	h, err := NewHTTP(HTTPOptions{Token: f.token, Port: ln.Addr().(*net.TCPAddr).Port, SessionTimeout: 200 * time.Millisecond,
		Session: func() (*Server, func(), error) {
			cl := d.ClientAs(t, "idle-agent")
			srv, err := New(Options{Requester: cl})
			return srv, func() { ended.Add(1); cl.Close() }, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	defer h.Close()
	f.url, f.h = "http://"+ln.Addr().String()+HTTPPath, h
	f.connect(t)
	for end := time.Now().Add(5 * time.Second); ended.Load() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("an idle session did not end: %d sessions", h.Sessions())
		}
	}
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions after the idle one ended", n)
	}
}

// TestHTTPChecks: the Host, Origin and token checks one by one.
func TestHTTPChecks(t *testing.T) {
	h := &HTTPHandler{o: HTTPOptions{Port: 8123}}
	for host, want := range map[string]bool{
		"127.0.0.1:8123": true, "localhost:8123": true, "LOCALHOST:8123": true,
		"127.0.0.1:8124": false, "127.0.0.2:8123": false, "[::1]:8123": false, "evil.example:8123": false,
		"127.0.0.1": false, "localhost": false, "": false, "127.0.0.1:8123.evil.example": false, "localhost.evil.example:8123": false,
	} {
		if got := h.hostAllowed(host); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	for _, tc := range []struct {
		origin []string
		want   bool
	}{
		{[]string{"http://127.0.0.1:8123"}, true},
		{[]string{"http://localhost:8123"}, true},
		{[]string{"https://127.0.0.1:8123"}, false},
		{[]string{"http://127.0.0.1:8124"}, false},
		{[]string{"http://127.0.0.1:8123/"}, false},
		{[]string{"http://127.0.0.1:8123.evil.example"}, false},
		{[]string{"null"}, false},
		{[]string{""}, false},
		{[]string{"http://127.0.0.1:8123", "http://127.0.0.1:8123"}, false},
	} {
		if got := h.originAllowed(tc.origin); got != tc.want {
			t.Errorf("originAllowed(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
	tok := strings.Repeat("ab", 32)
	h, err := NewHTTP(HTTPOptions{Token: tok, Port: 8123, Session: func() (*Server, func(), error) { return nil, nil, fmt.Errorf("none") }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, tc := range []struct {
		auth []string
		want bool
	}{
		{[]string{"Bearer " + tok}, true},
		{[]string{"bearer " + tok}, true},
		{[]string{"Bearer  " + tok + " "}, true},
		{nil, false},
		{[]string{""}, false},
		{[]string{"Bearer"}, false},
		{[]string{"Bearer "}, false},
		{[]string{tok}, false},
		{[]string{"Basic " + tok}, false},
		{[]string{"Bearer " + tok[:63]}, false},
		{[]string{"Bearer " + tok + "a"}, false},
		{[]string{"Bearer " + strings.ToUpper(tok)}, false},
		{[]string{"Bearer " + tok, "Bearer " + tok}, false},
	} {
		r, _ := http.NewRequest("POST", "http://127.0.0.1:8123/mcp", nil)
		for _, a := range tc.auth {
			r.Header.Add("Authorization", a)
		}
		if got := h.authorized(r); got != tc.want {
			t.Errorf("authorized(%q) = %v, want %v", tc.auth, got, tc.want)
		}
	}
	if _, err := NewHTTP(HTTPOptions{Port: 8123, Session: func() (*Server, func(), error) { return nil, nil, nil }}); err == nil {
		t.Errorf("NewHTTP with no token: no error")
	}
}
