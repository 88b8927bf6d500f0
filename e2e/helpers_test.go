package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// errorBody is the CLI's scripted error form: {"error": {code, message, hint}}.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	Reason  string `json:"reason"`
}

var stderrError = regexp.MustCompile(`(?m)^error\[([a-z_]+)\]: (.*)$`)

// request runs `bua request '<action>'` and returns the result JSON on exit
// 0, or the parsed error and the exit code otherwise. The error is read
// from stdout's {"error": ...} or, failing that, stderr's "error[code]:".
func request(t *testing.T, action map[string]any, extraArgs ...string) (json.RawMessage, *errorBody, int) {
	t.Helper()
	raw, err := json.Marshal(action)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"request", string(raw)}, extraArgs...)
	r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, args...)
	out := bytes.TrimSpace([]byte(r.Stdout))
	if r.Code == 0 {
		if !json.Valid(out) {
			t.Fatalf("bua request %s: exit 0 but stdout is not JSON:\n%s\nstderr:\n%s", raw, out, r.Stderr)
		}
		return out, nil, 0
	}
	var body struct {
		Error *errorBody `json:"error"`
	}
	if json.Unmarshal(out, &body) == nil && body.Error != nil {
		return nil, body.Error, r.Code
	}
	if m := stderrError.FindStringSubmatch(r.Stderr); m != nil {
		return nil, &errorBody{Code: m[1], Message: m[2]}, r.Code
	}
	t.Fatalf("bua request %s: exit %d with no error body\nstdout:\n%s\nstderr:\n%s", raw, r.Code, r.Stdout, r.Stderr)
	return nil, nil, r.Code
}

// mustRequest runs an action that must succeed and decodes its result into out.
func mustRequest(t *testing.T, action map[string]any, out any) {
	t.Helper()
	res, e, code := request(t, action)
	if e != nil {
		t.Fatalf("%v: exit %d, error %s: %s", action, code, e.Code, e.Message)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%v: result %s: %v", action, res, err)
		}
	}
}

// wantError runs an action that must fail with code and returns the error.
func wantError(t *testing.T, action map[string]any, code string, extraArgs ...string) *errorBody {
	t.Helper()
	res, e, exit := request(t, action, extraArgs...)
	if e == nil {
		t.Fatalf("%v succeeded with %s, want error %s", action, res, code)
	}
	if e.Code != code {
		t.Fatalf("%v: error %s (%s), want %s", action, e.Code, e.Message, code)
	}
	if exit == 0 {
		t.Fatalf("%v: error %s but exit 0", action, code)
	}
	return e
}

// openTabResult is open_tab's result.
type openTabResult struct {
	TabID    int    `json:"tabId"`
	WindowID int    `json:"windowId"`
	Domain   string `json:"domain"`
}

// openTab opens path from the fixture server in the BUA window and closes
// it when the test ends. Returns the tab id. The index page is "" (the file
// server redirects /index.html to /).
func openTab(t *testing.T, path string) int {
	t.Helper()
	return openTabWith(t, map[string]any{"type": "open_tab", "url": siteURL(path)}).TabID
}

// openTabWith runs an open_tab action and registers the tab's close.
func openTabWith(t *testing.T, action map[string]any) openTabResult {
	t.Helper()
	var r openTabResult
	mustRequest(t, action, &r)
	if r.TabID <= 0 {
		t.Fatalf("open_tab returned tabId %d", r.TabID)
	}
	closeLater(t, r.TabID)
	return r
}

// closeLater closes tabID at the end of the test unless it is gone already.
func closeLater(t *testing.T, tabID int) {
	t.Cleanup(func() {
		_, e, _ := request(t, map[string]any{"type": "close_tab", "tabId": tabID})
		if e != nil && e.Code != "tab_not_found" {
			t.Errorf("cleanup close_tab %d: %s: %s", tabID, e.Code, e.Message)
		}
	})
}

// tabInfo is one get_tabs entry.
type tabInfo struct {
	TabID    int    `json:"tabId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Domain   string `json:"domain"`
	WindowID int    `json:"windowId"`
	// Handle is the daemon's short handle (t1, t2, …), on the CLI's
	// get_tabs (a caller that names no owner).
	Handle string `json:"handle"`
}

func getTabs(t *testing.T) []tabInfo {
	t.Helper()
	var tabs []tabInfo
	mustRequest(t, map[string]any{"type": "get_tabs"}, &tabs)
	return tabs
}

// evaluate runs expression (a function body) on tabID and returns its value.
func evaluate(t *testing.T, tabID int, expression string) any {
	t.Helper()
	var r struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	mustRequest(t, map[string]any{"type": "evaluate", "tabId": tabID, "expression": expression}, &r)
	return r.Value
}

// closeAllTabs closes every tab get_tabs lists, so no session survives
// from an earlier test. The headless managed browser has no startup window
// and keeps running without any (pkg/browser Args).
func closeAllTabs(t *testing.T) {
	t.Helper()
	for _, tb := range getTabs(t) {
		request(t, map[string]any{"type": "close_tab", "tabId": tb.TabID})
	}
	if left := getTabs(t); len(left) > 0 {
		t.Fatalf("tabs left after closing them all: %+v", left)
	}
}

// hasTab reports whether get_tabs lists tabID.
func hasTab(tabs []tabInfo, tabID int) (tabInfo, bool) {
	for _, tb := range tabs {
		if tb.TabID == tabID {
			return tb, true
		}
	}
	return tabInfo{}, false
}

// contains is strings.Contains with a readable failure.
func wantContains(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}
