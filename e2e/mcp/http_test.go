package mcp

import (
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/internal/syncbuf"
)

// httpServer is one `bua mcp --port 0` process: MCP over streamable HTTP.
type httpServer struct {
	url, token string
	cmd        *exec.Cmd
	exited     chan struct{}
	stderr     *syncbuf.Buffer
}

var (
	httpURL   = regexp.MustCompile(`serving MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+/mcp)`)
	httpToken = regexp.MustCompile(`"Authorization: Bearer ([0-9a-f]{64})"`)
)

// startHTTPServer starts `bua mcp --port 0 args...` as a person would in
// a terminal, and reads the URL and token it prints. SIGTERM ends it when
// t ends.
func startHTTPServer(t *testing.T, args ...string) *httpServer {
	t.Helper()
	s := &httpServer{exited: make(chan struct{}), stderr: &syncbuf.Buffer{}}
	s.cmd = exec.Command(buaBin, append([]string{"mcp", "--port", "0"}, args...)...)
	s.cmd.Env = slices.Clone(buaEnv)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("bua mcp --port did not exit 10 s after SIGTERM")
		}
		if t.Failed() {
			t.Logf("bua mcp --port stderr:\n%s", s.stderr.String())
		}
	})
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := s.stderr.String()
		u, tok := httpURL.FindStringSubmatch(out), httpToken.FindStringSubmatch(out)
		if u != nil && tok != nil {
			s.url, s.token = u[1], tok[1]
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("bua mcp --port exited at start:\n%s", out)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("bua mcp --port printed no URL and token in 30 s:\n%s", out)
		}
	}
}

// withBearer sends the token on every request, as a client configured
// with the printed header does.
type withBearer struct{ token string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is the Go SDK's client over its StreamableClientTransport: an
// agent, a session of its own. The returned agent has no process; its
// calls go over HTTP.
func (s *httpServer) connect(t *testing.T) *agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bua-e2e-http", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: withBearer{s.token}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v\nstderr:\n%s", s.url, err, s.stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &agent{cs: cs}
}

// TestHTTPAgents: `bua mcp --port` serves real MCP clients over
// streamable HTTP in real Chromium. One session signs in (navigate,
// extract, type, click on uids, extract of the next page); a second works
// at the same time in a tab of its own; each is kept to its own tabs; when
// the first ends its session the tab it opened is closed; a request
// without the token is refused with nothing done; SIGTERM ends the server.
func TestHTTPAgents(t *testing.T) {
	s := startHTTPServer(t)
	a, b := s.connect(t), s.connect(t)

	resA, _ := a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	resB, _ := b.must(t, map[string]any{"action": "navigate", "url": siteURL("app/form.html")})
	tabA, tabB := tabOf(t, resA), tabOf(t, resB)
	if tabA == tabB {
		t.Fatalf("both sessions got tab %d", tabA)
	}
	_, page := a.must(t, map[string]any{"action": "extract"})
	if !strings.Contains(page, "Sign in to the demo app") {
		t.Fatalf("a's extract is not the login page:\n%s", page)
	}
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Email"), "text": "ada@example.com"})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Password"), "text": "s3cret"})
	_, click := a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "button", "Sign in")})
	if !strings.Contains(click, "dashboard.html") {
		t.Errorf("the sign-in click's answer does not name the dashboard:\n%s", click)
	}
	_, dash := a.must(t, map[string]any{"action": "extract"})
	if !strings.Contains(dash, "# Dashboard") || !strings.Contains(dash, "ada@example.com") {
		t.Errorf("a's extract after signing in:\n%s", dash)
	}
	// b stayed on its own page, on its own tab.
	resB2, pathB := b.must(t, map[string]any{"action": "evaluate", "expression": "return location.pathname"})
	if !strings.Contains(pathB, "/app/form.html") || tabOf(t, resB2) != tabB {
		t.Errorf("b's page moved: %s (tab %d, want %d)", pathB, tabOf(t, resB2), tabB)
	}

	_, tabs := a.must(t, map[string]any{"action": "get_tabs"})
	if !strings.Contains(lineOf(tabs, strconv.Itoa(tabA)), "[yours]") || !strings.Contains(lineOf(tabs, strconv.Itoa(tabB)), "[another agent's") {
		t.Errorf("a's get_tabs does not mark the tabs:\n%s", tabs)
	}
	if res, text := a.call(t, map[string]any{"action": "navigate", "url": siteURL("blank.html"), "tabId": tabB}); !res.IsError || !strings.Contains(text, "held by another agent") {
		t.Errorf("a's navigate on b's tab: isError %v\n%s", res.IsError, text)
	}

	// No token: refused, nothing served.
	req, _ := http.NewRequest("POST", s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a request without the token: %v %v, want 401 and no session", resp, err)
	} else {
		resp.Body.Close()
	}

	// a ends its session: the tab it opened is closed; b's stays.
	if err := a.cs.Close(); err != nil {
		t.Fatalf("a's close: %v", err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, text := b.call(t, map[string]any{"action": "evaluate", "expression": "return 1", "tabId": tabA})
		if res.IsError && strings.Contains(text, "tab_not_found") {
			break
		}
		if time.Now().After(end) || (res.IsError && !strings.Contains(text, "held by another agent")) {
			t.Fatalf("b on a's tab %d after a's session ended (want it closed): isError %v %s", tabA, res.IsError, text)
		}
	}
	if _, p := b.must(t, map[string]any{"action": "evaluate", "expression": "return location.pathname"}); !strings.Contains(p, "/app/form.html") {
		t.Errorf("b's own tab after a's session ended: %s", p)
	}

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("bua mcp --port still runs 5 s after SIGTERM")
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("bua mcp --port exited %d on SIGTERM, want 0", code)
	}
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if strings.HasPrefix(line, "time=") && strings.Contains(line, s.token) {
			t.Errorf("a log line holds the token: %s", line)
		}
	}
}
