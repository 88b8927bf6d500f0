package flowwriter

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
)

func text(s string) *string { return &s }

func passwordField(label string) *protocol.DescribeResult {
	return &protocol.DescribeResult{Tag: "input", InputType: "password", Label: label,
		Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: label, Count: 1}}}
}

func TestCompileEnv(t *testing.T) {
	f, err := Compile(Header{MadeBy: "test"}, []Entry{
		{Action: protocol.Action{Type: protocol.ActionNavigate, URL: "https://h.example/login"}, URLAfter: "https://h.example/login"},
		{Action: protocol.Action{Type: protocol.ActionType_, UID: "e1", Text: text("pw-1")}, Target: passwordField("Password")},
		{Action: protocol.Action{Type: protocol.ActionType_, UID: "e2", Text: text("123456")}, Target: &protocol.DescribeResult{Tag: "input", Autocomplete: "one-time-code",
			Locators: []protocol.Locator{{By: "id", Selector: "#otp", Count: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []EnvVar{{Name: "BUA_PASSWORD", Var: "password", Field: "Password"}, {Name: "BUA_ONE_TIME_CODE", Var: "one_time_code"}}
	if !reflect.DeepEqual(f.Env, want) {
		t.Errorf("Env = %+v, want %+v", f.Env, want)
	}
	if f.Problems != nil {
		t.Errorf("Problems = %v", f.Problems)
	}
}

// TestSecretNeverWritten types a secret that also shows in a URL, a title,
// a comment and an evaluate: none of it reaches the file, the steps it
// spoilt are reported, and the file still lints.
func TestSecretNeverWritten(t *testing.T) {
	const secret = "Tr0ub4dor&3"
	u := "https://h.example/a?k=" + strings.ReplaceAll(secret, "&", "%26")
	entries := []Entry{
		{Action: protocol.Action{Type: protocol.ActionNavigate, URL: u}, URLAfter: u, Title: "Hello " + secret, Comment: "the key is " + secret},
		{Action: protocol.Action{Type: protocol.ActionType_, UID: "e1", Text: text(secret)}, Target: passwordField("Password"), URLBefore: u, URLAfter: u},
		{Action: protocol.Action{Type: protocol.ActionType_, Selector: "#again", Text: text(secret)}, URLBefore: u, URLAfter: u},
		{Action: protocol.Action{Type: protocol.ActionEvaluate, Expression: "return '" + secret + "'.length"}, URLBefore: u, URLAfter: u},
	}
	var buf bytes.Buffer
	err := Write(&buf, Header{MadeBy: "test", Command: "record " + secret}, entries)
	var inc *IncompleteError
	if !errors.As(err, &inc) {
		t.Fatalf("Write = %v, want an IncompleteError", err)
	}
	out := buf.String()
	for _, f := range forms(secret) {
		if strings.Contains(out, f) {
			t.Fatalf("the flow holds the secret as %q:\n%s", f, out)
		}
	}
	var spoilt []int
	for _, p := range inc.Problems {
		spoilt = append(spoilt, p.Entry)
	}
	if want := []int{0, 3}; !reflect.DeepEqual(spoilt, want) {
		t.Errorf("problems at entries %v, want %v (the navigate's URL, the evaluate):\n%v", spoilt, want, inc)
	}
	if !strings.Contains(out, `{selector: '#again', text: "${{ vars.password }}"}`) {
		t.Errorf("the same text typed into a field describe said nothing about does not read the var:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Load(path); err != nil {
		t.Errorf("the flow does not lint: %v\n%s", err, out)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteReportsTheWriter(t *testing.T) {
	err := Write(failingWriter{}, Header{}, nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Write to a failing writer = %v", err)
	}
}

// TestLogRoundTrip: a Log saved as JSON reads back the same, so a producer
// can keep a recording and write its flow later.
func TestLogRoundTrip(t *testing.T) {
	for name, lg := range goldenLogs(t) {
		raw, err := json.Marshal(lg)
		if err != nil {
			t.Fatal(err)
		}
		var back Log
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		_ = Write(&a, lg.Header, lg.Entries)
		_ = Write(&b, back.Header, back.Entries)
		if a.String() != b.String() {
			t.Errorf("%s: the log read back writes another flow", name)
		}
	}
}

// TestCommentsOverLines: a header or comment over several lines stays
// comment, so the file still lints.
func TestCommentsOverLines(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, Header{MadeBy: "a\nname: oops", Command: "bua record \\\n  -o x.yaml", Name: "two\nlines"}, []Entry{
		{Action: protocol.Action{Type: protocol.ActionNavigate, URL: "https://h.example/"}, Comment: "first\nsteps: []"},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := flow.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if f.Name != "two\nlines" || len(f.Steps) != 2 {
		t.Errorf("name %q, %d steps, want the header's name and navigate, wait_for:\n%s", f.Name, len(f.Steps), buf.String())
	}
}

// TestNotesAndProblemEntries: an entry with no action is a note whose
// comment and problem go above the next step (or a closing log step at the
// end), and an action entry's Problem goes above its own step; both are
// listed in the IncompleteError, and the file still lints.
func TestNotesAndProblemEntries(t *testing.T) {
	entries := []Entry{
		{Comment: "setViewport 800x600: the replay keeps the browser's size"},
		{Action: protocol.Action{Type: protocol.ActionNavigate, URL: "https://h.example/"}, URLAfter: "https://h.example/"},
		{Comment: "customStep", Problem: "customStep \"login\" is @puppeteer/replay's own: left out"},
		{Action: protocol.Action{Type: protocol.ActionClick, Role: "button", Name: "Go"}, Problem: "the role was guessed"},
		{Problem: "emulateNetworkConditions: left out"},
	}
	f, err := Compile(Header{MadeBy: "bua import", From: "x.json"}, entries)
	var inc *IncompleteError
	if !errors.As(err, &inc) || len(inc.Problems) != 3 {
		t.Fatalf("Compile = %v, want an IncompleteError with 3 problems", err)
	}
	if got := []int{inc.Problems[0].Entry, inc.Problems[1].Entry, inc.Problems[2].Entry}; !reflect.DeepEqual(got, []int{2, 3, 4}) {
		t.Errorf("problem entries = %v, want [2 3 4]", got)
	}
	want := `# Converted with bua import from x.json.
# Replay it with ` + "`bua run FILE`" + ` (no agent needed); ` + "`bua lint FILE`" + ` checks it.
# vars.base is the site it was recorded on: ` + "`bua run --var base=URL`" + ` replays it on another.
name: recorded on h.example
vars:
  base: https://h.example
steps:
  # setViewport 800x600: the replay keeps the browser's size
  - navigate: "${{ vars.base }}/"
  - wait_for: {url: "${{ vars.base }}/"}
  # customStep
  # bua: edit this: customStep "login" is @puppeteer/replay's own: left out
  # bua: edit this: the role was guessed
  - click: {role: button, name: Go}
  # bua: edit this: emulateNetworkConditions: left out
  - log: the recording ended here
`
	if string(f.YAML) != want {
		t.Errorf("got:\n%s\nwant:\n%s", f.YAML, want)
	}
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, f.YAML, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Load(path); err != nil {
		t.Errorf("the flow does not load: %v", err)
	}
}
