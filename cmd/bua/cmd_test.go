package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

func TestNavigate(t *testing.T) {
	h, ext := startFake(t)
	t.Run("OK", func(t *testing.T) {
		r := runCLI(t, h, "", "navigate", "https://example.com/")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "ok") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		reqs := ext.Requests()
		if got := reqs[len(reqs)-1]; got.Type != protocol.ActionNavigate || got.URL != "https://example.com/" {
			t.Fatalf("sent %+v", got)
		}
	})
	t.Run("ErrorResponse", func(t *testing.T) {
		ext.Handle(protocol.ActionNavigate, func(protocol.Action) (any, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeElementStale, "uid e3 is not in the cache")
		})
		defer ext.Handle(protocol.ActionNavigate, nil)
		r := runCLI(t, h, "", "navigate", "https://example.com/")
		if r.code != exitFailure {
			t.Fatalf("exit %d, want %d", r.code, exitFailure)
		}
		golden(t, "errors/element_stale.txt", r.stderr)
		if !strings.Contains(r.stderr, "run `bua extract` again") {
			t.Fatalf("stderr lacks the hint: %q", r.stderr)
		}
	})
	t.Run("UIDNeverHandedOut", func(t *testing.T) {
		ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
			e := protocol.Errorf(protocol.CodeElementStale, "uid e9999 was never handed out on this page")
			e.Reason = protocol.ReasonUidUnknown
			return nil, e
		})
		defer ext.Handle(protocol.ActionClick, nil)
		r := runCLI(t, h, "", "click", "e9999")
		if r.code != exitFailure {
			t.Fatalf("exit %d, want %d", r.code, exitFailure)
		}
		golden(t, "errors/uid_unknown.txt", r.stderr)
		if strings.Contains(r.stderr, "the page changed") {
			t.Fatalf("a uid never handed out gets the stale-page hint: %q", r.stderr)
		}
	})
	t.Run("RefusedBeforeSending", func(t *testing.T) {
		before := len(ext.Requests())
		r := runCLI(t, h, "", "navigate", "javascript:alert(1)")
		if r.code != exitUsage || !strings.Contains(r.stderr, "error[invalid_action]") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if len(ext.Requests()) != before {
			t.Fatal("an invalid navigate reached the extension")
		}
	})
}

func TestRequestCommand(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) {
		return []protocol.TabInfo{{TabID: 1, URL: "https://a.test/", Title: "A", Domain: "a.test"}}, nil
	})
	r := runCLI(t, h, "", "request", `{"type":"get_tabs"}`)
	var tabs []protocol.TabInfo
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &tabs) != nil || len(tabs) != 1 {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
	tests := []struct {
		name     string
		action   string
		args     []string
		respond  *protocol.Error
		wantCode int
		wantErr  protocol.ErrorCode
	}{
		{"DomainBlocked", `{"type":"navigate","url":"https://blocked.test/"}`, nil, protocol.Errorf(protocol.CodeDomainBlocked, "blocked.test is on your blocklist"), exitBlocked, protocol.CodeDomainBlocked},
		{"Timeout", `{"type":"wait_for","selector":"#x"}`, nil, protocol.Errorf(protocol.CodeTimeout, "#x did not appear within 10000ms"), exitTimeout, protocol.CodeTimeout},
		{"NotFound", `{"type":"click","selector":"#x"}`, nil, protocol.Errorf(protocol.CodeElementNotFound, "#x matched nothing"), exitFailure, protocol.CodeElementNotFound},
		{"InvalidLocally", `{"type":"click"}`, nil, nil, exitUsage, protocol.CodeInvalidAction},
		{"NoValidate", `{"type":"click"}`, []string{"--no-validate"}, nil, exitFailure, protocol.CodeInvalidAction},
		{"NotJSON", `{"type":`, nil, nil, exitUsage, protocol.CodeInvalidAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.respond != nil {
				ext.HandleAll(func(protocol.Action) (any, *protocol.Error) { return nil, tt.respond })
			}
			r := runCLI(t, h, "", append(append([]string{"request"}, tt.args...), tt.action)...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d (stdout %q)", r.code, tt.wantCode, r.stdout)
			}
			var body errorBody
			if err := json.Unmarshal([]byte(r.stdout), &body); err != nil {
				t.Fatalf("stdout is not {\"error\":...}: %q", r.stdout)
			}
			if body.Error.Code != tt.wantErr || body.Error.Message == "" || body.Error.Hint == "" {
				t.Fatalf("error body = %+v", body)
			}
			if !strings.Contains(r.stderr, body.Error.Hint) {
				t.Fatalf("hint not on stderr: %q", r.stderr)
			}
		})
	}
}

func TestNoDaemon(t *testing.T) {
	r := runCLI(t, nil, "", "tabs")
	if r.code != exitUnavailable || !strings.Contains(r.stderr, "error[bridge_unavailable]") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "", "--json", "tabs")
	var body errorBody
	if r.code != exitUnavailable || json.Unmarshal([]byte(r.stdout), &body) != nil || body.Error.Code != protocol.CodeBridgeUnavailable {
		t.Fatalf("--json: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestQuiet: --quiet leaves what a script needs (the exit code, ids) and
// drops the rest.
func TestQuiet(t *testing.T) {
	if r := runCLI(t, nil, "", "status", "--quiet"); r.code != exitUnavailable || r.stdout != "" {
		t.Errorf("status --quiet, no daemon: exit %d, stdout %q, want 4 and nothing", r.code, r.stdout)
	}
	if r := runCLI(t, nil, "", "stop", "--quiet"); r.code != 0 || r.stdout != "" {
		t.Errorf("stop --quiet, no daemon: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := runCLI(t, nil, "", "browser", "stop", "--quiet"); r.code != 0 || r.stdout != "" {
		t.Errorf("browser stop --quiet, no daemon: exit %d, stdout %q", r.code, r.stdout)
	}
	h, _ := startFake(t)
	if r := runCLI(t, h, "", "status", "--quiet"); r.code != 0 || r.stdout != "" {
		t.Errorf("status --quiet: exit %d, stdout %q, want 0 and nothing", r.code, r.stdout)
	}
	if r := runCLI(t, h, "", "status"); r.code != 0 || !strings.Contains(r.stdout, "daemon:     up") || !strings.Contains(r.stdout, "\nuser\tuser\t0.0.0-fake\t4\t") {
		t.Errorf("status: exit %d, stdout %q, want the daemon line and the piped connections table", r.code, r.stdout)
	}
}

func TestTextOutputs(t *testing.T) {
	h, ext := startFake(t)
	yes, no := true, false
	ext.Handle(protocol.ActionExtract, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ExtractResult{
			Text:     "Sign in\nWelcome back.",
			Markdown: "# Sign in\n\nWelcome back.",
			Elements: []protocol.Element{
				{UID: "e0", Role: "textbox", Name: "Email", Value: "ada@example.com", Visible: &yes},
				{UID: "e1", Role: "textbox", Name: "Password", Visible: &yes},
				{UID: "e2", Role: "combobox", Name: "Plan", Value: "Free", Visible: &yes, Expanded: &no},
				{UID: "e3", Role: "option", Name: "Free", Visible: &yes, Selected: true, Parent: "e2"},
				{UID: "e4", Role: "option", Name: "Pro \"plus\"", Visible: &yes, Parent: "e2"},
				{UID: "e5", Role: "checkbox", Name: "Remember me", Visible: &yes, Checked: protocol.Checked},
				{UID: "e6", Role: "checkbox", Name: "Newsletter", Visible: &yes, Checked: protocol.Unchecked},
				{UID: "e7", Role: "checkbox", Name: "All", Visible: &yes, Checked: protocol.Mixed},
				{UID: "e8", Role: "button", Name: "Menu", Visible: &yes, Expanded: &yes},
				{UID: "e9", Role: "button", Visible: &yes, Disabled: true},
				{UID: "e10", Role: "button", Name: "Sign in with a very long accessible name that will not fit in eighty columns at all", Visible: &no},
			},
			Obstacle: &protocol.Obstacle{Type: "auth_wall", Confidence: "high", Message: "password field on a sign-in page"},
			URL:      "https://a.test/login", Title: "Sign in",
		}, nil
	})
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) {
		return []protocol.TabInfo{
			{TabID: 101, URL: "https://a.test/login", Title: "Sign in", Domain: "a.test"},
			{TabID: 102, URL: "https://docs.example.com/a/very/long/path/that/goes/on/and/on?with=query&and=more", Title: "A long documentation page title", Domain: "docs.example.com"},
		}, nil
	})
	// Piped (the test's buffers): tab-separated rows, full values, no
	// header; on a terminal: a table fitted to its width.
	for _, mode := range []struct {
		suffix string
		width  int
	}{{"", 0}, {"_tty60", 60}, {"_tty100", 100}} {
		r := runCLITerm(t, h, mode.width, "extract")
		if r.code != 0 {
			t.Fatalf("extract: %d %s", r.code, r.stderr)
		}
		// One line per element, the same on a terminal and in a pipe.
		golden(t, "extract.txt", r.stdout)
		r = runCLITerm(t, h, mode.width, "tabs")
		if r.code != 0 {
			t.Fatalf("tabs: %d %s", r.code, r.stderr)
		}
		golden(t, "tabs"+mode.suffix+".txt", r.stdout)
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := len([]rune(line)); mode.width > 0 && n > mode.width {
				t.Errorf("tabs at width %d: a line is %d columns: %q", mode.width, n, line)
			}
		}
		if mode.width == 0 && !strings.Contains(r.stdout, "\thttps://docs.example.com/a/very/long/path/that/goes/on/and/on?with=query&and=more\n") {
			t.Errorf("piped tabs lost the full URL or its tab separator:\n%s", r.stdout)
		}
	}
	if r := runCLI(t, h, "", "extract", "--fail-on-obstacle"); r.code != exitBlocked {
		t.Errorf("--fail-on-obstacle exit %d, want %d", r.code, exitBlocked)
	}
	if r := runCLI(t, h, "", "tabs", "--quiet"); r.code != 0 || r.stdout != "101\n102\n" {
		t.Errorf("tabs --quiet: exit %d, stdout %q, want the ids one a line", r.code, r.stdout)
	}
}

// TestExtractJSONText: --json and --format json leave the raw text out
// unless --text asks for it, keep the element states, and a saved extract
// still classifies with bua obstacle.
func TestExtractJSONText(t *testing.T) {
	h, ext := startFake(t)
	yes := true
	ext.Handle(protocol.ActionExtract, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ExtractResult{
			Text: "Sign in raw text", Markdown: "# Sign in", URL: "https://a.test/login", Title: "Sign in",
			Elements: []protocol.Element{
				{UID: "e0", Role: "checkbox", Name: "Remember me", Visible: &yes, Checked: protocol.Unchecked},
				{UID: "e1", Role: "textbox", Name: "Password", Visible: &yes},
			},
		}, nil
	})
	for _, tc := range []struct {
		args     []string
		wantText bool
	}{
		{[]string{"--json", "extract"}, false},
		{[]string{"extract", "--format", "json"}, false},
		{[]string{"--json", "extract", "--text"}, true},
		{[]string{"extract", "--format", "json", "--text"}, true},
	} {
		r := runCLI(t, h, "", tc.args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d %s", tc.args, r.code, r.stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%q: %v\n%s", tc.args, err, r.stdout)
		}
		if _, has := got["text"]; has != tc.wantText {
			t.Errorf("%q: text present %v, want %v", tc.args, has, tc.wantText)
		}
		if got["markdown"] != "# Sign in" {
			t.Errorf("%q: markdown %v", tc.args, got["markdown"])
		}
		els, _ := got["elements"].([]any)
		if len(els) != 2 || els[0].(map[string]any)["checked"] != false {
			t.Errorf("%q: elements %v, want the unchecked box first", tc.args, got["elements"])
		}
		if c := runCLI(t, nil, r.stdout, "obstacle"); c.code != 0 || !strings.HasPrefix(c.stdout, "auth_wall") {
			t.Errorf("%q piped to obstacle: exit %d %s%s", tc.args, c.code, c.stdout, c.stderr)
		}
	}
	if r := runCLI(t, h, "", "extract", "--format", "text"); r.code != 0 || r.stdout != "Sign in raw text\n" {
		t.Errorf("--format text: exit %d %q", r.code, r.stdout)
	}
}

func TestFlagsEitherSide(t *testing.T) {
	h, ext := startFake(t)
	for _, args := range [][]string{
		{"click", "e3", "--tab", "5"},
		{"click", "--tab", "5", "e3"},
		{"--json", "click", "e3", "--tab=5"},
	} {
		r := runCLI(t, h, "", args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d %s", args, r.code, r.stderr)
		}
		reqs := ext.Requests()
		got := reqs[len(reqs)-1]
		if got.UID != "e3" || got.TabID == nil || *got.TabID != 5 {
			t.Fatalf("%q sent %+v", args, got)
		}
	}
}

func TestTypeReadsSecretsSafely(t *testing.T) {
	h, ext := startFake(t)
	secret := map[string]string{"BUA_TEST_SECRET": "s3cret"}
	if r := runCLIEnv(t, h, secret, "", "type", "e1", "--text-env", "BUA_TEST_SECRET"); r.code != 0 {
		t.Fatalf("--text-env: %d %s", r.code, r.stderr)
	}
	if got := ext.Requests()[0]; got.Text == nil || *got.Text != "s3cret" {
		t.Fatalf("sent %+v", got)
	}
	if r := runCLI(t, h, "from stdin\n", "type", "#q", "-"); r.code != 0 {
		t.Fatalf("stdin: %d %s", r.code, r.stderr)
	}
	if got := ext.Requests()[1]; got.Selector != "#q" || *got.Text != "from stdin" {
		t.Fatalf("sent %+v", got)
	}
}

func TestScreenshotWritesJPEG(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionScreenshot, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQ"}, nil
	})
	out := filepath.Join(t.TempDir(), "shot.jpg")
	r := runCLI(t, h, "", "screenshot", "-o", out)
	if r.code != 0 || strings.TrimSpace(r.stdout) != out {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil || len(data) < 3 || data[0] != 0xFF || data[1] != 0xD8 {
		t.Fatalf("file is not a JPEG: %x %v", data, err)
	}
}

// TestHelpGolden pins every command's --help, so a changed flag or wording
// is a reviewed diff.
func TestHelpGolden(t *testing.T) {
	app := newApp(&Env{}, nil)
	golden(t, "help/bua.txt", runCLI(t, nil, "", "--help").stdout)
	for _, cmd := range app.Commands {
		name := cmd.Name
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, nil, "", name, "--help")
			if r.code != 0 {
				t.Fatalf("exit %d", r.code)
			}
			golden(t, "help/"+name+".txt", r.stdout)
		})
	}
}

// TestEvaluateIsEval: `bua evaluate`, the flow step's name, is `bua eval`:
// the same help and the same evaluate request, through the full CLI too.
func TestEvaluateIsEval(t *testing.T) {
	if a, b := runCLI(t, nil, "", "evaluate", "--help"), runCLI(t, nil, "", "eval", "--help"); a != b || a.code != 0 {
		t.Errorf("evaluate --help %+v, want eval --help %+v", a, b)
	}
	h, ext := startFake(t)
	ext.Handle(protocol.ActionEvaluate, func(a protocol.Action) (any, *protocol.Error) {
		return map[string]any{"type": "string", "value": "got " + a.Expression}, nil
	})
	r := runCLI(t, h, "", "evaluate", "--json", "return 1")
	if r.code != 0 || !strings.Contains(r.stdout, `"value": "got return 1"`) {
		t.Errorf("bua evaluate --json: %+v", r)
	}
}

func TestCompletion(t *testing.T) {
	for shell, wants := range map[string][]string{
		"bash": {"complete -o default", "--generate-bash-completion"},
		"zsh":  {"compdef _bua bua", "--generate-bash-completion"},
		"fish": {"complete -c bua"},
		// PowerShell is not installed where these tests run:
		// e2e/completion_test.go runs the script in pwsh where it is.
		"powershell": {"Register-ArgumentCompleter -Native -CommandName bua,bua.exe -ScriptBlock {", "--generate-bash-completion",
			"[System.Management.Automation.CompletionResult]::new(", "bua completion powershell | Out-String | Invoke-Expression"},
	} {
		r := runCLI(t, nil, "", "completion", shell)
		for _, want := range wants {
			if r.code != 0 || !strings.Contains(r.stdout, want) {
				t.Errorf("%s: exit %d, output lacks %q:\n%s", shell, r.code, want, r.stdout)
			}
		}
	}
	// The --generate-bash-completion protocol itself reads os.Args, so
	// e2e/completion_test.go proves it through the built binary. After
	// "--" urfave/cli would run the command: bua answers nothing instead.
	h, ext := startFake(t)
	before := len(ext.Requests())
	for _, args := range [][]string{{"eval", "--", "--generate-bash-completion"}, {"click", "--", "e3", "--generate-bash-completion"}} {
		if r := runCLI(t, h, "", args...); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%q: %+v, want nothing", args, r)
		}
	}
	if n := len(ext.Requests()) - before; n != 0 {
		t.Errorf("a completion after -- sent %d requests", n)
	}
	if r := runCLI(t, nil, "", "completion", "tcsh"); r.code != 2 || !strings.Contains(r.stderr, "bash, zsh, fish or powershell") {
		t.Errorf("unknown shell: exit %d, stderr %q: want 2, naming the four shells", r.code, r.stderr)
	}
}

func TestObstacleCommand(t *testing.T) {
	extract := `{"url":"https://acme.test/login","title":"Sign in – Acme","markdown":"# Sign in\n\nEmail\n\nPassword",
	  "elements":[{"uid":"e0","role":"textbox","name":"Email"},{"uid":"e1","role":"textbox","name":"Password"},{"uid":"e2","role":"button","name":"Sign in"}],
	  "captchaFrame":false,"text":"ignored","tabId":3}`
	r := runCLI(t, nil, extract, "obstacle")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "auth_wall (high)") || !strings.Contains(r.stdout, "layer: L3") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, extract, "obstacle", "--json", "-")
	var v struct {
		Obstacle *struct{ Type, Confidence string }
		Layer    string
		Signals  []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Obstacle == nil || v.Obstacle.Type != "auth_wall" || len(v.Signals) == 0 {
		t.Fatalf("--json: %v %q", err, r.stdout)
	}
	if r := runCLI(t, nil, "not json", "obstacle"); r.code != 2 || r.stderr == "" {
		t.Fatalf("bad input: exit %d stderr %q", r.code, r.stderr)
	}
}

// TestEveryActionHasACommand runs one CLI command per protocol action and
// checks the action it sends: a new action in the schema fails here until
// it has its command (and a row below).
func TestEveryActionHasACommand(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) { return []protocol.TabInfo{}, nil })
	ext.Handle(protocol.ActionOpenTab, func(protocol.Action) (any, *protocol.Error) {
		return protocol.OpenTabResult{TabID: 1, WindowID: 1, Domain: "a.test"}, nil
	})
	ext.Handle(protocol.ActionExtract, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ExtractResult{Elements: []protocol.Element{}}, nil
	})
	ext.Handle(protocol.ActionEvaluate, func(protocol.Action) (any, *protocol.Error) {
		return protocol.EvaluateResult{Type: "number", Value: 1}, nil
	})
	ext.Handle(protocol.ActionScreenshot, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/"}, nil
	})
	ext.Handle(protocol.ActionDescribe, func(protocol.Action) (any, *protocol.Error) {
		return protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{{By: "css", Selector: "#a", Count: 1}}}, nil
	})
	shot := filepath.Join(t.TempDir(), "s.jpg")
	commands := map[protocol.ActionType][]string{
		protocol.ActionNavigate:     {"navigate", "https://a.test/"},
		protocol.ActionClick:        {"click", "e1"},
		protocol.ActionType_:        {"type", "e1", "hi"},
		protocol.ActionHover:        {"hover", "#a"},
		protocol.ActionPressKey:     {"press", "Enter"},
		protocol.ActionScroll:       {"scroll", "down"},
		protocol.ActionScreenshot:   {"screenshot", "-o", shot},
		protocol.ActionExtract:      {"extract"},
		protocol.ActionEvaluate:     {"eval", "return 1"},
		protocol.ActionWaitFor:      {"wait-for", "#a"},
		protocol.ActionGetTabs:      {"tabs"},
		protocol.ActionOpenTab:      {"open", "https://a.test/"},
		protocol.ActionCloseTab:     {"close", "3"},
		protocol.ActionReload:       {"reload"},
		protocol.ActionGoBack:       {"back"},
		protocol.ActionGoForward:    {"forward"},
		protocol.ActionHandleDialog: {"dialog", "accept"},
		protocol.ActionHandoff:      {"wait-for-human", "--timeout", "5s"},
		protocol.ActionSelectOption: {"select", "#s", "--label", "Blue"},
		protocol.ActionUpload:       {"upload", "input", "cmd_test.go"},
		protocol.ActionGetTrace:     {"trace"},
		protocol.ActionDescribe:     {"describe", "e1"},
		protocol.ActionRecordStart:  {"record", "--tab", "7", "-o", filepath.Join(t.TempDir(), "r.yaml")},
		protocol.ActionRecordRead:   {"record", "--tab", "7", "-o", filepath.Join(t.TempDir(), "r.yaml")},
	}
	// What a command needs the page to show before it sends its action.
	setup := map[protocol.ActionType]func(){
		protocol.ActionHandoff: func() {
			captcha := protocol.ExtractResult{Elements: []protocol.Element{}, Obstacle: &protocol.Obstacle{Type: "captcha", Confidence: "high", Message: "A captcha is shown"}}
			var n atomic.Int32
			ext.Handle(protocol.ActionExtract, func(protocol.Action) (any, *protocol.Error) {
				if n.Add(1) == 1 {
					return captcha, nil
				}
				return protocol.ExtractResult{Elements: []protocol.Element{}}, nil
			})
		},
	}
	// Sent only on Ctrl-C, which TestRecordCtrlC gives.
	elsewhere := map[protocol.ActionType]bool{protocol.ActionRecordStop: true}
	recordingFake(ext, protocol.RecordUserStopped)
	for _, typ := range protocol.Actions {
		args, ok := commands[typ]
		if elsewhere[typ] {
			continue
		}
		if !ok {
			t.Errorf("%s: no CLI command sends it: add one in cmd_actions.go and a row here", typ)
			continue
		}
		if f := setup[typ]; f != nil {
			f()
		}
		before := len(ext.Requests())
		r := runCLI(t, h, "", args...)
		sent := slices.ContainsFunc(ext.Requests()[before:], func(a protocol.Action) bool { return a.Type == typ })
		if r.code != 0 || !sent {
			t.Errorf("bua %s: exit %d, stderr %q; want it to send %s", strings.Join(args, " "), r.code, r.stderr, typ)
		}
	}
}

// TestPairURL: with no daemon running, pair prints the URL BUA_LISTEN
// will give the daemon, not the default port.
func TestPairURL(t *testing.T) {
	r := runCLIEnv(t, nil, map[string]string{"BUA_LISTEN": "127.0.0.1:49555"}, "", "pair", "--json")
	var out struct{ URL string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.URL != "ws://127.0.0.1:49555/ws/browser" {
		t.Fatalf("pair --json: exit %d, %q, want the BUA_LISTEN port", r.code, r.stdout)
	}
}

// TestDoctorSandbox: doctor says the sandbox is off, and why, only for
// root; otherwise that it is on.
func TestDoctorSandbox(t *testing.T) {
	for _, tc := range []struct {
		off   bool
		level string
		says  string
	}{
		{true, "warn", "bua runs as root"},
		{false, "ok", "runs with Chromium's sandbox"},
	} {
		ch := sandboxCheck(tc.off)
		if ch.Name != "sandbox" || ch.Level != tc.level || !strings.Contains(ch.Message, tc.says) {
			t.Errorf("sandboxCheck(%v) = %+v, want %s saying %q", tc.off, ch, tc.level, tc.says)
		}
	}
	// doctor itself carries the line for this process's euid.
	r := runCLI(t, nil, "", "doctor", "--json")
	want := sandboxCheck(os.Geteuid() == 0)
	if !strings.Contains(r.stdout, want.Message) {
		t.Errorf("doctor --json lacks the sandbox line %q:\n%s", want.Message, r.stdout)
	}
}

// TestDoctorVerdict: the last line names only the kind of line that is
// there.
func TestDoctorVerdict(t *testing.T) {
	for _, tt := range []struct {
		levels []string
		want   string
	}{
		{[]string{"ok", "fail"}, "fix the FAIL lines"},
		{[]string{"ok", "warn"}, "see the warn lines"},
		{[]string{"ok"}, "no browser is connected"},
	} {
		var r doctorReport
		for _, l := range tt.levels {
			r.Checks = append(r.Checks, check{Level: l})
		}
		if got := r.verdict(); !strings.Contains(got, tt.want) {
			t.Errorf("levels %v: verdict %q, want %q", tt.levels, got, tt.want)
		}
	}
	if got := (doctorReport{Ready: true}).verdict(); got != "bua can serve actions now." {
		t.Errorf("ready verdict %q", got)
	}
}

// TestScrollNothingScrolled: scroll says so when the page did not move.
func TestScrollNothingScrolled(t *testing.T) {
	h, ext := startFake(t)
	no := false
	ext.Handle(protocol.ActionScroll, func(protocol.Action) (any, *protocol.Error) {
		return protocol.OKResult{OK: true, Scrolled: &no}, nil
	})
	if r := runCLI(t, h, "", "scroll", "up"); r.code != 0 || !strings.Contains(r.stdout, "nothing scrolled") {
		t.Fatalf("scroll up at the top: exit %d, stdout %q", r.code, r.stdout)
	}
}
