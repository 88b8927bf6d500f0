package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestRecordSignIn: an agent signs in on the demo app through `bua mcp
// --record FILE` (navigate, extract, type, type the password, click Sign
// in, read the dashboard), and when its client hangs up FILE is a flow
// that `bua lint` accepts and `bua run` replays green in a fresh tab, the
// password read from the variable the header names and nowhere in the
// file, every target a role and name (never a uid), a wait_for after the
// click that navigated.
func TestRecordSignIn(t *testing.T) {
	const user, password = "ada@example.com", "Corr3ct-Horse-Battery"
	file := filepath.Join(t.TempDir(), "signin.yaml")
	a := startAgent(t, nil, "--record", file)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("app/login.html")})
	_, page := a.must(t, map[string]any{"action": "extract"})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Email"), "text": user})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Password"), "text": password})
	a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "button", "Sign in")})
	_, page = a.must(t, map[string]any{"action": "extract"})
	if !strings.Contains(page, "Signed in as **"+user+"**") {
		t.Fatalf("the agent's sign-in did not land:\n%s", page)
	}
	flow := endRecording(t, a, file)

	flowHas(t, flow,
		"# Recorded with bua mcp --record on ",
		"#   bua mcp --record "+file+"\n",
		"obstacles: {high: continue} # passed while recording: auth_wall (high) on /app/login.html",
		"- navigate: \"${{ vars.base }}/app/login.html\"\n",
		"- type: {role: textbox, name: Email, text: "+user+", clear: true}\n", // the tool's type replaces, and so does the replay
		"- type: {role: textbox, name: Password, text: \"${{ vars.password }}\", clear: true}\n",
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/app/dashboard.html?**\"} # \"Dashboard – Demo app\"\n",
	)
	flowLacks(t, flow, password, "uid", "extract", "bua: edit this")
	env := recordedEnv(t, flow)
	if !slices.Equal(env, []string{"BUA_PASSWORD"}) {
		t.Fatalf("the header names the variables %v, want BUA_PASSWORD", env)
	}
	replayLine := "bua mcp: replay it with: BUA_PASSWORD=... bua run " + file
	if runtime.GOOS == "windows" { // one line per shell there (cmd/bua/shell_windows.go)
		replayLine = "bua mcp: replay it with, in PowerShell: $env:BUA_PASSWORD = '...'; bua run "
	}
	if !strings.Contains(a.stderr.String(), replayLine) {
		t.Errorf("stderr does not say how to replay:\n%s", a.stderr.String())
	}
	lint(t, file)

	tab, r := replay(t, file, "BUA_PASSWORD="+password)
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d\n%s\nthe flow:\n%s", r.Code, r.Output(), flow)
	}
	if strings.Contains(r.Output(), password) {
		t.Errorf("bua run printed the password:\n%s", r.Output())
	}
	settles(t, tab, "location.pathname + location.search + ' ' + document.getElementById('user').textContent", "/app/dashboard.html?user=ada%40example.com "+user)
}

// TestRecordPrefilled: an agent replaces a prefilled field's value (type
// with clear: true), fills a password and a one-time code, and submits a
// form that stays on its page, on a page whose ids a framework generated.
// The flow keeps clear: true, so the replay in a fresh tab (where the
// field is prefilled again) signs in with the agent's value, not the two
// run together; the generated ids are never locators; each secret gets
// its own variable.
func TestRecordPrefilled(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prefilled.yaml")
	a := startAgent(t, nil, "--record", file)
	a.must(t, map[string]any{"action": "navigate", "url": siteURL("mcp/signin.html")})
	_, page := a.must(t, map[string]any{"action": "extract"})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Email"), "text": "new@example.com", "clear": true})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Password"), "text": "pw-Prefilled-1"})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "One-time code"), "text": "424242"})
	a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "button", "Sign in")})
	if _, page = a.must(t, map[string]any{"action": "extract"}); !strings.Contains(page, "signed in as new@example.com") {
		t.Fatalf("the agent's sign-in:\n%s", page)
	}
	flow := endRecording(t, a, file)

	flowHas(t, flow,
		"- type: {role: textbox, name: Email, text: new@example.com, clear: true}\n",
		"- type: {role: textbox, name: Password, text: \"${{ vars.password }}\", clear: true}\n",
		"- type: {role: textbox, name: One-time code, text: \"${{ vars.one_time_code }}\", clear: true}\n",
		"- click: {role: button, name: Sign in}\n",
	)
	flowLacks(t, flow, "pw-Prefilled-1", "424242", ":r3:", "ember1234", "a8f3k2q9x", "uid")
	if n := strings.Count(flow, "wait_for:"); n != 1 {
		t.Errorf("%d wait_for steps, want one, after the navigate (the click did not navigate)", n)
	}
	env := recordedEnv(t, flow)
	if !slices.Equal(env, []string{"BUA_PASSWORD", "BUA_ONE_TIME_CODE"}) {
		t.Fatalf("the header names the variables %v", env)
	}
	lint(t, file)
	tab, r := replay(t, file, "BUA_PASSWORD=pw-Prefilled-1", "BUA_ONE_TIME_CODE=424242")
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d\n%s\nthe flow:\n%s", r.Code, r.Output(), flow)
	}
	settles(t, tab, "document.getElementById('status').textContent + ' | ' + document.querySelector('[name=email]').value", "signed in as new@example.com | new@example.com")
}

// endRecording hangs up on the agent, as its host does when it quits, and
// returns the flow `bua mcp --record` wrote to file when it exited.
func endRecording(t *testing.T, a *agent, file string) string {
	t.Helper()
	a.hangUp()
	select {
	case <-a.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("bua mcp did not exit 15 s after its stdin closed")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the recording: %v\nbua mcp's stderr:\n%s", err, a.stderr.String())
	}
	t.Logf("the recorded flow:\n%s", data)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the recording's mode: %v %v, want 0600", fi.Mode(), err)
	}
	return string(data)
}

// flowHas checks that the flow holds each of wants.
func flowHas(t *testing.T, flow string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(flow, w) {
			t.Errorf("the flow lacks %q", w)
		}
	}
}

// flowLacks checks that the flow holds none of nevers.
func flowLacks(t *testing.T, flow string, nevers ...string) {
	t.Helper()
	for _, n := range nevers {
		if strings.Contains(flow, n) {
			t.Errorf("the flow holds %q", n)
		}
	}
}

// recordedEnv are the environment variables the flow's header says a
// replay needs, in order.
func recordedEnv(t *testing.T, flow string) []string {
	t.Helper()
	_, list, ok := strings.Cut(flow, "# Environment variables it needs:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, line := range strings.Split(list, "\n") {
		m := headerEnv.FindStringSubmatch(line)
		if m == nil {
			break
		}
		names = append(names, m[1])
	}
	return names
}

var headerEnv = regexp.MustCompile(`^#   (BUA_[A-Z0-9_]+): `)

// lint runs `bua lint file`, which must accept it.
func lint(t *testing.T, file string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if r := (harness.Cmd{Bin: buaBin, Env: buaEnv}).Run(ctx, "lint", file); r.Code != 0 || !strings.Contains(r.Output(), "ok "+file) {
		t.Fatalf("bua lint: exit %d\n%s", r.Code, r.Output())
	}
}

// replay runs `bua run file` in a fresh tab (replayIn), first without
// env, which must fail at once naming the first variable, then with it.
func replay(t *testing.T, file string, env ...string) (int, harness.Result) {
	t.Helper()
	return replayIn(t, file, func(cmd harness.Cmd, ctx context.Context) {
		name, _, _ := strings.Cut(env[0], "=")
		if r := cmd.Run(ctx, "run", file); r.Code != 1 || !strings.Contains(r.Output(), name+" is not set") {
			t.Errorf("bua run without %s: exit %d, want 1 naming it\n%s", name, r.Code, r.Output())
		}
	}, env...)
}

// replayIn opens a fresh tab (`bua open`), calls before (when not nil),
// and runs `bua run file` with env added; it returns the tab and the run.
func replayIn(t *testing.T, file string, before func(harness.Cmd, context.Context), env ...string) (int, harness.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := harness.Cmd{Bin: buaBin, Env: buaEnv}
	r := cmd.Run(ctx, "open", siteURL("blank.html"), "--json")
	var opened struct {
		TabID int `json:"tabId"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &opened) != nil || opened.TabID == 0 {
		t.Fatalf("bua open: exit %d\n%s", r.Code, r.Output())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd.Run(ctx, "close", strconv.Itoa(opened.TabID))
	})
	if before != nil {
		before(cmd, ctx)
	}
	cmd.Env = append(slices.Clone(buaEnv), env...)
	return opened.TabID, cmd.Run(ctx, "run", file)
}

// settles reports whether a JavaScript expression in tab comes to give
// want within 10 s (a page that is still loading may throw or give
// another value first), and fails t with the last answer when it does not.
func settles(t *testing.T, tab int, expr, want string) bool {
	t.Helper()
	cmd := harness.Cmd{Bin: buaBin, Env: buaEnv}
	var last string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r := cmd.Run(ctx, "eval", "return "+expr, "--tab", strconv.Itoa(tab), "--json")
		cancel()
		var v struct {
			Value any `json:"value"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &v) != nil {
			last = r.Output()
			continue
		}
		if last = fmt.Sprint(v.Value); last == want {
			return true
		}
	}
	t.Errorf("tab %d: %s gives %q, want %q", tab, expr, last, want)
	return false
}

// TestRecordTabsAndLateNavigation: an agent follows a link that opens a
// tab (newTabId), waits for its text and closes it by its id, then saves a
// form whose page leaves 1.5 s after the click answered. The flow names the
// new tab through the click's `as` (tab_1.newTabId), and puts a wait_for on
// the saved page right after the Save click, where the navigation belongs,
// though only the agent's next read saw it; the replay in a fresh tab runs
// green and lands on the saved page.
func TestRecordTabsAndLateNavigation(t *testing.T) {
	file := filepath.Join(t.TempDir(), "save.yaml")
	a := startAgent(t, nil, "--record", file)
	res, _ := a.must(t, map[string]any{"action": "navigate", "url": siteURL("mcp/save.html")})
	tab := tabOf(t, res)
	_, page := a.must(t, map[string]any{"action": "extract"})
	res, _ = a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "link", "Open the help")})
	var opened struct {
		NewTabID int `json:"newTabId"`
	}
	structured(t, res, &opened)
	if opened.NewTabID == 0 {
		t.Fatalf("the link's click reports no new tab: %v", res.StructuredContent)
	}
	// A wait_for, not an evaluate: a replay's new tab is handed over once
	// its document committed, and only an action that waits finds the
	// page's text there every time.
	a.must(t, map[string]any{"action": "wait_for", "tabId": opened.NewTabID, "text": "Opened from a link."})
	a.must(t, map[string]any{"action": "close_tab", "tabId": opened.NewTabID})
	a.must(t, map[string]any{"action": "type", "uid": uidOf(t, page, "textbox", "Note"), "text": "hello"})
	_, text := a.must(t, map[string]any{"action": "click", "uid": uidOf(t, page, "button", "Save")})
	t.Logf("Save's answer (the page leaves 1.5 s later):\n%s", text)
	// The agent thinks; the page leaves meanwhile (watched from outside the
	// agent, so nothing of it is recorded).
	if !settles(t, tab, "location.search", "?saved=hello") {
		t.FailNow()
	}
	if _, page = a.must(t, map[string]any{"action": "extract"}); !strings.Contains(page, "Saved: hello") {
		t.Fatalf("the page after Save:\n%s", page)
	}
	flow := endRecording(t, a, file)

	flowHas(t, flow,
		"- click: {role: link, name: Open the help}\n    as: tab_1\n",
		"- wait_for: {text: Opened from a link., tabId: \"${{ tab_1.newTabId }}\"}\n",
		"- close_tab: \"${{ tab_1.newTabId }}\"\n",
		"- type: {role: textbox, name: Note, text: hello, clear: true}\n",
		"- click: {role: button, name: Save}\n  - wait_for: {url: \"${{ vars.base }}/mcp/save.html?**\"} # \"Saved\"\n",
	)
	lint(t, file)
	fresh, r := replayIn(t, file, nil)
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d\n%s\nthe flow:\n%s", r.Code, r.Output(), flow)
	}
	settles(t, fresh, "location.pathname + location.search + ' ' + document.getElementById('heading').textContent", "/mcp/save.html?saved=hello Saved: hello")
}
