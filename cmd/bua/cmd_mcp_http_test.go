package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
)

// httpMCP is `bua mcp --port 0 args...` run in-process against a fake
// extension's daemon.
type httpMCP struct {
	url, token string
	errb       *syncbuf.Buffer
	done       chan int
	cancel     context.CancelFunc
}

var setupURL = regexp.MustCompile(`serving MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+/mcp)`)
var setupToken = regexp.MustCompile(`"Authorization: Bearer ([0-9a-f]{64})"`)

// startHTTPMCP starts `bua mcp --port 0 args...` with h's home and waits
// for the URL and token it prints.
func startHTTPMCP(t *testing.T, h *bridgetest.Harness, args ...string) *httpMCP {
	t.Helper()
	p := &httpMCP{errb: &syncbuf.Buffer{}, done: make(chan int, 1)}
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: p.errb, Now: time.Now,
		Getenv: func(k string) string { return map[string]string{"BUA_HOME": h.Dirs.Config}[k] }}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	p.cancel = cancel
	t.Cleanup(cancel)
	go func() { p.done <- run(ctx, append([]string{"bua", "mcp", "--port", "0"}, args...), env) }()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		out := p.errb.String()
		if m := setupURL.FindStringSubmatch(out); m != nil {
			p.url = m[1]
			if tm := setupToken.FindStringSubmatch(out); tm != nil {
				p.token = tm[1]
				return p
			}
		}
		select {
		case code := <-p.done:
			t.Fatalf("bua mcp --port exited %d at start:\n%s", code, out)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("bua mcp --port printed no URL and token:\n%s", out)
		}
	}
}

// stop ends the server as Ctrl-C does and returns its exit code.
func (p *httpMCP) stop(t *testing.T) int {
	t.Helper()
	p.cancel()
	select {
	case code := <-p.done:
		return code
	case <-time.After(15 * time.Second):
		t.Fatalf("bua mcp --port did not stop:\n%s", p.errb.String())
		return -1
	}
}

// bearer adds the Authorization header to every request, as a client
// configured with the header does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is a Go SDK client over streamable HTTP: a session of its own.
func (p *httpMCP) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearer{p.token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v\n%s", err, p.errb.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callHTTP calls the browser tool and returns the result and its text.
func callHTTP(t *testing.T, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: args})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return res, strings.Join(texts, "\n")
}

func tabIDOf(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	tab, _ := res.StructuredContent.(map[string]any)["tabId"].(float64)
	if tab == 0 {
		t.Fatalf("no tabId in %v", res.StructuredContent)
	}
	return int(tab)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestMCPHTTP: `bua mcp --port 0` serves MCP over streamable HTTP to the
// Go SDK's client (initialize, tools/list, a call through the daemon),
// keeps its token private in the config dir, prints it once at start for
// the client's config and never logs it, and stops on Ctrl-C with exit 0.
func TestMCPHTTP(t *testing.T) {
	h, ext := startFake(t)
	bridgetest.NewTabs().Serve(ext)
	p := startHTTPMCP(t, h)
	if !strings.Contains(p.errb.String(), "claude mcp add --transport http bua "+p.url+` --header "Authorization: Bearer `+p.token+`"`) {
		t.Errorf("no Claude Code command in the setup:\n%s", p.errb.String())
	}
	file := h.Dirs.MCPTokenFile()
	checkPrivate(t, file, "the MCP bearer token")
	if data, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(data)) != p.token {
		t.Errorf("token file %s holds %q (%v), the server printed %s", file, data, err, p.token)
	}

	cs := p.connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "browser" {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	if res, text := callHTTP(t, cs, map[string]any{"action": "navigate", "url": "https://a.test/"}); res.IsError || !strings.Contains(text, "navigate https://a.test/") {
		t.Errorf("navigate over HTTP: %s", text)
	}
	cs.Close()

	if code := p.stop(t); code != 0 {
		t.Errorf("bua mcp --port exited %d on Ctrl-C, want 0", code)
	}
	for _, line := range strings.Split(p.errb.String(), "\n") {
		if strings.HasPrefix(line, "time=") && strings.Contains(line, p.token) {
			t.Errorf("a log line holds the token: %s", line)
		}
	}
	if n := strings.Count(p.errb.String(), "bua mcp: every request must carry the header"); n != 1 {
		t.Errorf("the header is printed %d times, want once", n)
	}
}

// TestMCPHTTPRefuses: a request with no token, a wrong one, another
// scheme, a foreign Host (DNS rebinding) or port, or a foreign Origin is
// refused (401 for the token, 403 for Host and Origin) with nothing
// served: no session, no JSON-RPC, nothing sent to the browser. The same
// request with the token, and with the server's own Origin, is served.
func TestMCPHTTPRefuses(t *testing.T) {
	h, ext := startFake(t)
	p := startHTTPMCP(t, h)
	defer p.stop(t)
	port := strings.TrimSuffix(strings.TrimPrefix(p.url, "http://127.0.0.1:"), "/mcp")
	good := "Bearer " + p.token
	for _, tc := range []struct {
		name, host, auth, origin, site string
		want                           int
	}{
		{"NoToken", "", "", "", "", http.StatusUnauthorized},
		{"WrongToken", "", "Bearer " + strings.Repeat("0", 64), "", "", http.StatusUnauthorized},
		{"TokenCut", "", good[:len(good)-1], "", "", http.StatusUnauthorized},
		{"TokenSuffix", "", good + "0", "", "", http.StatusUnauthorized},
		{"BasicScheme", "", "Basic " + p.token, "", "", http.StatusUnauthorized},
		{"BareToken", "", p.token, "", "", http.StatusUnauthorized},
		{"ForeignHost", "evil.example:" + port, good, "", "", http.StatusForbidden},
		{"ForeignHostNoPort", "evil.example", good, "", "", http.StatusForbidden},
		{"OtherPort", "127.0.0.1:1", good, "", "", http.StatusForbidden},
		{"ForeignOrigin", "", good, "https://evil.example", "", http.StatusForbidden},
		{"NullOrigin", "", good, "null", "", http.StatusForbidden},
		{"OriginOtherPort", "", good, "http://127.0.0.1:1", "", http.StatusForbidden},
		{"CrossSiteFetch", "", good, "", "cross-site", http.StatusForbidden},
		{"OwnOrigin", "", good, "http://127.0.0.1:" + port, "", http.StatusOK},
		{"Localhost", "localhost:" + port, good, "", "", http.StatusOK},
		{"Token", "", good, "", "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", p.url, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d; body %q", resp.StatusCode, tc.want, body)
			}
			if tc.want == http.StatusOK {
				if !strings.Contains(string(body), `"serverInfo"`) || resp.Header.Get("Mcp-Session-Id") == "" {
					t.Errorf("a good request was not served: %s", body)
				}
				return
			}
			if resp.Header.Get("Mcp-Session-Id") != "" || strings.Contains(string(body), "jsonrpc") || strings.Contains(string(body), p.token) {
				t.Errorf("a refused request was served: session %q, body %q", resp.Header.Get("Mcp-Session-Id"), body)
			}
			if tc.want == http.StatusUnauthorized && strings.TrimSpace(string(body)) != "unauthorized" {
				t.Errorf("401 body %q, want only \"unauthorized\"", body)
			}
		})
	}
	if reqs := ext.Requests(); len(reqs) != 0 {
		t.Errorf("the browser got %v", reqs)
	}
	if log := p.errb.String(); !strings.Contains(log, `msg="mcp request refused: token" authorization=missing`) || !strings.Contains(log, `msg="mcp request refused: Host" host=evil.example:`+port) {
		t.Errorf("the refusals are not logged:\n%s", log)
	}
}

// TestMCPHTTPSessions: each HTTP session is an agent with tabs of its
// own, as each stdio server is: two clients each open a tab, act on their
// own with no tabId, see their own marked and the other's held, and may
// not act on the other's; when a client ends its session (DELETE), its
// tabs (kept open: --keep-tabs) are free again and the other may take
// them.
func TestMCPHTTPSessions(t *testing.T) {
	h, ext := startFake(t)
	tabs := bridgetest.NewTabs()
	tabs.Serve(ext)
	p := startHTTPMCP(t, h, "--keep-tabs")
	defer p.stop(t)
	a, b := p.connect(t), p.connect(t)
	resA, _ := callHTTP(t, a, map[string]any{"action": "navigate", "url": "https://a.test/"})
	resB, _ := callHTTP(t, b, map[string]any{"action": "navigate", "url": "https://b.test/"})
	tabA, tabB := tabIDOf(t, resA), tabIDOf(t, resB)
	if tabA == tabB {
		t.Fatalf("both sessions got tab %d", tabA)
	}
	// No tabId: each goes to its own tab.
	callHTTP(t, a, map[string]any{"action": "navigate", "url": "https://a.test/2"})
	callHTTP(t, b, map[string]any{"action": "navigate", "url": "https://b.test/2"})
	if tabs.URL(tabA) != "https://a.test/2" || tabs.URL(tabB) != "https://b.test/2" {
		t.Errorf("tab %d at %s, tab %d at %s: each session's navigate should stay on its own tab", tabA, tabs.URL(tabA), tabB, tabs.URL(tabB))
	}
	res, _ := callHTTP(t, a, map[string]any{"action": "get_tabs"})
	list, _ := res.StructuredContent.(map[string]any)["tabs"].([]any)
	mine, held := map[int]bool{}, map[int]bool{}
	for _, x := range list {
		tab, _ := x.(map[string]any)
		id, _ := tab["tabId"].(float64)
		mine[int(id)], _ = tab["mine"].(bool)
		held[int(id)], _ = tab["heldByOther"].(bool)
	}
	if !mine[tabA] || mine[tabB] || !held[tabB] || held[tabA] {
		t.Errorf("a's get_tabs: mine %v, heldByOther %v; want its tab %d mine and b's %d held", mine, held, tabA, tabB)
	}
	if res, text := callHTTP(t, a, map[string]any{"action": "navigate", "url": "https://a.test/x", "tabId": tabB}); !res.IsError || !strings.Contains(text, "held by another agent") {
		t.Errorf("a's navigate on b's tab: isError %v\n%s", res.IsError, text)
	}
	if tabs.URL(tabB) != "https://b.test/2" {
		t.Errorf("b's tab moved to %s after a refused navigate", tabs.URL(tabB))
	}

	// a ends its session: its tab is free again.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, text := callHTTP(t, b, map[string]any{"action": "navigate", "url": "https://b.test/took", "tabId": tabA})
		if !res.IsError {
			break
		}
		if time.Now().After(end) || !strings.Contains(text, "held by another agent") {
			t.Fatalf("b on a's tab %d after a's session ended: %s", tabA, text)
		}
	}
	if tabs.URL(tabA) != "https://b.test/took" {
		t.Errorf("a's former tab is at %s", tabs.URL(tabA))
	}
	if !strings.Contains(p.errb.String(), `msg="mcp session ended" why=closed sessions=1`) {
		t.Errorf("no session end in the log:\n%s", p.errb.String())
	}
}

// TestMCPHTTPClosesTabs: a session is an agent, and the tabs it opened
// are closed when it ends (its client's DELETE); the tabs of a session
// still running, and the person's, stay.
func TestMCPHTTPClosesTabs(t *testing.T) {
	h, ext := startFake(t)
	tabs := bridgetest.NewTabs()
	tabs.Serve(ext)
	person := tabs.Open("https://person.test/")
	p := startHTTPMCP(t, h)
	defer p.stop(t)
	a, b := p.connect(t), p.connect(t)
	resA, _ := callHTTP(t, a, map[string]any{"action": "navigate", "url": "https://a.test/"})
	resA2, _ := callHTTP(t, a, map[string]any{"action": "open_tab", "url": "https://a.test/2"})
	callHTTP(t, a, map[string]any{"action": "extract", "tabId": person})
	resB, _ := callHTTP(t, b, map[string]any{"action": "navigate", "url": "https://b.test/"})
	tabA, tabA2, tabB := tabIDOf(t, resA), tabIDOf(t, resA2), tabIDOf(t, resB)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); tabs.URL(tabA) != "" || tabs.URL(tabA2) != ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("a's tabs %d (%s) and %d (%s) are open 10 s after its session ended\n%s", tabA, tabs.URL(tabA), tabA2, tabs.URL(tabA2), p.errb.String())
		}
	}
	if tabs.URL(tabB) != "https://b.test/" || tabs.URL(person) != "https://person.test/" {
		t.Errorf("b's tab is at %q, the person's at %q: only a's own tabs should close", tabs.URL(tabB), tabs.URL(person))
	}
	if res, text := callHTTP(t, b, map[string]any{"action": "extract"}); res.IsError {
		t.Errorf("b after a's session ended: %s", text)
	}
}

// TestMCPHTTPToken: the token outlives the server (the next start serves
// the same one) until --rotate-token writes a new one; a token file others
// may read is refused with the fix, and nothing is served.
func TestMCPHTTPToken(t *testing.T) {
	h, _ := startFake(t)
	p := startHTTPMCP(t, h)
	first := p.token
	p.stop(t)
	if p = startHTTPMCP(t, h); p.token != first {
		t.Errorf("a restart printed token %s, want the kept %s", p.token, first)
	}
	p.stop(t)
	p = startHTTPMCP(t, h, "--rotate-token")
	if p.token == first || len(p.token) != 64 {
		t.Errorf("--rotate-token printed %s (was %s)", p.token, first)
	}
	data, _ := os.ReadFile(h.Dirs.MCPTokenFile())
	if strings.TrimSpace(string(data)) != p.token {
		t.Errorf("the file holds %q after --rotate-token, the server printed %s", data, p.token)
	}
	checkPrivate(t, h.Dirs.MCPTokenFile(), "the rotated MCP token")
	// The old token no longer opens it.
	req, _ := http.NewRequest("POST", p.url, strings.NewReader(initializeBody))
	req.Header.Set("Authorization", "Bearer "+first)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old token after --rotate-token: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	p.stop(t)

	if runtime.GOOS == "windows" {
		return // no modes to open: home's own tests open the DACL
	}
	if err := os.Chmod(h.Dirs.MCPTokenFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLIEnv(t, h, nil, "", "mcp", "--port", "0")
	if r.code != exitUnavailable || !strings.Contains(r.stderr, "the token file is not private") || !strings.Contains(r.stderr, "--rotate-token") || strings.Contains(r.stderr, "serving MCP") {
		t.Errorf("an open token file: exit %d\n%s", r.code, r.stderr)
	}
	if err := home.CheckPrivate(h.Dirs.MCPTokenFile()); err == nil {
		t.Errorf("the open token file was made private behind the person's back")
	}
}

// TestMCPHTTPQuiet: with --quiet the server prints where it serves and
// where the token is, not the token, for a supervisor that keeps stderr
// in a log.
func TestMCPHTTPQuiet(t *testing.T) {
	h, _ := startFake(t)
	p := startHTTPMCP(t, h) // writes the token
	p.stop(t)
	errb := &syncbuf.Buffer{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: errb, Now: time.Now,
		Getenv: func(k string) string { return map[string]string{"BUA_HOME": h.Dirs.Config}[k] }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"bua", "mcp", "--port", "0", "--quiet"}, env) }()
	for end := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "the bearer token is in "+h.Dirs.MCPTokenFile()); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("bua mcp --port --quiet:\n%s", errb.String())
		}
	}
	cancel()
	if code := <-done; code != 0 || strings.Contains(errb.String(), p.token) {
		t.Errorf("--quiet: exit %d, and the token printed: %v\n%s", code, strings.Contains(errb.String(), p.token), errb.String())
	}
}

// TestMCPHTTPUsage: --port's companions and conflicts.
func TestMCPHTTPUsage(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--port", "70000"},
		{"mcp", "--port", "-1"},
		{"mcp", "--port", "0", "--record", "x.yaml"},
		{"mcp", "--rotate-token"},
		{"mcp", "--session-timeout", "5m"},
		{"mcp", "--port", "0", "--session-timeout", "-1s"},
	} {
		if r := runCLI(t, nil, "", args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}
