package recording

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

func ptr[T any](v T) *T { return &v }

// field is the describe result of a field the person typed into, as the
// extension gives it.
func field(label, inputType, autocomplete string, roleCount int) *protocol.DescribeResult {
	return &protocol.DescribeResult{Tag: "input", InputType: inputType, Autocomplete: autocomplete, Label: label, Locators: []protocol.Locator{
		{By: "role", Role: "textbox", Name: label, Count: roleCount},
		{By: "id", Selector: "#" + strings.ToLower(label), Count: 1},
	}}
}

func button(name string) *protocol.DescribeResult {
	return &protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{{By: "role", Role: "button", Name: name, Count: 1}, {By: "css", Selector: "form > button", Count: 1}}}
}

// compile writes steps as bua record does and loads the flow as bua lint
// does.
func compile(t *testing.T, steps []protocol.RecordedStep) (string, *flowwriter.Flow) {
	t.Helper()
	f, err := flowwriter.Compile(flowwriter.Header{MadeBy: "bua record"}, Entries(steps))
	if f == nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.yaml")
	if err := os.WriteFile(path, f.YAML, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Load(path); err != nil {
		t.Fatalf("the flow does not lint: %v\n%s", err, f.YAML)
	}
	return string(f.YAML), f
}

// TestEntriesSignIn: a sign-in as the extension reports it (typed text,
// a secret by number only, a click the page left after) becomes a flow
// with role targets, the password from BUA_PASSWORD, and a wait for the
// page the click went to.
func TestEntriesSignIn(t *testing.T) {
	login, home := "http://127.0.0.1:8080/app/login.html", "http://127.0.0.1:8080/app/dashboard.html?user=ada"
	steps := []protocol.RecordedStep{
		{Seq: 1, TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionType_, Text: ptr("ada@example.com"), Clear: true}, Target: field("Email", "email", "username", 1)},
		{Seq: 2, TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionType_, Clear: true}, Secret: 1, Target: field("Password", "password", "current-password", 1)},
		{Seq: 3, TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionClick}, Target: button("Sign in")},
		{Seq: 4, TabID: 7, URL: home, Title: "Dashboard", Landed: true},
		{Seq: 5, TabID: 7, URL: home, Title: "Dashboard", Action: &protocol.Action{Type: protocol.ActionWaitFor, Text: ptr("Welcome, ada")}},
	}
	y, f := compile(t, steps)
	for _, want := range []string{
		"name: Sign in",
		`password: "${{ env.BUA_PASSWORD }}"`,
		"secrets: [password]",
		`- navigate: "${{ vars.base }}/app/login.html"`,
		"- type: {role: textbox, name: Email, text: ada@example.com, clear: true}",
		`- type: {role: textbox, name: Password, text: "${{ vars.password }}", clear: true}`,
		// The person's own check after the click takes the place of the
		// writer's wait for the page the click went to.
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/app/dashboard.html?**\"} # \"Dashboard\"\n  # a check added while recording (Alt+Shift+click)\n  - wait_for: {text: 'Welcome, ada'}",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("the flow lacks %q:\n%s", want, y)
		}
	}
	if strings.Contains(y, "bua secret") || strings.Contains(y, "\u2039") {
		t.Errorf("the secret's stand-in text reached the flow:\n%s", y)
	}
	if len(f.Env) != 1 || f.Env[0].Name != "BUA_PASSWORD" {
		t.Errorf("Env = %+v, want BUA_PASSWORD", f.Env)
	}
}

// TestEntriesTabsAndChecks: a click that opened a tab gives the steps on
// that tab its newTabId; a double click replaces its first click; the
// popup's checks become a URL wait and a title assert; a masked URL is a
// step to edit; the same secret typed twice is one variable.
func TestEntriesTabsAndChecks(t *testing.T) {
	page, terms := "http://h.test/app/welcome.html", "http://h.test/app/terms.html"
	steps := []protocol.RecordedStep{
		{Seq: 1, TabID: 3, URL: page, Action: &protocol.Action{Type: protocol.ActionClick}, Target: button("Open terms")},
		{Seq: 2, TabID: 3, URL: page, NewTabID: ptr(9)},
		{Seq: 3, TabID: 9, URL: terms, Title: "Terms", Landed: true},
		{Seq: 4, TabID: 9, URL: terms, Action: &protocol.Action{Type: protocol.ActionClick}, Target: button("Accept")},
		{Seq: 5, TabID: 9, URL: terms, Action: &protocol.Action{Type: protocol.ActionClick, ClickCount: ptr(2)}, Target: button("Accept")},
		{Seq: 6, TabID: 9, URL: terms + "?t=1", AssertURL: terms + "?t=1"},
		{Seq: 7, TabID: 9, URL: terms, AssertTitle: `Terms "v2"`},
		{Seq: 8, TabID: 3, URL: page, Action: &protocol.Action{Type: protocol.ActionType_, Clear: true}, Secret: 1, Target: field("New password", "password", "new-password", 1)},
		{Seq: 9, TabID: 3, URL: page, Action: &protocol.Action{Type: protocol.ActionType_, Clear: true}, Secret: 1, Target: field("Confirm", "password", "new-password", 1)},
		{Seq: 10, TabID: 3, URL: "http://h.test/app/done.html?pw=***", Landed: true, Masked: true},
	}
	y, f := compile(t, steps)
	for _, want := range []string{
		"- click: {role: button, name: Open terms}\n    as: tab_1",
		`- click: {role: button, name: Accept, clickCount: 2, tabId: "${{ tab_1.newTabId }}"}`,
		`- wait_for: {url: "${{ vars.base }}/app/terms.html?**", tabId: "${{ tab_1.newTabId }}"}`,
		"- evaluate: {expression: return document.title, tabId: \"${{ tab_1.newTabId }}\"}\n    as: title_1",
		`- assert: title_1.value == "Terms \"v2\""`,
		`text: "${{ vars.new_password }}"`,
	} {
		if !strings.Contains(y, want) {
			t.Errorf("the flow lacks %q:\n%s", want, y)
		}
	}
	if n := strings.Count(y, "name: Accept"); n != 1 {
		t.Errorf("%d clicks on Accept, want the double click alone:\n%s", n, y)
	}
	if len(f.Env) != 1 {
		t.Errorf("Env = %+v, want one variable for the password typed twice", f.Env)
	}
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Msg, "***") {
		t.Errorf("Problems = %v, want the masked URL", f.Problems)
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		s    protocol.RecordedStep
		want string
	}{
		{protocol.RecordedStep{Action: &protocol.Action{Type: protocol.ActionClick}, Target: button("Sign in")}, `click button "Sign in"`},
		{protocol.RecordedStep{Action: &protocol.Action{Type: protocol.ActionType_}, Secret: 1, Target: field("Password", "password", "", 1)}, `type a secret into textbox "Password"`},
		{protocol.RecordedStep{Action: &protocol.Action{Type: protocol.ActionType_, Text: ptr("ada")}, Target: field("Email", "email", "", 2)}, `type "ada" into textbox "Email"`},
		{protocol.RecordedStep{Action: &protocol.Action{Type: protocol.ActionSelectOption, Value: []string{"pro"}}, Target: &protocol.DescribeResult{Tag: "select", Locators: []protocol.Locator{{By: "id", Selector: "#plan", Count: 1}}}}, "select pro in #plan"},
		{protocol.RecordedStep{Action: &protocol.Action{Type: protocol.ActionPressKey, Key: "Enter"}}, "press Enter"},
		{protocol.RecordedStep{Landed: true, URL: "http://h.test/x"}, "the page went to http://h.test/x"},
		{protocol.RecordedStep{NewTabID: ptr(4)}, "it opened tab 4, which the recording follows"},
		{protocol.RecordedStep{AssertTitle: "T"}, `check: the page's title is "T"`},
	} {
		if got := Describe(tc.s); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
	}
}

func TestURLGlob(t *testing.T) {
	for in, want := range map[string]string{
		"http://h.test/a/b":       "http://h.test/a/b",
		"http://h.test/a?x=1":     "http://h.test/a?**",
		"http://h.test/a#top":     "http://h.test/a#**",
		"http://h.test/a*b{c}":    `http://h.test/a\*b\{c\}`,
		"http://h.test/p,q?x=1#y": `http://h.test/p\,q?**`,
	} {
		if got := urlGlob(in); got != want {
			t.Errorf("urlGlob(%q) = %q, want %q", in, got, want)
		}
	}
}
