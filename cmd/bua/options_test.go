package main

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

// parsed is what a command line gave a command's run function through its
// seam (newXCommand(env, runF)): the options, or the usage error instead.
type parsed[T any] struct {
	opts   *T
	code   int
	stderr string
}

// parseWith runs args (after "bua") through an app of the one command
// newCmd builds, as run does (reorderArgs, the global flags), with a run
// function that only records the options: nothing dials a daemon. getenv
// answers the command's environment.
func parseWith[T any](t *testing.T, newCmd func(*Env, func(*T) error) *cli.Command, getenv map[string]string, args ...string) parsed[T] {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return getenv[k] }, Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }}
	var got *T
	cmd := newCmd(env, func(o *T) error { got = o; return nil })
	code := runApp(context.Background(), appOf(env, []*cli.Command{cmd}), append([]string{"bua"}, args...), env)
	if got != nil {
		// The plumbing is not the command line's: compare the rest.
		g := any(got).(interface{ globals() *globalOptions }).globals()
		g.env, g.ctx = nil, nil
	}
	if out.Len() > 0 {
		t.Errorf("bua %q printed %q on stdout while parsing", args, out.String())
	}
	return parsed[T]{got, code, errb.String()}
}

// globals is every options struct's global flags (promoted from its
// embedded globalOptions).
func (g *globalOptions) globals() *globalOptions { return g }

// optionsCase is one command line and what its command should parse it to:
// want, or a usage error (exit 2) whose message contains wantErr.
type optionsCase[T any] struct {
	name    string
	args    []string
	want    *T
	wantErr string
}

func checkOptions[T any](t *testing.T, newCmd func(*Env, func(*T) error) *cli.Command, getenv map[string]string, cases []optionsCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := parseWith(t, newCmd, getenv, tc.args...)
			if tc.wantErr != "" {
				if p.opts != nil || p.code != exitUsage || !strings.Contains(p.stderr, tc.wantErr) {
					t.Fatalf("bua %q: ran %+v, exit %d, stderr %q; want exit 2 saying %q", tc.args, p.opts, p.code, p.stderr, tc.wantErr)
				}
				return
			}
			if p.code != 0 || p.opts == nil {
				t.Fatalf("bua %q: exit %d, stderr %q", tc.args, p.code, p.stderr)
			}
			if !reflect.DeepEqual(p.opts, tc.want) {
				t.Errorf("bua %q parsed to\n%+v\nwant\n%+v", tc.args, *p.opts, *tc.want)
			}
		})
	}
}

// defaults are the global flags' defaults; with changes the fields a test
// names.
func defaults(with ...func(*globalOptions)) globalOptions {
	g := globalOptions{Browser: "auto", Dialogs: protocol.DialogsLeave}
	for _, f := range with {
		f(&g)
	}
	return g
}

func onTab(n int) *int { return &n }

func TestClickOptions(t *testing.T) {
	abs, err := filepath.Abs("dl")
	if err != nil {
		t.Fatal(err)
	}
	act := actionOptions{globalOptions: defaults()}
	checkOptions(t, newClickCommand, nil, []optionsCase[clickOptions]{
		{name: "UID", args: []string{"click", "e3"}, want: &clickOptions{actionOptions: act, Target: protocol.Target{UID: "e3"}}},
		{name: "Selector", args: []string{"click", "#go"}, want: &clickOptions{actionOptions: act, Target: protocol.Target{Selector: "#go"}}},
		{name: "SelectorForced", args: []string{"click", "--selector", "e3"}, want: &clickOptions{actionOptions: act, Target: protocol.Target{Selector: "e3"}}},
		{name: "Role", args: []string{"click", "--role", "button", "--name", "Sign in", "--nth", "1", "--frame", "pay"},
			want: &clickOptions{actionOptions: act, Target: protocol.Target{Role: "button", Name: "Sign in", Nth: onTab(1), Frame: "pay"}}},
		{name: "FlagsAfterTarget", args: []string{"click", "e3", "--tab", "5", "--force"},
			want: &clickOptions{actionOptions: actionOptions{globalOptions: defaults(), Tab: onTab(5)}, Target: protocol.Target{UID: "e3"}, Force: true}},
		{name: "GlobalsBeforeCommand", args: []string{"--json", "--timeout", "2s", "--browser", "managed", "click", "e3"},
			want: &clickOptions{actionOptions: actionOptions{globalOptions: defaults(func(g *globalOptions) {
				g.JSON, g.Timeout, g.Browser = true, 2*time.Second, "managed"
			})}, Target: protocol.Target{UID: "e3"}}},
		{name: "Download", args: []string{"click", "e3", "--download", "dl", "--dialogs", "accept", "-q"},
			want: &clickOptions{actionOptions: actionOptions{globalOptions: defaults(func(g *globalOptions) { g.Dialogs, g.Quiet = "accept", true })},
				Target: protocol.Target{UID: "e3"}, Download: abs}},
		{name: "ButtonAndCount", args: []string{"click", "e3", "--button", "right", "--click-count", "2"},
			want: &clickOptions{actionOptions: act, Target: protocol.Target{UID: "e3"}, Button: "right", ClickCount: onTab(2)}},
		{name: "NoTarget", args: []string{"click"}, wantErr: "click needs a TARGET"},
		{name: "Extra", args: []string{"click", "e3", "e4"}, wantErr: `got extra "e4"`},
		{name: "NameWithoutRole", args: []string{"click", "--name", "x"}, wantErr: "--name and --nth go with --role"},
		{name: "UnknownRole", args: []string{"click", "--role", "buton"}, wantErr: "buton"},
		{name: "FrameOnUID", args: []string{"click", "e3", "--frame", "pay"}, wantErr: "--frame goes with a CSS selector or --role"},
		{name: "EmptyDownload", args: []string{"click", "e3", "--download", ""}, wantErr: "--download needs a DIR"},
		{name: "BadDialogs", args: []string{"click", "e3", "--dialogs", "maybe"}, wantErr: "--dialogs:"},
		{name: "UnknownFlag", args: []string{"click", "e3", "--bogus"}, wantErr: "see `bua click --help`"},
	})
}

func TestTypeOptions(t *testing.T) {
	act := actionOptions{globalOptions: defaults()}
	checkOptions(t, newTypeCommand, map[string]string{"PW": "hunter2"}, []optionsCase[typeOptions]{
		{name: "Text", args: []string{"type", "e1", "hello world", "--clear"}, want: &typeOptions{actionOptions: act, Target: protocol.Target{UID: "e1"}, Text: "hello world", Clear: true}},
		{name: "Stdin", args: []string{"type", "e1", "-"}, want: &typeOptions{actionOptions: act, Target: protocol.Target{UID: "e1"}, FromStdin: true}},
		{name: "Env", args: []string{"type", "--role", "textbox", "--name", "Password", "--text-env", "PW", "--force"},
			want: &typeOptions{actionOptions: act, Target: protocol.Target{Role: "textbox", Name: "Password"}, Text: "hunter2", Force: true}},
		{name: "EnvUnset", args: []string{"type", "e1", "--text-env", "NOPE"}, wantErr: "environment variable NOPE is not set"},
		{name: "EnvAndText", args: []string{"type", "e1", "x", "--text-env", "PW"}, wantErr: "with --text-env, type takes only TARGET"},
		{name: "NoText", args: []string{"type", "e1"}, wantErr: "type takes TARGET and TEXT"},
	})
}

func TestEvalOptions(t *testing.T) {
	checkOptions(t, newEvalCommand, nil, []optionsCase[evalOptions]{
		{name: "Plain", args: []string{"eval", "return 1"}, want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults()}, Expression: "return 1"}},
		{name: "Alias", args: []string{"evaluate", "return 1", "--tab", "7"}, want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults(), Tab: onTab(7)}, Expression: "return 1"}},
		{name: "TabEquals", args: []string{"eval", "--tab=7", "return 1", "--json"},
			want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults(func(g *globalOptions) { g.JSON = true }), Tab: onTab(7)}, Expression: "return 1"}},
		{name: "Stdin", args: []string{"eval", "-"}, want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults()}, Expression: "-", FromStdin: true}},
		{name: "AfterDoubleDash", args: []string{"eval", "--", "--x"}, want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults()}, Expression: "--x"}},
		{name: "None", args: []string{"eval"}, wantErr: "eval takes one EXPRESSION"},
		{name: "Two", args: []string{"eval", "a", "b"}, wantErr: "eval takes one EXPRESSION"},
		{name: "TabHandle", args: []string{"eval", "return 1", "--tab", "t12"},
			want: &evalOptions{actionOptions: actionOptions{globalOptions: defaults(func(g *globalOptions) { g.TabHandle = "t12" })}, Expression: "return 1"}},
		{name: "BadTab", args: []string{"eval", "x", "--tab", "x"}, wantErr: "--tab \"x\": want a tab handle like t2 or a tab id, as `bua tabs` lists them"},
		{name: "TabHandleZero", args: []string{"eval", "x", "--tab", "t0"}, wantErr: "--tab \"t0\": want a tab handle like t2"},
		{name: "TabHandleCapital", args: []string{"eval", "x", "--tab", "T2"}, wantErr: "--tab \"T2\": want a tab handle like t2"},
		{name: "TabNegative", args: []string{"eval", "x", "--tab=-3"}, wantErr: "--tab \"-3\": want a tab handle like t2"},
	})
}

// TestCloseOptions: close takes its TAB as --tab does, a handle or an id.
func TestCloseOptions(t *testing.T) {
	checkOptions(t, newCloseCommand, nil, []optionsCase[closeOptions]{
		{name: "ID", args: []string{"close", "660577608"}, want: &closeOptions{actionOptions{globalOptions: defaults(), Tab: onTab(660577608)}}},
		{name: "Handle", args: []string{"close", "t3"}, want: &closeOptions{actionOptions{globalOptions: defaults(func(g *globalOptions) { g.TabHandle = "t3" })}}},
		{name: "None", args: []string{"close"}, wantErr: "close takes one TAB: a handle like t2, or a tab id"},
		{name: "Bad", args: []string{"close", "tab3"}, wantErr: `close "tab3": want a tab handle like t2 or a tab id`},
	})
}

func TestWaitForOptions(t *testing.T) {
	// wait-for's own --timeout is the wait's, and also bounds the dial.
	own := func(d time.Duration) globalOptions { return defaults(func(g *globalOptions) { g.Timeout = d }) }
	checkOptions(t, newWaitForCommand, nil, []optionsCase[waitForOptions]{
		{name: "Target", args: []string{"wait-for", "#done"}, want: &waitForOptions{actionOptions: actionOptions{globalOptions: own(protocol.DefaultWaitForTimeout)},
			Target: protocol.Target{Selector: "#done"}, WaitTimeout: protocol.DefaultWaitForTimeout}},
		{name: "TextAlone", args: []string{"wait-for", "--text", "Saved", "--timeout", "3s"}, want: &waitForOptions{actionOptions: actionOptions{globalOptions: own(3 * time.Second)},
			Wait: protocol.Wait{Text: "Saved"}, WaitTimeout: 3 * time.Second}},
		{name: "GlobalTimeoutIsTheWait", args: []string{"--timeout", "2s", "wait-for", "--url", "**/done"}, want: &waitForOptions{actionOptions: actionOptions{globalOptions: own(2 * time.Second)},
			Wait: protocol.Wait{URL: "**/done"}, WaitTimeout: 2 * time.Second}},
		{name: "Hidden", args: []string{"wait-for", "--role", "progressbar", "--state", "hidden"}, want: &waitForOptions{actionOptions: actionOptions{globalOptions: own(protocol.DefaultWaitForTimeout)},
			Target: protocol.Target{Role: "progressbar"}, Wait: protocol.Wait{State: "hidden"}, WaitTimeout: protocol.DefaultWaitForTimeout}},
		{name: "EmptyText", args: []string{"wait-for", "--text", ""}, wantErr: "--text needs the text"},
		{name: "Nothing", args: []string{"wait-for"}, wantErr: "wait-for needs a TARGET"},
		{name: "Extra", args: []string{"wait-for", "a", "b"}, wantErr: "quote a selector with spaces"},
	})
}

func TestLoadOptions(t *testing.T) {
	checkOptions(t, newNavigateCommand, nil, []optionsCase[navigateOptions]{
		{name: "Navigate", args: []string{"navigate", "https://a.test/", "--wait-until", "commit", "--tab", "2"},
			want: &navigateOptions{loadOptions: loadOptions{actionOptions: actionOptions{globalOptions: defaults(), Tab: onTab(2)}, WaitUntil: "commit"}, URL: "https://a.test/"}},
		{name: "BadWaitUntil", args: []string{"navigate", "https://a.test/", "--wait-until", "idle"}, wantErr: `--wait-until "idle": expected`},
		{name: "NoURL", args: []string{"navigate"}, wantErr: "navigate takes one URL"},
	})
	for _, cmd := range []struct {
		name string
		new  func(*Env, func(*loadOptions) error) *cli.Command
	}{{"reload", newReloadCommand}, {"back", newBackCommand}, {"forward", newForwardCommand}} {
		t.Run(cmd.name, func(t *testing.T) {
			checkOptions(t, cmd.new, nil, []optionsCase[loadOptions]{
				{name: "Plain", args: []string{cmd.name}, want: &loadOptions{actionOptions: actionOptions{globalOptions: defaults()}}},
				{name: "WaitUntil", args: []string{cmd.name, "--wait-until", "networkidle", "--quiet"},
					want: &loadOptions{actionOptions: actionOptions{globalOptions: defaults(func(g *globalOptions) { g.Quiet = true })}, WaitUntil: "networkidle"}},
				{name: "Argument", args: []string{cmd.name, "x"}, wantErr: cmd.name + " takes no arguments"},
			})
		})
	}
}

func TestSelectAndUploadOptions(t *testing.T) {
	act := actionOptions{globalOptions: defaults()}
	checkOptions(t, newSelectCommand, nil, []optionsCase[selectOptions]{
		{name: "Labels", args: []string{"select", "e2", "--label", "Doe, John", "--label", "Pro"},
			want: &selectOptions{actionOptions: act, Target: protocol.Target{UID: "e2"}, By: protocol.ByLabel, Items: []string{"Doe, John", "Pro"}}},
		{name: "Two kinds", args: []string{"select", "e2", "--value", "a", "--index", "1"}, wantErr: "not both value and index"},
		{name: "None", args: []string{"select", "e2"}, wantErr: "select needs --value, --label or --index"},
	})
	abs, err := filepath.Abs("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	checkOptions(t, newUploadCommand, nil, []optionsCase[uploadOptions]{
		{name: "File", args: []string{"upload", "#f", "a.txt"}, want: &uploadOptions{actionOptions: act, Target: protocol.Target{Selector: "#f"}, Files: []string{abs}}},
		{name: "NoFile", args: []string{"upload", "#f"}, wantErr: "upload takes TARGET"},
	})
}

func TestExtractOptions(t *testing.T) {
	n := func(v int) *int { return &v }
	extract := func(sel string, set func(*protocol.Action)) protocol.Action {
		a := protocol.Extract(sel)
		if set != nil {
			set(&a)
		}
		return a
	}
	act := actionOptions{globalOptions: defaults()}
	checkOptions(t, newExtractCommand, nil, []optionsCase[extractOptions]{
		{name: "Default", args: []string{"extract"}, want: &extractOptions{actionOptions: act, Action: extract("", nil), Format: "default", HandoffTimeout: 5 * time.Minute}},
		{name: "Parts", args: []string{"extract", "--selector", "main", "--max-chars", "600", "--part", "2", "--max-elements", "9"},
			want: &extractOptions{actionOptions: act, Action: extract("main", func(a *protocol.Action) { a.MaxChars, a.Part, a.MaxElements = n(600), n(2), n(9) }), Format: "default", HandoffTimeout: 5 * time.Minute}},
		{name: "Handoff", args: []string{"extract", "--handoff", "--handoff-timeout", "1m", "--format", "json", "--text"},
			want: &extractOptions{actionOptions: act, Action: extract("", nil), Format: "json", KeepText: true, Handoff: true, HandoffTimeout: time.Minute}},
		{name: "Changes", args: []string{"extract", "--changes"},
			want: &extractOptions{actionOptions: act, Action: extract("", func(a *protocol.Action) { a.Changes = true }), Format: "default", HandoffTimeout: 5 * time.Minute}},
		{name: "ChangesOfSelector", args: []string{"extract", "--changes", "--selector", "main"}, wantErr: "--changes reads what changed in the whole page"},
		{name: "ChangesCut", args: []string{"extract", "--changes", "--max-chars", "600"}, wantErr: "drop --selector, --max-chars and --part"},
		{name: "BadFormat", args: []string{"extract", "--format", "html"}, wantErr: "--format must be"},
		{name: "PartAlone", args: []string{"extract", "--part", "2"}, wantErr: "give --max-chars too"},
		{name: "FewChars", args: []string{"extract", "--max-chars", "10"}, wantErr: "--max-chars must be from 500"},
	})
}

func TestRunAndLintOptions(t *testing.T) {
	checkOptions(t, newRunCommand, nil, []optionsCase[runOptions]{
		{name: "Plain", args: []string{"run", "flows/"}, want: &runOptions{globalOptions: defaults(), Flows: []string{"flows/"}}},
		{name: "Everything", args: []string{"run", "a.yaml", "--var", "x=1", "b.yaml", "--var", "y=2", "--report", "junit=r.xml", "--tag", "smoke,fast", "--exclude-tag", "slow",
			"--shard", "1/2", "--retries", "2", "--fail-on-flaky", "--fail-fast", "--artifacts", "out", "--serve", "site", "--dialogs", "dismiss", "--json"},
			want: &runOptions{globalOptions: defaults(func(g *globalOptions) { g.Dialogs, g.JSON = "dismiss", true }), Flows: []string{"a.yaml", "b.yaml"},
				Vars: []string{"x=1", "y=2"}, Reports: []string{"junit=r.xml"}, Tags: []string{"smoke", "fast"}, ExcludeTags: []string{"slow"},
				Shard: "1/2", Retries: 2, FailOnFlaky: true, FailFast: true, Artifacts: "out", Serve: "site", DialogsSet: true}},
		{name: "DryRunAndList", args: []string{"run", "--dry-run", "--list", "a.yaml"}, want: &runOptions{globalOptions: defaults(), Flows: []string{"a.yaml"}, DryRun: true, List: true}},
	})
	checkOptions(t, newLintCommand, nil, []optionsCase[lintOptions]{
		{name: "Files", args: []string{"lint", "a.yaml", "--json", "b.yaml"}, want: &lintOptions{globalOptions: defaults(func(g *globalOptions) { g.JSON = true }), Flows: []string{"a.yaml", "b.yaml"}}},
	})
}

func TestImportOptions(t *testing.T) {
	checkOptions(t, newImportCommand, nil, []optionsCase[importOptions]{
		{name: "Stdout", args: []string{"import", "rec.json"}, want: &importOptions{globalOptions: defaults(), File: "rec.json"}},
		{name: "Everything", args: []string{"import", "-", "-o", "login.yaml", "--strict", "--name", "Log in", "--json"},
			want: &importOptions{globalOptions: defaults(func(g *globalOptions) { g.JSON = true }), File: "-", Output: "login.yaml", Strict: true, Name: "Log in"}},
		{name: "JSONWithoutOutput", args: []string{"import", "rec.json", "--json"}, wantErr: "give the flow a file with -o FLOW.yaml"},
		{name: "NoFile", args: []string{"import"}, wantErr: "import takes one FILE.json"},
	})
}

func TestStatusAndStopOptions(t *testing.T) {
	checkOptions(t, newStatusCommand, nil, []optionsCase[statusOptions]{
		{name: "Quiet", args: []string{"status", "-q"}, want: &statusOptions{globalOptions: defaults(func(g *globalOptions) { g.Quiet = true })}},
		{name: "Argument", args: []string{"status", "--bogus"}, wantErr: "see `bua status --help`"},
	})
	checkOptions(t, newStopCommand, nil, []optionsCase[stopOptions]{
		{name: "Timeout", args: []string{"--timeout", "5s", "stop"}, want: &stopOptions{globalOptions: defaults(func(g *globalOptions) { g.Timeout = 5 * time.Second })}},
	})
}

// TestRegistryNames: each registered command answers to the names it was
// registered with, and no two commands share one.
func TestRegistryNames(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range registry {
		cmd := r.build(&Env{})
		if want := append([]string{cmd.Name}, cmd.Aliases...); !reflect.DeepEqual(r.names, want) {
			t.Errorf("%s is registered as %q, want %q", cmd.Name, r.names, want)
		}
		for _, n := range r.names {
			if seen[n] {
				t.Errorf("two commands are named %s", n)
			}
			seen[n] = true
		}
	}
}

// TestNewAppBuildsTheNamedCommand: a command line that names a command
// builds it alone; one that names none, or help, or completion (whose
// fish script lists every command), builds them all.
func TestNewAppBuildsTheNamedCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the one command, or "" for all of them
	}{
		{[]string{"bua", "eval", "return 1"}, "eval"},
		{[]string{"bua", "evaluate", "return 1"}, "eval"},
		{[]string{"bua", "--json", "--browser", "managed", "tabs"}, "tabs"},
		{[]string{"bua", "--tab", "5", "click", "e3"}, "click"},
		{[]string{"bua", "browser", "start"}, "browser"},
		{[]string{"bua"}, ""},
		{[]string{"bua", "--json"}, ""},
		{[]string{"bua", "help", "click"}, ""},
		{[]string{"bua", "bogus"}, ""},
		{[]string{"bua", "completion", "fish"}, ""},
	} {
		app := newApp(&Env{}, tc.args)
		switch {
		case tc.want == "" && len(app.Commands) != len(registry):
			t.Errorf("newApp(%q) built %d commands, want all %d", tc.args, len(app.Commands), len(registry))
		case tc.want != "" && (len(app.Commands) != 1 || app.Commands[0].Name != tc.want):
			t.Errorf("newApp(%q) built %d commands (first %s), want %s alone", tc.args, len(app.Commands), app.Commands[0].Name, tc.want)
		}
	}
}
