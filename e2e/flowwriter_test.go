package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFlowWriterSignInReplays records a sign-in on the demo app
// (testdata/sites/app/login.html) action by action through `bua request`,
// as `bua mcp --record` logs an agent's calls: each action, its real
// result and the URLs around it, and for each element acted on, the real
// describe action's locators, read before the action (each checked
// against the page on its own). The flow writer turns the log into a flow; `bua lint` must accept it, `bua run` must replay it green
// in a fresh tab with BUA_PASSWORD set and fail at once, naming the
// variable, without it, and the password must be nowhere in the file.
func TestFlowWriterSignInReplays(t *testing.T) {
	const user, password = "ada@example.com", "Corr3ct-Horse-Battery"
	tab := openTab(t, "blank.html")
	var entries []flowwriter.Entry
	act := func(action map[string]any, target *protocol.DescribeResult) json.RawMessage {
		t.Helper()
		action["tabId"] = tab
		before := evalString(t, tab, "return location.href")
		res, e, code := request(t, action)
		if e != nil {
			t.Fatalf("%v: exit %d, %s: %s", action, code, e.Code, e.Message)
		}
		var a protocol.Action
		raw, _ := json.Marshal(action)
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, flowwriter.Entry{Action: a, Result: res, Target: target,
			URLBefore: before, URLAfter: evalString(t, tab, "return location.href"), Title: evalString(t, tab, "return document.title")})
		return res
	}

	act(map[string]any{"type": "navigate", "url": siteURL("app/login.html")}, nil)
	var page protocol.ExtractResult
	if err := json.Unmarshal(act(map[string]any{"type": "extract"}, nil), &page); err != nil {
		t.Fatal(err)
	}
	if page.Obstacle == nil || page.Obstacle.Type != "auth_wall" {
		t.Fatalf("the sign-in page's verdict is %+v, want an auth_wall for the policy to pass", page.Obstacle)
	}
	uid := func(role, name string) string {
		for _, el := range page.Elements {
			if el.Role == role && el.Name == name {
				return el.UID
			}
		}
		t.Fatalf("extract lists no %s %q: %+v", role, name, page.Elements)
		return ""
	}
	// What describe answers for the three elements, as --record asks it
	// before each action, checked against the page.
	describe := func(uid string) *protocol.DescribeResult {
		var d protocol.DescribeResult
		mustRequest(t, map[string]any{"type": "describe", "uid": uid, "tabId": tab}, &d)
		checkDescribe(t, tab, &d)
		return &d
	}
	email, pw, signIn := describe(uid("textbox", "Email")), describe(uid("textbox", "Password")), describe(uid("button", "Sign in"))
	if !pw.Password() || email.Password() {
		t.Errorf("password-ness: the password field's describe %+v, the email field's %+v", pw, email)
	}

	act(map[string]any{"type": "type", "uid": uid("textbox", "Email"), "text": user}, email)
	act(map[string]any{"type": "type", "uid": uid("textbox", "Password"), "text": password}, pw)
	act(map[string]any{"type": "click", "uid": uid("button", "Sign in")}, signIn)
	act(map[string]any{"type": "extract"}, nil)
	landed := entries[len(entries)-1].URLAfter
	if !strings.Contains(landed, "/app/dashboard.html?user=") {
		t.Fatalf("the recording's sign-in landed on %s", landed)
	}

	var buf bytes.Buffer
	h := flowwriter.Header{MadeBy: "the e2e suite", Command: "go test ./e2e -run TestFlowWriterSignInReplays", Time: time.Now()}
	if err := flowwriter.Write(&buf, h, entries); err != nil {
		t.Fatalf("Write: %v", err)
	}
	flow := filepath.Join(t.TempDir(), "signin.yaml")
	if err := os.WriteFile(flow, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if strings.Contains(text, password) {
		t.Fatalf("the flow holds the password:\n%s", text)
	}
	for _, want := range []string{"BUA_PASSWORD", "{role: textbox, name: Password, text: \"${{ vars.password }}\"}", "{role: button, name: Sign in}", "/app/dashboard.html?**", "obstacles: {high: continue}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the flow lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "uid") || strings.Contains(text, "extract") {
		t.Errorf("the flow replays a uid or a read:\n%s", text)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, code := bua(ctx, "lint", flow); code != 0 || !strings.Contains(out, "ok "+flow) {
		t.Fatalf("bua lint: exit %d:\n%s\n%s", code, out, text)
	}

	env := withoutEnv(buaEnv, "BUA_PASSWORD")
	fresh := openTab(t, "blank.html")
	r := harness.Cmd{Bin: buaBin, Env: env}.Run(ctx, "run", flow)
	if r.Code != 1 || !strings.Contains(r.Output(), "BUA_PASSWORD is not set") {
		t.Errorf("bua run without BUA_PASSWORD: exit %d, want 1 naming the variable:\n%s", r.Code, r.Output())
	}
	if got := evalString(t, fresh, "return location.href"); !strings.HasSuffix(got, "/blank.html") {
		t.Errorf("the run without the password went on to %s", got)
	}

	report := filepath.Join(t.TempDir(), "run.json")
	r = harness.Cmd{Bin: buaBin, Env: append(env, "BUA_PASSWORD="+password)}.Run(ctx, "run", flow, "--report", "json="+report)
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d:\n%s\n%s", r.Code, r.Output(), text)
	}
	if strings.Contains(r.Output(), password) {
		t.Errorf("bua run printed the password:\n%s", r.Output())
	}
	if got := evalString(t, fresh, "return location.href"); got != landed {
		t.Errorf("the replay in the fresh tab landed on %s, the recording on %s", got, landed)
	}
	if got := evalString(t, fresh, "return document.getElementById('user').textContent"); got != user {
		t.Errorf("the replay signed in as %q, want %q", got, user)
	}
}

// checkDescribe checks a describe result against the page, resolving each
// locator on its own: a role target (with its nth when it matches several;
// one matching several without nth is invalid_action) is found, and a
// selector matches as many elements as the result's count says.
func checkDescribe(t *testing.T, tab int, d *protocol.DescribeResult) {
	t.Helper()
	if len(d.Locators) == 0 {
		t.Fatalf("describe gave no locator: %+v", d)
	}
	for _, l := range d.Locators {
		switch l.By {
		case "role":
			a := map[string]any{"type": "wait_for", "role": l.Role, "state": "attached", "tabId": tab}
			if l.Name != "" {
				a["name"] = l.Name
			}
			if l.Nth != nil {
				a["nth"] = *l.Nth
			}
			mustRequest(t, a, nil)
		case "id", "css", "testid":
			js, _ := json.Marshal(l.Selector)
			if n := evalString(t, tab, "return String(document.querySelectorAll("+string(js)+").length)"); n != strconv.Itoa(l.Count) {
				t.Errorf("%s matches %s elements on the page, the describe result says %d", l.Selector, n, l.Count)
			}
		}
	}
}

// withoutEnv is env without the variable name.
func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
