// Package mcp puts `bua mcp` through an agent's work in real headless
// Chromium with the real extension, driven by real MCP clients: the
// official Go SDK's client, and once the official TypeScript SDK's
// (typescript_test.go). Every test starts its own `bua mcp` processes
// (each one agent) against the package's one daemon and browser
// (TestMain), as an MCP client host would start them.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/internal/syncbuf"
)

var (
	buaBin   string   // the binary built by TestMain
	buaEnv   []string // its environment: the package's home, CI=true
	buaHome  string
	sitePort int
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	harness.RequireBrowser("e2e/mcp")
	tmp := harness.TempDir("buamcp")
	defer os.RemoveAll(tmp)
	buaBin = harness.BuildBua("../..", tmp)
	port, stop := harness.ServeSites("../../testdata/sites")
	defer stop()
	sitePort = port
	buaHome = filepath.Join(tmp, "h")
	buaEnv = harness.FreshEnv(buaHome)
	cmd := harness.Cmd{Bin: buaBin, Env: buaEnv}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	r := cmd.Run(ctx, "browser", "start", "--headless")
	cancel()
	if r.Code != 0 {
		harness.DumpLogs(buaHome)
		log.Fatalf("e2e/mcp: bua browser start exited %d:\n%s", r.Code, r.Output())
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd.Run(ctx, "browser", "stop")
		cmd.Run(ctx, "stop")
	}()
	code := m.Run()
	if code != 0 {
		harness.DumpLogs(buaHome)
	}
	return code
}

// siteURL is path on the fixture server.
func siteURL(path string) string { return fmt.Sprintf("http://127.0.0.1:%d/%s", sitePort, path) }

// agent is one `bua mcp` process and the Go SDK client connected to it
// over the process's stdin and stdout.
type agent struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{} // closed when the process has exited
	stderr *syncbuf.Buffer
}

// startAgent starts `bua mcp args...` as an MCP client host does, and
// connects the Go SDK's client to it. It is closed when t ends.
func startAgent(t *testing.T, opts *mcp.ClientOptions, args ...string) *agent {
	t.Helper()
	return startAgentEnv(t, nil, opts, args...)
}

// startAgentEnv is startAgent with env added to the package's.
func startAgentEnv(t *testing.T, env []string, opts *mcp.ClientOptions, args ...string) *agent {
	t.Helper()
	cmd := exec.Command(buaBin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(slices.Clone(buaEnv), env...)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agent{cmd: cmd, stdin: stdin, exited: make(chan struct{}), stderr: &stderr}
	go func() {
		_ = cmd.Wait()
		close(a.exited)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a.cs, err = mcp.NewClient(&mcp.Implementation{Name: "bua-e2e", Version: "1"}, opts).Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("connect to bua mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		a.hangUp()
		select {
		case <-a.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("bua mcp %s did not exit 10 s after its stdin closed", strings.Join(args, " "))
		}
		if t.Failed() {
			t.Logf("bua mcp %s stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return a
}

// hangUp closes bua mcp's stdin at once, as a host that quits (or
// crashes) does, without waiting for calls in flight.
func (a *agent) hangUp() { _ = a.stdin.Close() }

// call calls the browser tool and returns the result and its text; a
// JSON-RPC error fails t.
func (a *agent) call(t *testing.T, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return a.callCtx(ctx, t, args)
}

func (a *agent) callCtx(ctx context.Context, t *testing.T, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: args})
	if err != nil {
		t.Fatalf("%v: JSON-RPC error %v", args, err)
	}
	return res, textOf(res)
}

// must is call that fails t on an isError result.
func (a *agent) must(t *testing.T, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, text := a.call(t, args)
	if res.IsError {
		t.Fatalf("%v: isError\n%s", args, text)
	}
	return res, text
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes the result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// tabOf is the tabId in a result's structured content.
func tabOf(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	var r struct {
		TabID int `json:"tabId"`
	}
	structured(t, res, &r)
	if r.TabID == 0 {
		t.Fatalf("no tabId in %v", res.StructuredContent)
	}
	return r.TabID
}

// uidOf finds the uid of the element in an extract's text whose role and
// quoted name are given: `e3 button "Sign in"` gives e3, and so does a
// later element of a run of one role on a line, `e2 button "Back", e3
// "Sign in"`.
func uidOf(t *testing.T, text, role, name string) string {
	t.Helper()
	q := fmt.Sprintf("%q", name)
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		f := strings.Fields(l)
		if len(f) < 3 || f[1] != role {
			continue
		}
		if strings.HasPrefix(l, f[0]+" "+role+" "+q) {
			return f[0]
		}
		for _, later := range strings.Split(l, ", e")[1:] {
			if uid, rest, ok := strings.Cut(later, " "); ok && strings.HasPrefix(rest, q) {
				return "e" + uid
			}
		}
	}
	t.Fatalf("no %s %q in:\n%s", role, name, text)
	return ""
}

// daemonLog is the daemon's log from offset on, and its size.
func daemonLog(t *testing.T, offset int64) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(buaHome, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data[min(offset, int64(len(data))):]), int64(len(data))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
