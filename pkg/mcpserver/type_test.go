package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestTypeReplaces: the tool's type replaces the field's value (clear:
// true unless the agent says clear: false), as Playwright MCP's
// browser_type does, and the tool's description says so; an extension
// without type_clear still types, as before (appending).
func TestTypeReplaces(t *testing.T) {
	f := start(t, Options{}, nil)
	f.navigate(t, "https://a.test/")
	for _, args := range []map[string]any{
		{"action": "type", "uid": "e1", "text": "Ada"},
		{"action": "type", "uid": "e1", "text": "Ada", "clear": true},
		{"action": "type", "uid": "e1", "text": " Lovelace", "clear": false},
	} {
		if res, text := f.call(t, args); res.IsError {
			t.Fatalf("%v: %s", args, text)
		}
	}
	var clears []bool
	for _, r := range f.ext.Requests() {
		if r.Type == protocol.ActionType_ {
			clears = append(clears, r.Clear)
		}
	}
	if len(clears) != 3 || !clears[0] || !clears[1] || clears[2] {
		t.Errorf("type's clear as sent: %v, want true (the default), true, false", clears)
	}
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(f.srv.Tool().InputSchema.(json.RawMessage), &schema); err != nil {
		t.Fatal(err)
	}
	if d := schema.Properties["clear"].Description; !strings.Contains(d, "default true") || !strings.Contains(d, "false") {
		t.Errorf("clear's description does not give the tool's default and how to append: %q", d)
	}
	if d := schema.Properties["action"].Description; !strings.Contains(d, "type(") || !strings.Contains(lineWith(d, "type("), "replac") {
		t.Errorf("type's line does not say it replaces the value:\n%s", lineWith(d, "type("))
	}

	// An extension that cannot clear (no type_clear in its hello).
	h := bridgetest.StartDaemon(t, bridge.Config{})
	features := []string{}
	for _, ft := range protocol.Features {
		if ft != protocol.FeatureTypeClear && ft != protocol.FeatureReplay {
			features = append(features, ft)
		}
	}
	var actions []protocol.ActionType
	for a := range protocol.ActionSpecs {
		actions = append(actions, a)
	}
	old := h.ConnectWith(t, bridgetest.Options{Caps: &protocol.Caps{Actions: actionStrings(actions), Features: features}})
	bridgetest.NewTabs().Serve(old)
	srv, err := New(Options{Requester: h.ClientAs(t, "agent-old")})
	if err != nil {
		t.Fatal(err)
	}
	lines := serveLines(t, srv, 0,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser","arguments":{"action":"navigate","url":"https://a.test/"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"browser","arguments":{"action":"type","uid":"e1","text":"Ada"}}}`,
	)
	if r := string(answerTo(t, lines, 3)); strings.Contains(r, `"isError":true`) || !strings.Contains(r, "ok: type e1") {
		t.Errorf("type on an extension without type_clear: %s", r)
	}
}

func actionStrings(as []protocol.ActionType) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}

// lineWith is the line of s that starts with prefix.
func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
