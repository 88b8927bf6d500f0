package mcp

import (
	"bytes"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSignIn is an agent's sign-in through the tool, in real Chromium:
// navigate, extract (the login wall's verdict names the handoff), type
// the email, type the password, click Sign in, and read the dashboard.
func TestSignIn(t *testing.T) {
	a := startAgent(t, nil)
	res, text := a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	tab := tabOf(t, res)
	if !strings.HasPrefix(text, "ok: navigate "+siteURL("app/login.html")) || !strings.Contains(text, "Sign in – Demo app") {
		t.Errorf("navigate's answer:\n%s", text)
	}

	_, page := a.must(t, map[string]any{"action": "extract"})
	t.Logf("navigate's answer:\n%s\nextract's answer:\n%s", text, page)
	for _, w := range []string{"# Sign in to the demo app", "obstacle: auth_wall (high)", "next: sign in only with credentials the person gave you for this site; otherwise call handoff"} {
		if !strings.Contains(page, w) {
			t.Errorf("extract lacks %q:\n%s", w, page)
		}
	}
	email := uidOf(t, page, "textbox", "Email")
	password := uidOf(t, page, "textbox", "Password")
	submit := uidOf(t, page, "button", "Sign in")

	for _, step := range []map[string]any{
		{"action": "type", "uid": email, "text": "ada@example.com"},
		{"action": "type", "uid": password, "text": "correct horse"},
	} {
		_, text := a.must(t, step)
		if !strings.HasPrefix(text, "ok: type "+step["uid"].(string)) || strings.Contains(text, step["text"].(string)) {
			t.Errorf("type's answer (it must not echo the text):\n%s", text)
		}
	}
	res, text = a.must(t, map[string]any{"action": "click", "uid": submit})
	if got := tabOf(t, res); got != tab {
		t.Errorf("click ran on tab %d, want the agent's tab %d", got, tab)
	}
	t.Logf("click's answer:\n%s", text)
	if !strings.Contains(text, "dashboard.html?user=ada%40example.com") {
		t.Errorf("click's answer does not say where the tab went:\n%s", text)
	}
	_, page = a.must(t, map[string]any{"action": "extract"})
	if !strings.Contains(page, "Signed in as **ada@example.com**") {
		t.Errorf("the dashboard does not show the user:\n%s", page)
	}
	_, text = a.must(t, map[string]any{"action": "evaluate", "expression": "return document.title"})
	if !strings.Contains(text, "Dashboard – Demo app") {
		t.Errorf("evaluate:\n%s", text)
	}
}

// TestStaleUID: a uid from before a navigation is isError element_stale,
// with the contract's next step (extract again).
func TestStaleUID(t *testing.T) {
	a := startAgent(t, nil)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	_, page := a.must(t, map[string]any{"action": "extract"})
	submit := uidOf(t, page, "button", "Sign in")
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/index.html")})
	res, text := a.call(t, map[string]any{"action": "click", "uid": submit})
	if !res.IsError || !strings.HasPrefix(text, "error[element_stale]") || !strings.Contains(text, "next: the page changed since the extract: extract again") {
		t.Errorf("a stale uid: isError %v\n%s", res.IsError, text)
	}
}

// TestScreenshot: screenshot answers a real JPEG as an MCP image.
func TestScreenshot(t *testing.T) {
	a := startAgent(t, nil)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	res, _ := a.must(t, map[string]any{"action": "screenshot"})
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/jpeg" {
		t.Fatalf("content %v: want an image/jpeg item", res.Content)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width < 100 || cfg.Height < 100 {
		t.Errorf("the image does not decode as a JPEG of a page: %v %+v", err, cfg)
	}
}

// TestBadArguments: arguments the protocol refuses are isError naming the
// field, and the next call works.
func TestBadArguments(t *testing.T) {
	a := startAgent(t, nil)
	for _, tc := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"action": "navigate", "url": "file:///etc/passwd"}, "url"},
		{map[string]any{"action": "click"}, ""},
		{map[string]any{"action": "scroll", "direction": "sideways"}, "direction"},
		{map[string]any{"action": "open_tab", "url": siteURL("a"), "tabId": 3}, "tabId"},
	} {
		res, text := a.call(t, tc.args)
		var e struct {
			Error struct {
				Code  string `json:"code"`
				Field string `json:"field"`
			} `json:"error"`
		}
		structured(t, res, &e)
		if !res.IsError || e.Error.Code != "invalid_action" || e.Error.Field != tc.field || (tc.field != "" && !strings.Contains(text, tc.field)) {
			t.Errorf("%v: isError %v, %+v\n%s", tc.args, res.IsError, e, text)
		}
	}
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/index.html")})
}

// TestToolsList: the real binary's tools/list is one flat tool with every
// action, within half of Playwright MCP's 20,296 characters.
func TestToolsList(t *testing.T) {
	for _, args := range [][]string{nil, {"--read-only"}} {
		a := startAgent(t, nil, args...)
		res, err := a.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != 1 || res.Tools[0].Name != "browser" {
			t.Fatalf("tools %v", res.Tools)
		}
		raw := mustJSON(t, res)
		t.Logf("bua mcp %v: tools/list is %d characters (Playwright MCP 0.0.83: 20,296)", args, len(raw))
		if len(raw) > 20296/2 {
			t.Errorf("tools/list is %d characters", len(raw))
		}
		schema := res.Tools[0].InputSchema.(map[string]any)
		if schema["type"] != "object" || schema["oneOf"] != nil || schema["anyOf"] != nil || schema["allOf"] != nil {
			t.Errorf("inputSchema is not flat: %v", schema)
		}
	}
}
