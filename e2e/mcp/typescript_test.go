package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// tsSDK is the official TypeScript MCP SDK the test installs from the npm
// registry, test-only, into a scratch folder (never a package.json that
// ships), as bench/peers/run installs its peers.
const tsSDK = "@modelcontextprotocol/sdk@1.32.2"

// TestTypeScriptClient: the sign-in scenario through the official
// TypeScript SDK's client, which validates every message against its own
// schemas (zod), in real Chromium, with --record: the flow written when
// the client closed replays the sign-in green. It needs node and npm:
// without them, or when the install fails, it fails (CI installs node; see
// .ci/run).
func TestTypeScriptClient(t *testing.T) {
	dir := installTSSDK(t)
	script := filepath.Join(dir, "ts_client.mjs")
	src, err := os.ReadFile(filepath.Join("testdata", "ts_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, src, 0o644); err != nil { // beside its node_modules
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "ts.yaml")
	cmd := exec.CommandContext(ctx, "node", script, buaBin, siteURL("")[:len(siteURL(""))-1], file)
	cmd.Env = buaEnv
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node ts_client.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var got struct {
		Tools      []string `json:"tools"`
		SchemaType string   `json:"schemaType"`
		Actions    int      `json:"actions"`
		TabID      int      `json:"tabId"`
		Obstacle   bool     `json:"obstacle"`
		Click      string   `json:"click"`
		Dashboard  string   `json:"dashboard"`
		Image      []string `json:"image"`
		Bad        struct {
			IsError bool   `json:"isError"`
			Field   string `json:"field"`
		} `json:"bad"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's output %q: %v\n%s", out, err, stderr.String())
	}
	// Every action the tool offers: all of the protocol's but a person's
	// own (bua record's), which the generated schema leaves out.
	var tool struct {
		Properties struct {
			Action struct {
				Enum []string `json:"enum"`
			} `json:"action"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(protocol.ToolSchema, &tool); err != nil || len(tool.Properties.Action.Enum) == 0 {
		t.Fatalf("protocol.ToolSchema: %v", err)
	}
	if !slices.Equal(got.Tools, []string{"browser"}) || got.SchemaType != "object" || got.Actions != len(tool.Properties.Action.Enum) || got.TabID == 0 || !got.Obstacle {
		t.Errorf("tools %v, schema %q with %d actions, tab %d, obstacle %v", got.Tools, got.SchemaType, got.Actions, got.TabID, got.Obstacle)
	}
	if !strings.Contains(got.Click, "dashboard.html?user=grace%40example.com") || !strings.Contains(got.Dashboard, "Signed in as **grace@example.com**") {
		t.Errorf("the sign-in did not land:\nclick: %s\ndashboard: %s", got.Click, got.Dashboard)
	}
	if !slices.Equal(got.Image, []string{"image/jpeg"}) || !got.Bad.IsError || got.Bad.Field != "url" {
		t.Errorf("screenshot %v; bad call %+v", got.Image, got.Bad)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the recording: %v\nbua mcp's stderr:\n%s", err, stderr.String())
	}
	flow := string(data)
	if strings.Contains(flow, "hopper") || !strings.Contains(flow, "- click: {role: button, name: Sign in}\n") || !slices.Equal(recordedEnv(t, flow), []string{"BUA_PASSWORD"}) {
		t.Fatalf("the recorded flow:\n%s", flow)
	}
	lint(t, file)
	tab, r := replayIn(t, file, nil, "BUA_PASSWORD=hopper")
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d\n%s\nthe flow:\n%s", r.Code, r.Output(), flow)
	}
	settles(t, tab, "document.getElementById('user').textContent", "grace@example.com")
}

// installTSSDK installs tsSDK into a scratch folder of the machine's temp
// directory, once (a marker names what is installed), and returns it.
func installTSSDK(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the TypeScript client test needs %s (Node 20 or later): %v", tool, err)
		}
	}
	dir := filepath.Join(os.TempDir(), "bua-mcp-ts-sdk")
	marker := filepath.Join(dir, ".installed")
	if b, err := os.ReadFile(marker); err == nil && string(b) == tsSDK {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"bua-mcp-ts-scratch","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", tsSDK)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s into %s failed: %v\n%s", tsSDK, dir, err, out)
	}
	if err := os.WriteFile(marker, []byte(tsSDK), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
