package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

func testEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Now: time.Now}, &out, &errb
}

// dialFake is an Env.Dial that gives req (or fails with err) instead of
// the daemon, for `bua run`.
func dialFake(req protocol.Requester, err *protocol.Error) func(context.Context, bridge.ClientOptions) (bridge.Link, *protocol.Error) {
	return func(context.Context, bridge.ClientOptions) (bridge.Link, *protocol.Error) {
		if err != nil {
			return nil, err
		}
		return fakeLink{req}, nil
	}
}

// fakeLink is a fake Requester as a bridge.Link.
type fakeLink struct{ protocol.Requester }

func (fakeLink) Close() error { return nil }
func (fakeLink) Dead() bool   { return false }

func writeFlow(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	pass := writeFlow(t, dir, "a_pass.yaml", "name: passes\nvars: { base: http://x.test }\nsteps:\n  - navigate: ${{ vars.base }}/\n")
	fail := writeFlow(t, dir, "b_fail.yaml", "name: fails\nsteps:\n  - click: \"#missing\"\n")
	blocked := writeFlow(t, dir, "c_blocked.yaml", "name: blocked\nsteps:\n  - navigate: http://blocked.localhost/\n")
	invalid := writeFlow(t, dir, "d_invalid.yaml", "name: bad\nsteps:\n  - clik: x\n")
	fake := runnertest.New().
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "nothing matches #missing")).
		On(protocol.ActionNavigate, func(_ context.Context, a protocol.Action) (any, *protocol.Error) {
			if strings.Contains(a.URL, "blocked.localhost") {
				return nil, protocol.Errorf(protocol.CodeDomainBlocked, "blocked.localhost is on the blocklist")
			}
			return map[string]any{"ok": true}, nil
		})
	for _, tc := range []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"Passed", []string{pass}, 0, "1 passed, 0 failed"},
		{"VarOverride", []string{pass, "--var", "base=http://y.test"}, 0, "passes"},
		{"Failure", []string{pass, fail}, 1, "1 passed, 1 failed"},
		{"BlockedOverFailure", []string{fail, blocked}, 3, "blocked"},
		{"InvalidWins", []string{fail, blocked, invalid}, 2, "did you mean click?"},
		{"Glob", []string{filepath.Join(dir, "a_*.yaml")}, 0, "1 passed"},
		{"Shard", []string{filepath.Join(dir, "*.yaml"), "--shard", "1/4"}, 0, "1 passed, 0 failed"},
		{"FailFast", []string{fail, pass, "--fail-fast"}, 1, "0 passed, 1 failed, 1 skipped"},
		{"NoFlows", nil, 2, ""},
		{"BadShard", []string{pass, "--shard", "5/4"}, 2, ""},
		{"BadVar", []string{pass, "--var", "novalue"}, 2, ""},
		{"BadReport", []string{pass, "--report", "pdf=out.pdf"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeDial := dialFake(fake, nil)
			env, out, errb := testEnv()
			env.Dial = fakeDial
			code := run(context.Background(), append([]string{"bua", "run"}, tc.args...), env)
			if code != tc.want {
				t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errb)
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
		})
	}
	if got := fake.Requests()[1].URL; got != "http://y.test/" {
		t.Errorf("--var did not override: navigate %q", got)
	}
}

func TestRunCommand_Reports(t *testing.T) {
	dir := t.TempDir()
	fail := writeFlow(t, dir, "fail.yaml", "name: Expected failure\nsteps:\n  - extract: {}\n  - assert: last.title == \"nope\"\n    message: title check\n")
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(protocol.ExtractResult{Title: "Home", Markdown: "# Home"})).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQ"}))
	fakeDial := dialFake(fake, nil)
	env, out, errb := testEnv()
	env.Dial = fakeDial
	junit, js, art := filepath.Join(dir, "out", "junit.xml"), filepath.Join(dir, "out", "report.json"), filepath.Join(dir, "art")
	html := filepath.Join(dir, "out", "report.html")
	code := run(context.Background(), []string{"bua", "run", fail, "--report", "junit=" + junit, "--report", "json=" + js, "--report", "html=" + html, "--artifacts", art}, env)
	if code != 1 {
		t.Fatalf("exit = %d\n%s\n%s", code, out, errb)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(x), `failures="1"`) || !strings.Contains(string(x), "title check") {
		t.Errorf("junit:\n%s", x)
	}
	var rep struct {
		ExitCode int `json:"exitCode"`
		Flows    []struct {
			Status   string `json:"status"`
			ExitCode int    `json:"exitCode"`
			Steps    []struct {
				Artifacts []string `json:"artifacts"`
			} `json:"steps"`
		} `json:"flows"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode != 1 || rep.Flows[0].Status != "failed" || rep.Flows[0].ExitCode != 1 || len(rep.Flows[0].Steps[1].Artifacts) != 7 {
		t.Errorf("json report = %s", b)
	}
	if !strings.Contains(string(x), "[[ATTACHMENT|"+rep.Flows[0].Steps[1].Artifacts[0]+"]]") {
		t.Errorf("junit does not attach the bundle:\n%s", x)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<details class="flow failed" open>`, `src="data:image/jpeg;base64,/9j/4AAQ"`, "title check"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("html report lacks %s", want)
		}
	}
}

// TestRunCommand_Interrupted: Ctrl-C (main's signal context, cancelled
// here) stops a busy flow at once and `bua run` exits 130, as every command
// does, after writing its reports: the flows so far, the interrupted one
// marked so, the rest skipped.
func TestRunCommand_Interrupted(t *testing.T) {
	fakeDial := dialFake(runnertest.New(), nil)
	dir := t.TempDir()
	first := writeFlow(t, dir, "a.yaml", "name: first\nsteps:\n  - log: done\n")
	busy := writeFlow(t, dir, "b.yaml", "name: busy\nvars: { i: 0 }\nsteps:\n  - repeat:\n      times: 1000000000\n      steps: [ { set: { i: \"vars.i + 1\" } } ]\n")
	last := writeFlow(t, dir, "c.yaml", "name: last\nsteps:\n  - log: never\n")
	junit, js, html := filepath.Join(dir, "out", "junit.xml"), filepath.Join(dir, "out", "r.json"), filepath.Join(dir, "out", "r.html")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	env, out, errb := testEnv()
	env.Dial = fakeDial
	start := time.Now()
	code := run(ctx, []string{"bua", "run", first, busy, last, "--report", "junit=" + junit, "--report", "json=" + js, "--report", "html=" + html}, env)
	took := time.Since(start)
	if code != exitInterrupted {
		t.Fatalf("exit = %d, want 130\n%s\n%s", code, out, errb)
	}
	if took > 3*time.Second {
		t.Errorf("exited %s after start, 300ms after which it was interrupted", took)
	}
	if !strings.Contains(out.String(), "1 passed, 1 failed, 1 skipped") || !strings.Contains(out.String(), ", interrupted (exit 130)") {
		t.Errorf("summary:\n%s", out)
	}
	if !strings.Contains(errb.String(), "bua: interrupted") {
		t.Errorf("stderr:\n%s", errb)
	}
	var rep struct {
		ExitCode    int  `json:"exitCode"`
		Interrupted bool `json:"interrupted"`
		Flows       []struct {
			Status string `json:"status"`
		} `json:"flows"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rep); err != nil || rep.ExitCode != 130 || !rep.Interrupted || len(rep.Flows) != 3 ||
		rep.Flows[0].Status != "passed" || rep.Flows[1].Status != "interrupted" || rep.Flows[2].Status != "skipped" {
		t.Errorf("json report: %v\n%.600s", err, b)
	}
	var suites struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Skipped  int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	x, _ := os.ReadFile(junit)
	if err := xml.Unmarshal(x, &suites); err != nil || suites.Suite.Tests != 3 || suites.Suite.Failures != 1 || suites.Suite.Skipped != 1 || !strings.Contains(string(x), `type="interrupted"`) {
		t.Errorf("junit report: %v\n%s", err, x)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), `<details class="flow interrupted" open>`) {
		t.Errorf("html report: %v", err)
	}
}

// TestRunCommand_ReportNotWritten: a --report that cannot be written is
// printed on stderr with its path and the OS's reason, the summary counts
// it, and the exit code the summary prints is the one bua exits with.
func TestRunCommand_ReportNotWritten(t *testing.T) {
	fakeDial := dialFake(runnertest.New(), nil)
	dir := t.TempDir()
	f := writeFlow(t, dir, "f.yaml", "name: f\nsteps:\n  - log: fine\n")
	notDir := writeFlow(t, dir, "plain", "a file, not a folder")
	good := filepath.Join(dir, "out", "r.json")
	for _, tc := range []struct {
		name, report, stderr, summary string
	}{
		// os.MkdirAll's error for a file in the way: ENOTDIR, which is
		// "not a directory" on Unix and ERROR_PATH_NOT_FOUND's text on
		// Windows.
		{"NoFolder", "junit=" + filepath.Join(notDir, "junit.xml"), "bua: could not write junit report " + filepath.Join(notDir, "junit.xml") + ": mkdir " + notDir + ": " + syscall.ENOTDIR.Error(), "1 file not written (exit 2)"},
		{"DiskFull", "junit=/dev/full", "bua: could not write junit report /dev/full: no space left on device", "1 file not written (exit 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "DiskFull" && runtime.GOOS == "windows" {
				t.Skip("Windows has no device that fails every write as full (/dev/full): the Unix runs check a report that fails mid-write")
			}
			env, out, errb := testEnv()
			env.Dial = fakeDial
			code := run(context.Background(), []string{"bua", "run", f, "--report", tc.report, "--report", "json=" + good}, env)
			if code != exitUsage {
				t.Fatalf("exit = %d, want 2\n%s\n%s", code, out, errb)
			}
			if strings.TrimSpace(errb.String()) != tc.stderr {
				t.Errorf("stderr = %q, want %q", errb, tc.stderr)
			}
			if !strings.Contains(out.String(), "1 passed, 0 failed, 0 skipped in") || !strings.Contains(out.String(), tc.summary) {
				t.Errorf("summary:\n%s", out)
			}
			b, err := os.ReadFile(good)
			var rep struct {
				Problems []string `json:"problems"`
			}
			if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.Problems) != 1 {
				t.Errorf("the other report: %v\n%s", err, b)
			}
		})
	}
}

func TestRunCommand_BridgeUnavailable(t *testing.T) {
	fakeDial := dialFake(nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "no daemon"))
	dir := t.TempDir()
	f := writeFlow(t, dir, "f.yaml", "name: f\nsteps:\n  - navigate: http://x.test/\n")
	env, out, errb := testEnv()
	env.Dial = fakeDial
	if code := run(context.Background(), []string{"bua", "run", f}, env); code != 4 {
		t.Fatalf("exit = %d, want 4\n%s\n%s", code, out, errb)
	}
	if !strings.Contains(errb.String(), "hint:") {
		t.Errorf("stderr lacks the hint:\n%s", errb)
	}
}

// TestRunCommand_HintsAsTheCLI: a flow's error gets the hint the same
// action's would get from the CLI (render.CommandHint, by code and reason), in its
// progress and in its reports, not the contract's generic one.
func TestRunCommand_HintsAsTheCLI(t *testing.T) {
	refused := &protocol.Error{Code: protocol.CodeInternalError, Message: "navigation failed: net::ERR_CONNECTION_REFUSED", Reason: "net::ERR_CONNECTION_REFUSED"}
	fakeDial := dialFake(runnertest.New().On(protocol.ActionNavigate, func(context.Context, protocol.Action) (any, *protocol.Error) {
		e := *refused
		return nil, &e
	}), nil)
	dir := t.TempDir()
	f := writeFlow(t, dir, "f.yaml", "name: f\nsteps:\n  - navigate: http://127.0.0.1:9/\n")
	js := filepath.Join(dir, "report.json")
	env, out, errb := testEnv()
	env.Dial = fakeDial
	if code := run(context.Background(), []string{"bua", "run", f, "--report", "json=" + js}, env); code != exitFailure {
		t.Fatalf("exit = %d, want %d\n%s\n%s", code, exitFailure, out, errb)
	}
	want := render.CommandHint(refused)
	if !strings.Contains(want, "the page could not be loaded") {
		t.Fatalf("render.CommandHint(refused) = %q: the test wants the CLI's net:: hint", want)
	}
	if !strings.Contains(out.String(), "hint: "+want) || strings.Contains(out.String(), "failed unexpectedly") {
		t.Errorf("progress does not give the CLI's hint %q:\n%s", want, out)
	}
	var rep struct {
		Flows []struct {
			Hint  string `json:"hint"`
			Steps []struct {
				Error struct {
					Hint string `json:"hint"`
				} `json:"error"`
			} `json:"steps"`
		} `json:"flows"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Flows) != 1 || rep.Flows[0].Hint != want || len(rep.Flows[0].Steps) != 1 || rep.Flows[0].Steps[0].Error.Hint != want {
		t.Errorf("json report's hints are not the CLI's %q:\n%s", want, b)
	}
}

// TestRunCommand_MissingFile: a flow file that does not exist is said once,
// with no invented line:col, and with a hint (the nearest flow file of that
// folder when the name is close); lint says the same.
func TestRunCommand_MissingFile(t *testing.T) {
	fakeDial := dialFake(nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "must not connect"))
	dir := t.TempDir()
	writeFlow(t, dir, "login.yaml", "name: l\nsteps:\n  - log: hi\n")
	// A diagnostic names files as a report does (report.ReportPath), and
	// gives the OS's reason.
	for _, tc := range []struct{ name, file, hint string }{
		{"Nope", filepath.Join(dir, "nope.yaml"), "hint: check the path"},
		{"Misspelt", filepath.Join(dir, "logn.yaml"), "hint: did you mean " + report.ReportPath(filepath.Join(dir, "login.yaml")) + "?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := report.ReportPath(tc.file) + ": cannot read flow: " + notFoundReason(t, tc.file)
			env, out, errb := testEnv()
			env.Dial = fakeDial
			if code := run(context.Background(), []string{"bua", "run", tc.file}, env); code != exitUsage {
				t.Fatalf("run: exit = %d, want %d\n%s\n%s", code, exitUsage, out, errb)
			}
			all := out.String() + errb.String()
			if n := strings.Count(all, "cannot read flow"); n != 1 || !strings.Contains(all, msg) || !strings.Contains(all, tc.hint) || strings.Contains(all, ":1:1") {
				t.Errorf("run says it %d times (want once, as %q with %q, no :1:1):\n%s", n, msg, tc.hint, all)
			}
			env, out, _ = testEnv()
			env.Dial = fakeDial
			if code := run(context.Background(), []string{"bua", "lint", tc.file}, env); code != exitUsage {
				t.Fatalf("lint: exit = %d, want %d", code, exitUsage)
			}
			if want := msg + "\n" + tc.hint; !strings.HasPrefix(out.String(), want) {
				t.Errorf("lint says\n%s\nwant it to start with\n%s", out, want)
			}
		})
	}
}

func TestRunCommand_DryRun(t *testing.T) {
	fakeDial := dialFake(nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "must not connect"))
	dir := t.TempDir()
	f := writeFlow(t, dir, "f.yaml", "name: f\nvars: { base: http://x.test }\nsteps:\n  - navigate: ${{ vars.base }}/a\n  - extract: {}\n    as: page\n  - click: { uid: \"${{ uid(page, 'button', 'Go') }}\" }\n")
	env, out, _ := testEnv()
	env.Dial = fakeDial
	if code := run(context.Background(), []string{"bua", "run", "--dry-run", f}, env); code != 0 {
		t.Fatalf("exit = %d\n%s", code, out)
	}
	for _, want := range []string{"navigate url=http://x.test/a", "click uid=${{ uid(page, 'button', 'Go') }}"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}

func TestLintCommand(t *testing.T) {
	dir := t.TempDir()
	good := writeFlow(t, dir, "good.yaml", "name: g\nsteps:\n  - log: hi\n")
	bad := writeFlow(t, dir, "bad.yaml", "name: b\nsteps:\n  - navigate: { href: x }\n  - sleep: soon\n")
	env, out, _ := testEnv()
	if code := run(context.Background(), []string{"bua", "lint", good, bad}, env); code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	// The ok line is bua lint's own, with the path as given; a diagnostic
	// names its file as a report does (report.ReportPath).
	want := "ok " + good + "\n" +
		report.ReportPath(bad) + `:3:17: navigate has no param "href" (expected url, waitUntil, dialogs, tabId)` + "\n" +
		report.ReportPath(bad) + `:4:12: sleep: bad duration "soon" (expected a positive Go duration such as 500ms, 30s or 2m)` + "\n"
	if out.String() != want {
		t.Errorf("lint output\n--- got\n%s--- want\n%s", out, want)
	}
	env, out, _ = testEnv()
	if code := run(context.Background(), []string{"bua", "lint", "--json", bad}, env); code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	var res []lintResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].OK || len(res[0].Diagnostics) != 2 || res[0].Diagnostics[0].Line != 3 || res[0].Diagnostics[0].Col != 17 {
		t.Errorf("lint --json = %s", out)
	}
	env, _, _ = testEnv()
	if code := run(context.Background(), []string{"bua", "lint", good}, env); code != 0 {
		t.Errorf("valid flow: exit %d", code)
	}
}

// TestLintCommand_Warnings: a repeat of over 10,000 passes is a warning:
// printed, marked in --json, and the flow stays valid (exit 0).
func TestLintCommand_Warnings(t *testing.T) {
	dir := t.TempDir()
	long := writeFlow(t, dir, "long.yaml", "name: l\nsteps:\n  - repeat: { times: 20000, steps: [ { log: x } ] }\n  - repeat: { until: \"false\", max: 10000, steps: [ { log: y } ] }\n")
	env, out, _ := testEnv()
	if code := run(context.Background(), []string{"bua", "lint", long}, env); code != 0 {
		t.Fatalf("exit = %d, want 0 (a warning leaves the flow valid)\n%s", code, out)
	}
	want := report.ReportPath(long) + ":3:22: warning: repeat.times: 20000 is over 10000 passes; check it is meant (a loop this long may run until the flow's timeout)\n" +
		"ok " + long + "\n"
	if out.String() != want {
		t.Errorf("lint output\n--- got\n%s--- want\n%s", out, want)
	}
	env, out, _ = testEnv()
	if code := run(context.Background(), []string{"bua", "lint", "--json", long}, env); code != 0 {
		t.Fatalf("--json: exit = %d", code)
	}
	var res []lintResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != 1 || !res[0].OK || len(res[0].Diagnostics) != 1 || !res[0].Diagnostics[0].Warning {
		t.Errorf("lint --json = %v %s", err, out)
	}
}

// TestRunSummary pins `bua run`'s summary in both forms of the output
// layer: tab-separated rows when piped, a fitted table on a terminal.
func TestRunSummary(t *testing.T) {
	dir := t.TempDir()
	pass := writeFlow(t, dir, "a.yaml", "name: passes\nsteps:\n  - navigate: http://x.test/\n")
	fail := writeFlow(t, dir, "b.yaml", "name: fails\nsteps:\n  - navigate: http://x.test/\n  - click: \"#missing\"\n")
	fakeDial := dialFake(runnertest.New().On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "nothing on the page matches the selector #missing, which a long note shows in full when piped")), nil)
	for _, mode := range []struct {
		golden string
		width  int
	}{{"run_summary.txt", 0}, {"run_summary_tty80.txt", 80}} {
		r := runCLIDial(t, nil, nil, mode.width, fakeDial, "", "run", "--quiet", pass, fail)
		if r.code != exitFailure {
			t.Fatalf("exit %d, want %d\n%s", r.code, exitFailure, r.stderr)
		}
		golden(t, mode.golden, strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), ""))
		// --quiet drops progress, so the whole reason goes to stderr.
		if want := "which a long note shows in full when piped"; !strings.Contains(r.stderr, "failed fails: ") || !strings.Contains(r.stderr, want) {
			t.Errorf("--quiet stderr lacks the full failure reason:\n%s", r.stderr)
		}
	}
	// A passing flow is one summary line (its steps were on the progress
	// lines); a failing one lists its steps.
	if r := runCLIDial(t, nil, nil, 0, fakeDial, "", "run", "--quiet", pass, fail); !strings.Contains(r.stdout, "passes\tpassed\t0ms\t\nfails\tfailed") ||
		!strings.Contains(r.stdout, "\n 2 click\tfailed") {
		t.Errorf("summary lists a passing flow's steps, or not a failing one's:\n%s", r.stdout)
	}
	// NO_COLOR keeps the terminal's summary line plain; piped it never
	// has colour (run_summary.txt above).
	r := runCLIDial(t, nil, map[string]string{"NO_COLOR": "1"}, 80, fakeDial, "", "run", "--quiet", pass, fail)
	if strings.Contains(r.stdout, "\x1b[") || !strings.Contains(r.stdout, "1 passed, 1 failed, 0 skipped in 0ms (exit 1)\n") {
		t.Errorf("NO_COLOR summary has colour or lacks its last line:\n%q", r.stdout)
	}
}

// TestRunProgressColour: on a terminal the progress lines' marks are
// coloured, ok green and FAIL red, for steps and flows, and a passing
// run's last line is green; NO_COLOR and a pipe keep them plain.
func TestRunProgressColour(t *testing.T) {
	dir := t.TempDir()
	pass := writeFlow(t, dir, "a.yaml", "name: passes\nsteps:\n  - navigate: http://x.test/\n")
	fail := writeFlow(t, dir, "b.yaml", "name: fails\nsteps:\n  - navigate: http://x.test/\n  - click: \"#missing\"\n")
	fakeDial := dialFake(runnertest.New().On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "no #missing")), nil)
	const green, red = "\x1b[32m", "\x1b[31m"
	r := runCLIDial(t, nil, nil, 80, fakeDial, "", "run", pass, fail)
	for _, want := range []string{green + "ok\x1b[0m 1 navigate", red + "FAIL\x1b[0m 2 click", green + "ok\x1b[0m passes passed", red + "FAIL\x1b[0m fails failed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("terminal progress lacks %q:\n%q", want, r.stdout)
		}
	}
	if ok := runCLIDial(t, nil, nil, 80, fakeDial, "", "run", pass); !strings.Contains(ok.stdout, green+"1 passed, 0 failed, 0 skipped") {
		t.Errorf("a passing run's last line is not green:\n%q", ok.stdout)
	}
	for name, r := range map[string]result{
		"NO_COLOR": runCLIDial(t, nil, map[string]string{"NO_COLOR": "1"}, 80, fakeDial, "", "run", pass, fail),
		"piped":    runCLIDial(t, nil, nil, 0, fakeDial, "", "run", pass, fail),
	} {
		if strings.Contains(r.stdout, green) || strings.Contains(r.stdout, red) || !strings.Contains(r.stdout, "FAIL 2 click") {
			t.Errorf("%s: progress has colour, or lacks its FAIL line:\n%q", name, r.stdout)
		}
	}
}
