package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// writeFlows writes name->content into a temp dir and returns the dir.
func writeFlows(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runFlow loads src as main.yaml (plus extra files) and runs it on fake.
func runFlow(t *testing.T, fake *runnertest.Fake, src string, extra ...string) (*report.FlowReport, *Runner) {
	t.Helper()
	files := map[string]string{"main.yaml": src}
	for i := 0; i+1 < len(extra); i += 2 {
		files[extra[i]] = extra[i+1]
	}
	dir := writeFlows(t, files)
	f, err := flow.Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	r := &Runner{Requester: fake, Getenv: func(k string) string { return map[string]string{"BUA_USER": "alice", "BUA_PASS": "hunter2"}[k] }}
	return r.RunFlow(context.Background(), f), r
}

func wantStatus(t *testing.T, rec *report.FlowReport, status report.Status) {
	t.Helper()
	if rec.Status != status {
		t.Fatalf("flow status = %s, want %s; error: %s", rec.Status, status, rec.Error)
	}
}

func loginPage() protocol.ExtractResult {
	return runnertest.Page("textbox", "Email", "textbox", "Password", "button", "Sign in")
}

const signIn = `
name: Sign-in smoke test
vars:
  base: http://127.0.0.1:8080
  user: ${{ env.BUA_USER ?? "demo" }}
timeout: 2m
defaults: { timeout: 30s }
steps:
  - navigate: ${{ vars.base }}/login
  - extract: {}
    as: page
  - if: page.obstacle != nil && page.obstacle.confidence == "high"
    fail: "blocked by ${{ page.obstacle.type }}"
  - type: { uid: "${{ uid(page, 'textbox', 'Email') }}", text: "${{ vars.user }}" }
  - click: { uid: "${{ uid(page, 'button', '(?i)sign in') }}" }
    retry: { attempts: 3, delay: 1ms, on: [timeout, element_stale] }
  - wait_for: { selector: "#dashboard", timeoutMs: 10000 }
  - evaluate: "return document.title"
    as: title
  - assert: title.value contains "Dashboard"
    message: lands on the dashboard
  - if: page.obstacle?.type == "auth_wall"
    then:
      - log: "would sign in"
    else:
      - log: "already signed in"
`

func TestRun_IssueExample(t *testing.T) {
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(loginPage())).
		On(protocol.ActionEvaluate, runnertest.Result(protocol.EvaluateResult{Type: "string", Value: "Dashboard - App"}))
	rec, _ := runFlow(t, fake, signIn)
	wantStatus(t, rec, report.StatusPassed)
	reqs := fake.Requests()
	if got, want := strings.Join(fake.Types(), ","), "navigate,extract,type,click,wait_for,evaluate"; got != want {
		t.Fatalf("requests = %s, want %s", got, want)
	}
	if got, want := reqs[0].URL, "http://127.0.0.1:8080/login"; got != want {
		t.Errorf("navigate url = %q, want %q", got, want)
	}
	if got, want := reqs[2].UID+"="+*reqs[2].Text, "e0=alice"; got != want {
		t.Errorf("type = %q, want %q (uid from extract, text from env)", got, want)
	}
	if got, want := reqs[3].UID, "e2"; got != want {
		t.Errorf("click uid = %q, want %q", got, want)
	}
	last := rec.Steps[len(rec.Steps)-1]
	if got, want := last.Path+" "+last.Note, "9.else.1 already signed in"; got != want {
		t.Errorf("last step = %q, want %q", got, want)
	}
}

func TestRun_ExpressionsKeepType(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionOpenTab, runnertest.Result(protocol.OpenTabResult{TabID: 7}))
	rec, _ := runFlow(t, fake, `
name: typed
vars: { n: 2, flag: true }
steps:
  - set: { total: "vars.n * 3", label: "n=${{ vars.n }}", on: "${{ vars.flag }}" }
  - assert: vars.total == 6 && vars.label == "n=2" && vars.on == true
  - open_tab: http://example.com
    as: tab
  - scroll: { direction: down, amount: "${{ vars.total * 100 }}", tabId: "${{ tab.tabId }}" }
  - assert: flow.name == "typed" && last.ok == true
`)
	wantStatus(t, rec, report.StatusPassed)
	sc := fake.Requests()[1]
	if sc.Amount == nil || *sc.Amount != 600 || sc.TabID == nil || *sc.TabID != 7 {
		t.Errorf("scroll = %+v, want amount 600 on tab 7", sc)
	}
}

func TestRun_ErrorContract(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      protocol.ErrorCode
		retry     string
		status    report.Status
		wantSends int
	}{
		{"DomainBlockedIsTerminal", protocol.CodeDomainBlocked, "retry: { attempts: 3, on: [timeout] }", report.StatusBlocked, 1},
		{"InvalidActionFailsAtOnce", protocol.CodeInvalidAction, "retry: { attempts: 3, on: [timeout] }", report.StatusFailed, 1},
		{"SessionNotFoundFailsAtOnce", protocol.CodeSessionNotFound, "retry: { attempts: 3 }", report.StatusFailed, 1},
		{"TimeoutNotRetriedByDefault", protocol.CodeTimeout, "name: plain", report.StatusFailed, 1},
		{"TimeoutRetriedWhenListed", protocol.CodeTimeout, "retry: { attempts: 3, delay: 1ms, backoff: 2, on: [timeout] }", report.StatusFailed, 3},
		{"InternalErrorRetriedWhenListed", protocol.CodeInternalError, "retry: { attempts: 2, on: [internal_error] }", report.StatusFailed, 2},
		{"StaleWithoutExtractNeverResent", protocol.CodeElementStale, "retry: { attempts: 3, on: [element_stale] }", report.StatusFailed, 1},
		{"BridgeUnavailable", protocol.CodeBridgeUnavailable, "name: plain", report.StatusUnavailable, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionClick, runnertest.Fail(tc.code, "scripted"))
			rec, _ := runFlow(t, fake, "name: c\nsteps:\n  - click: \"#go\"\n    "+tc.retry+"\n")
			wantStatus(t, rec, tc.status)
			if got := len(fake.Requests()); got != tc.wantSends {
				t.Errorf("sent %d requests, want %d", got, tc.wantSends)
			}
			if info := rec.Steps[0].Error; info == nil || info.Code != tc.code || info.Hint != lookupNext(tc.code) {
				t.Errorf("step error = %+v, want code %s with the contract's hint", info, tc.code)
			}
		})
	}
}

// TestRun_EveryCodeFollowsItsContractRow: a step that fails with each code
// is handled as the code's row of the error contract says (protocol.Lookup,
// the schema's x-contract), so a row that changes in the schema changes
// the retry loop with it: a RetryNever code is sent once, even with retry;
// a RetryReExtract code re-runs the extract its target came from; any
// other code is sent again as retry.on allows.
func TestRun_EveryCodeFollowsItsContractRow(t *testing.T) {
	for _, code := range append(slices.Clone(protocol.Codes), protocol.CodeBridgeUnavailable) {
		t.Run(string(code), func(t *testing.T) {
			info, ok := protocol.Lookup(code)
			if !ok {
				t.Fatalf("%s has no contract row", code)
			}
			on := code // retry.on may not name a RetryNever code
			if info.Retry == protocol.RetryNever {
				on = protocol.CodeTimeout
			}
			fake := runnertest.New().
				On(protocol.ActionExtract, runnertest.Result(loginPage())).
				On(protocol.ActionClick, runnertest.Fail(code, "scripted"))
			rec, _ := runFlow(t, fake, `
name: contract
steps:
  - extract: { tabId: 5 }
    as: page
  - click: { uid: "${{ uid(page, 'button', 'Sign in') }}" }
    retry: { attempts: 3, delay: 1ms, on: [`+string(on)+`] }
`)
			wantClicks, wantExtracts := 1, 1
			switch info.Retry {
			case protocol.RetryReExtract:
				wantClicks, wantExtracts = 3, 3 // two recoveries: max(1, attempts-1)
			case protocol.RetryIfTransient:
				wantClicks = 3
			}
			var clicks, extracts int
			for _, a := range fake.Requests() {
				switch a.Type {
				case protocol.ActionClick:
					clicks++
				case protocol.ActionExtract:
					extracts++
				}
			}
			if clicks != wantClicks || extracts != wantExtracts {
				t.Errorf("%s (retry %s): %d clicks and %d extracts, want %d and %d", code, info.Retry, clicks, extracts, wantClicks, wantExtracts)
			}
			if rec.Status == report.StatusPassed {
				t.Errorf("status passed, want the step to fail with %s", code)
			}
		})
	}
}

func TestRun_ReExtractRecovery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		click runnertest.Handler
		retry string
		pages []protocol.ExtractResult
		want  string // click uids sent, in order
		ok    bool
	}{
		{
			name:  "StaleAfterNavigation",
			click: runnertest.Sequence(runnertest.Fail(protocol.CodeElementStale, "uid e2 is stale"), runnertest.Result(map[string]any{"ok": true})),
			pages: []protocol.ExtractResult{loginPage(), runnertest.Page("link", "Home", "textbox", "Email", "textbox", "Password", "button", "Sign in")},
			want:  "e2,e3", ok: true,
		},
		{
			name:  "NotFoundRecoversOnce",
			click: runnertest.Fail(protocol.CodeElementNotFound, "no node"),
			pages: []protocol.ExtractResult{loginPage()},
			want:  "e2,e2", ok: false,
		},
		{
			name:  "RetryAllowsMoreRecoveries",
			click: runnertest.Fail(protocol.CodeElementStale, "stale"),
			retry: "retry: { attempts: 4, on: [element_stale] }",
			pages: []protocol.ExtractResult{loginPage()},
			want:  "e2,e2,e2,e2", ok: false,
		},
		{
			name:  "UIDMissTriggersRecovery",
			click: runnertest.Result(map[string]any{"ok": true}),
			pages: []protocol.ExtractResult{runnertest.Page("textbox", "Email"), loginPage()},
			want:  "e2", ok: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pages []runnertest.Handler
			for _, p := range tc.pages {
				pages = append(pages, runnertest.Result(p))
			}
			fake := runnertest.New().On(protocol.ActionExtract, runnertest.Sequence(pages...)).On(protocol.ActionClick, tc.click)
			rec, _ := runFlow(t, fake, `
name: recovery
steps:
  - extract: { selector: "main", tabId: 5 }
    as: page
  - click: { uid: "${{ uid(page, 'button', '(?i)sign in') }}" }
    `+tc.retry+"\n")
			var uids []string
			for _, a := range fake.Requests() {
				if a.Type == protocol.ActionClick {
					uids = append(uids, a.UID)
				}
				if a.Type == protocol.ActionExtract && (a.Selector != "main" || a.TabID == nil || *a.TabID != 5) {
					t.Errorf("re-extract = %+v, want the original selector and tab", a)
				}
			}
			if got := strings.Join(uids, ","); got != tc.want {
				t.Errorf("clicks = %s, want %s", got, tc.want)
			}
			if (rec.Status == report.StatusPassed) != tc.ok {
				t.Errorf("status = %s (%s), want passed=%v", rec.Status, rec.Error, tc.ok)
			}
			if !strings.Contains(rec.Steps[1].Note, "re-extracted page") {
				t.Errorf("note = %q, want the recovery named", rec.Steps[1].Note)
			}
		})
	}
}

func TestRun_UIDMissMessage(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(runnertest.Page("textbox", "Email")))
	rec, _ := runFlow(t, fake, `
name: miss
steps:
  - extract: {}
    as: page
  - click: { uid: "${{ uid(page, 'button', 'Sign in') }}" }
`)
	wantStatus(t, rec, report.StatusFailed)
	e := rec.Steps[1].Error
	if e == nil || e.Code != protocol.CodeElementNotFound || !strings.Contains(e.Message, "button") || !strings.Contains(e.Message, "Sign in") {
		t.Errorf("error = %+v, want element_not_found naming the role and name", e)
	}
	if got := strings.Join(fake.Types(), ","); got != "extract,extract" {
		t.Errorf("requests = %s, want one re-extract and no click", got)
	}
}

func TestRun_ObstaclePolicy(t *testing.T) {
	verdict := func(conf string) protocol.ExtractResult {
		p := loginPage()
		p.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.Confidence(conf), Message: "sign-in form"}
		return p
	}
	for _, tc := range []struct {
		name, flowPolicy, stepPolicy, conf string
		status                             report.Status
		advisory                           bool
	}{
		{"HighStopsByDefault", "", "", "high", report.StatusBlocked, false},
		{"LowContinuesAsAdvisory", "", "", "low", report.StatusPassed, true},
		{"FlowLowStop", "obstacles: { low: stop }", "", "low", report.StatusBlocked, false},
		{"StepOverridesHigh", "", "obstacles: { high: continue }", "high", report.StatusPassed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(verdict(tc.conf)))
			rec, _ := runFlow(t, fake, "name: o\n"+tc.flowPolicy+"\nsteps:\n  - extract: {}\n    as: page\n    "+tc.stepPolicy+"\n  - log: after\non_failure:\n  - log: hook ran\n")
			wantStatus(t, rec, tc.status)
			if tc.status == report.StatusBlocked {
				if rec.Obstacle == nil || rec.Obstacle.Type != "auth_wall" || !strings.Contains(rec.Error, "auth_wall") {
					t.Errorf("report does not name the verdict: %+v %q", rec.Obstacle, rec.Error)
				}
				if got := rec.Steps[len(rec.Steps)-1].Note; got != "hook ran" {
					t.Errorf("on_failure did not run (last note %q)", got)
				}
			}
			if got := len(rec.Advisories) > 0; got != tc.advisory {
				t.Errorf("advisories = %v, want present=%v", rec.Advisories, tc.advisory)
			}
		})
	}
}

func TestRun_CurrentTab(t *testing.T) {
	fake := runnertest.New().
		On(protocol.ActionOpenTab, runnertest.Result(protocol.OpenTabResult{TabID: 42})).
		On(protocol.ActionExtract, runnertest.Result(loginPage()))
	rec, _ := runFlow(t, fake, `
name: tabs
steps:
  - navigate: http://example.com/
  - open_tab: http://example.com/a
  - click: "#a"
  - click: { selector: "#b", tabId: 9 }
  - run: sub.yaml
  - close_tab: 42
  - click: "#c"
`, "sub.yaml", `
name: sub
steps:
  - extract: {}
    as: inner
`)
	wantStatus(t, rec, report.StatusPassed)
	var got []string
	for _, a := range fake.Requests() {
		tab := "-"
		if a.TabID != nil {
			tab = string(rune('0'+*a.TabID/10)) + string(rune('0'+*a.TabID%10))
		}
		got = append(got, string(a.Type)+"@"+tab)
	}
	want := "navigate@-,open_tab@-,click@42,click@09,extract@42,close_tab@42,click@-"
	if strings.Join(got, ",") != want {
		t.Errorf("requests = %s\nwant       %s", strings.Join(got, ","), want)
	}
}

func TestRun_SubFlow(t *testing.T) {
	fake := runnertest.New()
	rec, _ := runFlow(t, fake, `
name: caller
vars: { who: bob }
steps:
  - run: common/greet.yaml
    with: { name: "${{ vars.who }}" }
    as: greeted
  - assert: greeted.ok == true
  - assert: vars.who == "bob" && vars.greeting == nil
`, "common/greet.yaml", `
name: greet
vars: { name: nobody, punct: "!" }
steps:
  - set: { greeting: "'hi ' + vars.name + vars.punct" }
  - assert: vars.greeting == "hi bob!"
  - navigate: http://example.com/${{ vars.name }}
`)
	wantStatus(t, rec, report.StatusPassed)
	if got := fake.Requests()[0].URL; got != "http://example.com/bob" {
		t.Errorf("sub-flow navigate = %q, want with overriding the default", got)
	}
	if got := rec.Steps[1].Path; got != "1.run.1" {
		t.Errorf("sub-flow step path = %q, want 1.run.1", got)
	}
}

func TestRun_ControlSteps(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionEvaluate, runnertest.Sequence(
		runnertest.Result(protocol.EvaluateResult{Type: "number", Value: 1}),
		runnertest.Result(protocol.EvaluateResult{Type: "number", Value: 2}),
		runnertest.Result(protocol.EvaluateResult{Type: "number", Value: 3}),
	))
	rec, _ := runFlow(t, fake, `
name: control
vars: { i: 0 }
steps:
  - repeat:
      times: 3
      steps:
        - set: { i: "vars.i + 1" }
  - assert: vars.i == 3
  - repeat:
      while: vars.i < 5
      steps: [ { set: { i: "vars.i + 1" } } ]
  - assert: vars.i == 5
  - repeat:
      until: n.value >= 3
      max: 10
      steps:
        - evaluate: "return n"
          as: n
  - assert: n.value == 3
  - log: skipped
    if: vars.i > 100
  - sleep: 1ms
  - fail: "never ${{ vars.i }}"
    if: "false"
  - click: "#x"
    continue_on_error: true
    if: vars.i == 5
`)
	_ = rec
	wantStatus(t, rec, report.StatusPassed)
	var skipped int
	for _, st := range rec.Steps {
		if st.Status == report.StatusSkipped {
			skipped++
		}
	}
	if skipped != 2 {
		t.Errorf("skipped = %d, want 2", skipped)
	}
}

func TestRun_RepeatMax(t *testing.T) {
	rec, _ := runFlow(t, runnertest.New(), "name: r\nsteps:\n  - repeat: { while: \"true\", max: 3, steps: [ { log: x } ] }\n")
	wantStatus(t, rec, report.StatusFailed)
	if !strings.Contains(rec.Error, "max passes (3)") {
		t.Errorf("error = %q", rec.Error)
	}
}

func TestRun_ContinueOnError(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "no maybe"))
	rec, _ := runFlow(t, fake, `
name: coe
steps:
  - click: "#maybe"
    continue_on_error: true
  - assert: error.code == "element_not_found" && error.message == "no maybe"
`)
	wantStatus(t, rec, report.StatusPassed)
	blocked := runnertest.New().On(protocol.ActionClick, runnertest.Fail(protocol.CodeDomainBlocked, "bank.example"))
	rec, _ = runFlow(t, blocked, "name: b\nsteps:\n  - click: \"#x\"\n    continue_on_error: true\n  - log: never\n")
	wantStatus(t, rec, report.StatusBlocked)
}

func TestRun_AssertAndFail(t *testing.T) {
	rec, _ := runFlow(t, runnertest.New(), "name: a\nvars: { x: 1 }\nsteps:\n  - assert: vars.x == 2\n    message: x is ${{ vars.x }}\n")
	wantStatus(t, rec, report.StatusFailed)
	if !strings.Contains(rec.Error, "x is 1") || rec.FailedStep != "assert" || rec.FailedLine != 4 {
		t.Errorf("error = %q step %q line %d", rec.Error, rec.FailedStep, rec.FailedLine)
	}
	var se *report.StepError
	_ = se
	rec, _ = runFlow(t, runnertest.New(), "name: f\nsteps:\n  - name: give up\n    fail: stop here\n")
	wantStatus(t, rec, report.StatusFailed)
	if rec.FailedStep != "give up" || !strings.Contains(rec.Error, "stop here") {
		t.Errorf("fail step = %q %q", rec.FailedStep, rec.Error)
	}
}

func TestRun_Timeouts(t *testing.T) {
	t.Run("StepTimeout", func(t *testing.T) {
		fake := runnertest.New().On(protocol.ActionClick, runnertest.Hang())
		start := time.Now()
		rec, _ := runFlow(t, fake, "name: t\nsteps:\n  - click: \"#slow\"\n    timeout: 20ms\n")
		wantStatus(t, rec, report.StatusFailed)
		if e := rec.Steps[0].Error; e == nil || e.Code != protocol.CodeTimeout {
			t.Errorf("error = %+v, want timeout", e)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("took %s", time.Since(start))
		}
	})
	t.Run("FlowTimeout", func(t *testing.T) {
		rec, _ := runFlow(t, runnertest.New(), "name: t\ntimeout: 20ms\nsteps:\n  - sleep: 5s\nfinally:\n  - log: cleanup\n")
		wantStatus(t, rec, report.StatusFailed)
		if got := rec.Steps[len(rec.Steps)-1].Note; got != "cleanup" {
			t.Errorf("finally did not run after the flow timeout")
		}
	})
}

func TestRun_Hooks(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "original"))
	rec, _ := runFlow(t, fake, `
name: hooks
steps:
  - click: "#go"
on_failure:
  - fail: hook broke
finally:
  - log: done
`)
	wantStatus(t, rec, report.StatusFailed)
	if !strings.Contains(rec.Error, "original") || len(rec.HookErrors) != 1 || !strings.Contains(rec.HookErrors[0], "hook broke") {
		t.Errorf("error = %q hooks = %v: the hook must not hide the original failure", rec.Error, rec.HookErrors)
	}
	rec, _ = runFlow(t, runnertest.New(), "name: ok\nsteps:\n  - log: fine\non_failure:\n  - log: never\nfinally:\n  - fail: cleanup failed\n")
	wantStatus(t, rec, report.StatusFailed)
	for _, st := range rec.Steps {
		if st.Path == "on_failure.1" {
			t.Errorf("on_failure ran on a passing flow")
		}
	}
}

func TestRun_Secrets(t *testing.T) {
	fake := runnertest.New()
	var progress bytes.Buffer
	files := map[string]string{"main.yaml": `
name: secrets
vars: { password: s3cret-pw }
secrets: [password]
steps:
  - type: { selector: "#pw", text: "${{ vars.password }}" }
  - type: { selector: "#pw2", text: "${{ env.BUA_PASS }}" }
  - log: "using ${{ vars.password }} and ${{ env.BUA_PASS }}"
  - fail: "bad ${{ vars.password }}"
`}
	dir := writeFlows(t, files)
	r := &Runner{Requester: fake, Events: printer(&progress), Getenv: func(k string) string { return map[string]string{"BUA_PASS": "hunter2"}[k] }}
	suite := r.RunSuite(context.Background(), []string{filepath.Join(dir, "main.yaml")})
	var js, junit, sum bytes.Buffer
	if err := suite.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := suite.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for _, row := range suite.SummaryRows() {
		sum.WriteString(strings.Join(row, "\t") + "\n")
	}
	for name, out := range map[string]string{"json": js.String(), "junit": junit.String(), "progress": progress.String(), "summary": sum.String()} {
		if strings.Contains(out, "s3cret-pw") || strings.Contains(out, "hunter2") {
			t.Errorf("%s leaks a secret:\n%s", name, out)
		}
	}
	if !strings.Contains(js.String(), `"text": "***"`) {
		t.Errorf("json report does not show the masked text:\n%s", js.String())
	}
	if got := *fake.Requests()[0].Text; got != "s3cret-pw" {
		t.Errorf("the browser must still get the real value, got %q", got)
	}
}

func TestRun_Serve(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"site/index.html": "<title>x</title>",
		"flows/main.yaml": "name: s\nserve: ../site\nsteps:\n  - navigate: ${{ vars.base_url }}/index.html\n",
	})
	fake := runnertest.New()
	f, err := flow.Load(filepath.Join(dir, "flows", "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rec := (&Runner{Requester: fake}).RunFlow(context.Background(), f)
	wantStatus(t, rec, report.StatusPassed)
	if got := fake.Requests()[0].URL; !strings.HasPrefix(got, "http://127.0.0.1:") || !strings.HasSuffix(got, "/index.html") {
		t.Errorf("navigate = %q, want the served loopback URL", got)
	}
}

func TestSuite_StatusAndShard(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []report.Status
		want     report.Status
	}{
		{"AllPassed", []report.Status{report.StatusPassed, report.StatusSkipped}, report.StatusPassed},
		{"FailureWins", []report.Status{report.StatusPassed, report.StatusFailed}, report.StatusFailed},
		{"BlockedOverFailure", []report.Status{report.StatusFailed, report.StatusBlocked}, report.StatusBlocked},
		{"UnavailableOverBlocked", []report.Status{report.StatusBlocked, report.StatusUnavailable, report.StatusFailed}, report.StatusUnavailable},
		{"InvalidOverAll", []report.Status{report.StatusUnavailable, report.StatusInvalid, report.StatusBlocked, report.StatusFailed}, report.StatusInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &report.SuiteReport{}
			for _, st := range tc.statuses {
				s.Flows = append(s.Flows, &report.FlowReport{Status: st})
			}
			if got := s.Status(); got != tc.want {
				t.Errorf("report.Status = %s, want %s", got, tc.want)
			}
		})
	}
	files := []string{"d.yaml", "a.yaml", "c.yaml", "b.yaml", "e.yaml"}
	if got, want := strings.Join(report.Shard(files, 1, 2), ","), "a.yaml,c.yaml,e.yaml"; got != want {
		t.Errorf("shard 1/2 = %s, want %s", got, want)
	}
	if got, want := strings.Join(report.Shard(files, 2, 2), ","), "b.yaml,d.yaml"; got != want {
		t.Errorf("shard 2/2 = %s, want %s", got, want)
	}
}

func TestSuite_FailFastAndInvalid(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"a.yaml": "name: a\nsteps:\n  - fail: no\n",
		"b.yaml": "name: b\nsteps:\n  - log: yes\n",
		"c.yaml": "name: c\nsteps:\n  - bogus: 1\n",
	})
	files := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml")}
	s := (&Runner{Requester: runnertest.New()}).RunSuite(context.Background(), files)
	if got := s.Status(); got != report.StatusInvalid {
		t.Errorf("suite status = %s, want invalid (invalid wins)", got)
	}
	if s.Flows[2].Status != report.StatusInvalid || len(s.Flows[2].Diagnostics) != 1 {
		t.Errorf("invalid flow = %+v", s.Flows[2])
	}
	s = (&Runner{Requester: runnertest.New(), FailFast: true}).RunSuite(context.Background(), files)
	if s.Flows[1].Status != report.StatusSkipped || s.Status() != report.StatusFailed {
		t.Errorf("fail-fast: b = %s, suite %s", s.Flows[1].Status, s.Status())
	}
}

func TestReport_JUnitJSONArtifacts(t *testing.T) {
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2, 3}
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(loginPage())).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64," + b64(jpeg)})).
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "gone"))
	dir := writeFlows(t, map[string]string{"shot.yaml": `
name: Expected failure
steps:
  - extract: {}
    as: page
  - screenshot: {}
  - click: "#missing"
`})
	art := filepath.Join(dir, "artifacts")
	r := &Runner{Requester: fake, Artifacts: art}
	s := r.RunSuite(context.Background(), []string{filepath.Join(dir, "shot.yaml")})
	var junit, js bytes.Buffer
	if err := s.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuite name="bua" tests="1" failures="1"`, `<testcase name="Expected failure"`, `message="step &#34;click&#34; (line 7) failed: element_not_found: gone"`, `time="0.`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("junit lacks %s:\n%s", want, junit.String())
		}
	}
	var parsed struct {
		Flows []struct {
			Steps []report.StepReport `json:"steps"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	steps := parsed.Flows[0].Steps
	if got := steps[1].Result.(map[string]any)["dataUrl"]; got != "<jpeg 7 bytes>" {
		t.Errorf("screenshot result = %v, want elided to its size", got)
	}
	if got := steps[2].Artifacts; len(got) != 7 || filepath.Base(got[0]) != report.BundleScreenshot || filepath.Base(got[1]) != report.BundleMarkdown {
		t.Fatalf("artifacts = %v, want the bundle: screenshot, markdown, elements, obstacle, trace, steps, values", got)
	}
	img, err := os.ReadFile(steps[2].Artifacts[0])
	if err != nil || !bytes.Equal(img, jpeg) {
		t.Errorf("screenshot artifact = %v %v", img, err)
	}
	if md, _ := os.ReadFile(steps[2].Artifacts[1]); string(md) != "# page" {
		t.Errorf("markdown artifact = %q", md)
	}
}

func TestStepError_Unwrap(t *testing.T) {
	be := protocol.Errorf(protocol.CodeDomainBlocked, "x")
	err := error(&report.StepError{Flow: "f", Step: "s", Line: 3, Err: be})
	if !errors.Is(err, &protocol.Error{Code: protocol.CodeDomainBlocked}) {
		t.Error("errors.Is through report.StepError failed")
	}
	if got := classify(err); got != report.StatusBlocked {
		t.Errorf("classify = %s, want blocked", got)
	}
}

// TestRun_EveryAction: every schema action is a flow step without a runner
// edit. Each action's mapping example (from protocol.ActionSpecs) loads,
// runs, and reaches the Requester as a valid action of that type.
func TestRun_EveryAction(t *testing.T) {
	for _, typ := range protocol.Actions {
		if protocol.ActionSpecs[typ].NoFlowStep {
			continue // sent by a policy, never a step (TestLoad_NoFlowStep)
		}
		t.Run(string(typ), func(t *testing.T) {
			fake := runnertest.New().
				On(protocol.ActionExtract, runnertest.Result(loginPage())).
				On(protocol.ActionGetTabs, runnertest.Result([]protocol.TabInfo{})).
				On(protocol.ActionOpenTab, runnertest.Result(protocol.OpenTabResult{TabID: 3})).
				On(protocol.ActionEvaluate, runnertest.Result(protocol.EvaluateResult{Type: "number", Value: 1})).
				On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,"}))
			src := fmt.Sprintf("name: every\nsteps:\n  - %s: %s\n", typ, flow.MappingExample(protocol.ActionSpecs[typ]))
			rec, _ := runFlow(t, fake, src)
			if rec.Status != report.StatusPassed {
				t.Fatalf("%s: status %s: %s", src, rec.Status, rec.Error)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || reqs[0].Type != typ {
				t.Fatalf("sent %+v, want one %s", reqs, typ)
			}
			if err := reqs[0].Validate(); err != nil {
				t.Fatalf("sent an invalid %s: %v", typ, err)
			}
		})
	}
}

// TestRun_AssertShowsOperands: a failed assert says what its operands
// were, for a comparison and for the failing conjunct of an && chain.
func TestRun_AssertShowsOperands(t *testing.T) {
	tests := []struct{ cond, want string }{
		{`vars.title == "Dashboard"`, `vars.title is "Login - App"`},
		{`vars.n >= 2 && vars.title contains "Dash"`, `vars.title is "Login - App"`},
		{`vars.n >= vars.limit`, `vars.n is 2, vars.limit is 5`},
		{`vars.title startsWith "Dash" || vars.n > 5`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			src := fmt.Sprintf("name: a\nvars:\n  title: Login - App\n  n: 2\n  limit: 5\nsteps:\n  - assert: %s\n", tt.cond)
			rec, _ := runFlow(t, runnertest.New(), src)
			if rec.Status != report.StatusFailed {
				t.Fatalf("status %s, want failed", rec.Status)
			}
			if !strings.Contains(rec.Error, "assertion failed: "+tt.cond) {
				t.Fatalf("error %q lacks the condition", rec.Error)
			}
			if tt.want == "" {
				if strings.Contains(rec.Error, " is ") {
					t.Fatalf("error %q shows operands of a condition that is not a comparison", rec.Error)
				}
				return
			}
			if !strings.HasSuffix(rec.Error, ": "+tt.want) {
				t.Fatalf("error %q, want it to end with %q", rec.Error, tt.want)
			}
		})
	}
}

func lookupNext(code protocol.ErrorCode) string {
	info, _ := protocol.Lookup(code)
	return info.Next
}

// TestSuite_JSONExitCode: the runner reports statuses; exitCode appears in
// the JSON report only when the caller maps statuses to exit codes, right
// after each flow's status.
func TestSuite_JSONExitCode(t *testing.T) {
	s := &report.SuiteReport{Flows: []*report.FlowReport{{Name: "a", File: "a.yaml", Status: report.StatusPassed}, {Name: "b", File: "b.yaml", Status: report.StatusBlocked}}}
	var plain bytes.Buffer
	if err := s.WriteJSON(&plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "exitCode") {
		t.Errorf("exitCode without a mapping:\n%s", plain.String())
	}
	s.ExitCode = func(st report.Status) int {
		return map[report.Status]int{report.StatusPassed: 0, report.StatusBlocked: 3}[st]
	}
	var mapped bytes.Buffer
	if err := s.WriteJSON(&mapped); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"durationMs": 0,
  "exitCode": 3,
  "flows"`, `"status": "blocked",
      "exitCode": 3,
      "started"`, `"status": "passed",
      "exitCode": 0,`} {
		if !strings.Contains(mapped.String(), want) {
			t.Errorf("JSON report lacks %q:\n%s", want, mapped.String())
		}
	}
}

// TestRun_PersonStopped: a request the person stopped from the popup is
// never sent again and never swallowed, whatever the step's retry and
// continue_on_error say; Stop all also skips the rest of the suite, while
// one session's Stop ends only its flow.
func TestRun_PersonStopped(t *testing.T) {
	stopped := func(reason string) runnertest.Handler {
		return func(context.Context, protocol.Action) (any, *protocol.Error) {
			e := protocol.Errorf(protocol.CodeInternalError, "stopped by the user")
			e.Reason = reason
			return nil, e
		}
	}
	for _, reason := range []string{protocol.ReasonUserStopped, protocol.ReasonGlobalStop} {
		t.Run(reason, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionClick, stopped(reason))
			rec, _ := runFlow(t, fake, `
name: stop
steps:
  - click: "#go"
    retry: { attempts: 3, on: [internal_error] }
    continue_on_error: true
  - log: never
`)
			wantStatus(t, rec, report.StatusFailed)
			n := 0
			for _, typ := range fake.Types() {
				if typ == string(protocol.ActionClick) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("click sent %d times, want once: a stopped request is never sent again", n)
			}
			if rec.StoppedBy != reason {
				t.Errorf("stoppedBy = %q, want %q", rec.StoppedBy, reason)
			}

			dir := writeFlows(t, map[string]string{
				"a.yaml": "name: a\nsteps:\n  - click: \"#go\"\n",
				"b.yaml": "name: b\nsteps:\n  - log: yes\n",
			})
			s := (&Runner{Requester: runnertest.New().On(protocol.ActionClick, stopped(reason))}).RunSuite(context.Background(), []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")})
			want := report.StatusPassed
			if reason == protocol.ReasonGlobalStop {
				want = report.StatusSkipped
			}
			if s.Flows[1].Status != want {
				t.Errorf("the next flow after %s: %s, want %s", reason, s.Flows[1].Status, want)
			}
		})
	}
}
