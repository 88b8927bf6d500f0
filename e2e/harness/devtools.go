package harness

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"encoding/json"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/browser"
)

// DevToolsChrome writes, into dir, a browser wrapper for tests that need
// CDP of their own (to open the options page, stop the service worker,
// time the raw floor): it runs the browser bua would find with
// --remote-debugging-port=0 added. A test passes it as $BUA_CHROME, the
// documented way to pick the browser binary, so the port exists for that
// test's browser alone; bua itself never opens one.
func DevToolsChrome(dir string) string {
	real, err := browser.Find(os.Getenv)
	if err != nil {
		log.Fatalf("harness: %v", err)
	}
	path := filepath.Join(dir, "chrome-devtools")
	script := fmt.Sprintf("#!/bin/sh\nexec %s \"$@\" --remote-debugging-port=0\n", shellQuote(real))
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		log.Fatalf("harness: %v", err)
	}
	return path
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// DevToolsURL is the browser-level CDP WebSocket URL of a browser started
// with DevToolsChrome on profileDir, read from the DevToolsActivePort file
// Chromium writes there once it listens.
func DevToolsURL(profileDir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(profileDir, "DevToolsActivePort"))
	if err != nil {
		return "", fmt.Errorf("DevToolsActivePort (was the browser started with harness.DevToolsChrome?): %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) < 2 {
		return "", fmt.Errorf("DevToolsActivePort incomplete: %q", raw)
	}
	return fmt.Sprintf("ws://127.0.0.1:%s%s", strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])), nil
}

// ManagedProfile is the profile directory of the managed browser under a
// BUA_HOME.
func ManagedProfile(home string) string { return filepath.Join(home, "browser", "profile") }

// CDP is a minimal DevTools client for tests: calls in order, events
// skipped.
type CDP struct {
	ws  *websocket.Conn
	seq atomic.Int64
}

// CDPCmd is one command of CallAll.
type CDPCmd struct {
	Method string
	Params map[string]any
}

// DialCDP connects to a browser-level DevTools URL (DevToolsURL).
func DialCDP(url string) (*CDP, error) {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return nil, err
	}
	return &CDP{ws: ws}, nil
}

// Close closes the connection.
func (c *CDP) Close() error { return c.ws.Close() }

// Call sends one command (on sessionID, "" for the browser) and returns its
// result, or the CDP error as an error.
func (c *CDP) Call(sessionID, method string, params map[string]any) (json.RawMessage, error) {
	res, err := c.CallAll(sessionID, []CDPCmd{{method, params}})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// CallAll sends every command before reading any answer, as the extension
// does where calls do not depend on each other, and waits for all of them.
func (c *CDP) CallAll(sessionID string, cmds []CDPCmd) ([]json.RawMessage, error) {
	ids := map[int64]int{}
	for i, cmd := range cmds {
		id := c.seq.Add(1)
		ids[id] = i
		params := cmd.Params
		if params == nil {
			params = map[string]any{}
		}
		msg := map[string]any{"id": id, "method": cmd.Method, "params": params}
		if sessionID != "" {
			msg["sessionId"] = sessionID
		}
		if err := c.ws.WriteJSON(msg); err != nil {
			return nil, err
		}
	}
	out := make([]json.RawMessage, len(cmds))
	for len(ids) > 0 {
		var resp struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := c.ws.ReadJSON(&resp); err != nil {
			return nil, err
		}
		i, ok := ids[resp.ID]
		if !ok {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", cmds[i].Method, resp.Error.Message)
		}
		out[i] = resp.Result
		delete(ids, resp.ID)
	}
	return out, nil
}

// Target is one entry of Target.getTargets.
type Target struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	URL      string `json:"url"`
}

// Targets lists the browser's targets (pages, service workers, …).
func (c *CDP) Targets() ([]Target, error) {
	res, err := c.Call("", "Target.getTargets", nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		TargetInfos []Target `json:"targetInfos"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return r.TargetInfos, nil
}

// Attach attaches a flat session to targetID and returns its sessionId.
func (c *CDP) Attach(targetID string) (string, error) {
	res, err := c.Call("", "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true})
	if err != nil {
		return "", err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	err = json.Unmarshal(res, &att)
	return att.SessionID, err
}
