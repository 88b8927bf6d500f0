package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// runSuite writes files into a temp dir and runs them as a suite with r;
// it returns the report and the dir.
func runSuite(t *testing.T, r *Runner, files map[string]string, order ...string) (*report.SuiteReport, string) {
	t.Helper()
	dir := writeFlows(t, files)
	var paths []string
	for _, name := range order {
		paths = append(paths, filepath.Join(dir, name))
	}
	return r.RunSuite(context.Background(), paths), dir
}

func stoppedByUser(context.Context, protocol.Action) (any, *protocol.Error) {
	e := protocol.Errorf(protocol.CodeInternalError, "stopped by the user")
	e.Reason = protocol.ReasonUserStopped
	return nil, e
}

// TestRun_FlowRetries: --retries reruns a flow only for failures a rerun
// may fix (the error contract's retry meanings), marks one that passes
// later flaky, keeps every failed run, and --fail-on-flaky fails it.
// TestRun_ServeErrorNotRerun: a folder to serve that cannot be served when
// the flow runs (--serve: the loader checks a flow's own serve:) fails the
// flow once, without a rerun.
func TestRun_ServeErrorNotRerun(t *testing.T) {
	r := &Runner{Requester: runnertest.New(), Retries: 2, Serve: filepath.Join(t.TempDir(), "missing-folder")}
	s, _ := runSuite(t, r, map[string]string{"f.yaml": "name: f\nsteps:\n  - click: \"#go\"\n"}, "f.yaml")
	if rec := s.Flows[0]; rec.Status != report.StatusFailed || rec.Attempts != 1 || len(rec.FailedAttempts) != 0 || !strings.Contains(rec.Error, "missing-folder") {
		t.Fatalf("status %s, attempts %d, %d failed attempts; want failed once, naming the folder (error %q)", rec.Status, rec.Attempts, len(rec.FailedAttempts), rec.Error)
	}
}

func TestRun_FlowRetries(t *testing.T) {
	const clickFlow = "name: f\nsteps:\n  - click: \"#go\"\nfinally:\n  - log: cleanup\n"
	fail := func(code protocol.ErrorCode) runnertest.Handler { return runnertest.Fail(code, "attempt failed") }
	ok := runnertest.Result(map[string]any{"ok": true})
	highWall := loginPage()
	highWall.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.ConfidenceHigh, Message: "sign-in form"}
	for _, tc := range []struct {
		name        string
		src         string
		fake        *runnertest.Fake
		retries     int
		failOnFlaky bool
		status      report.Status
		attempts    int // runs of the flow
		flaky       bool
	}{
		{"PassesOnRerun", clickFlow, runnertest.New().On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeElementNotFound), ok)), 2, false, report.StatusPassed, 2, true},
		{"PassesAtOnce", clickFlow, runnertest.New(), 2, false, report.StatusPassed, 1, false},
		{"FailsEveryRun", clickFlow, runnertest.New().On(protocol.ActionClick, fail(protocol.CodeTimeout)), 2, false, report.StatusFailed, 3, false},
		{"NoRetries", clickFlow, runnertest.New().On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeTimeout), ok)), 0, false, report.StatusFailed, 1, false},
		{"FailOnFlaky", clickFlow, runnertest.New().On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeTimeout), ok)), 1, true, report.StatusFailed, 2, true},
		{"AssertionRerun", "name: f\nsteps:\n  - evaluate: return n\n  - assert: last == 2\n",
			runnertest.New().On(protocol.ActionEvaluate, runnertest.Sequence(runnertest.Result(1), runnertest.Result(2))), 1, false, report.StatusPassed, 2, true},
		{"DomainBlockedNotRerun", clickFlow, runnertest.New().On(protocol.ActionClick, fail(protocol.CodeDomainBlocked)), 2, false, report.StatusBlocked, 1, false},
		{"InvalidActionNotRerun", clickFlow, runnertest.New().On(protocol.ActionClick, fail(protocol.CodeInvalidAction)), 2, false, report.StatusFailed, 1, false},
		{"SessionNotFoundNotRerun", clickFlow, runnertest.New().On(protocol.ActionClick, fail(protocol.CodeSessionNotFound)), 2, false, report.StatusFailed, 1, false},
		{"BridgeUnavailableNotRerun", clickFlow, runnertest.New().On(protocol.ActionClick, fail(protocol.CodeBridgeUnavailable)), 2, false, report.StatusUnavailable, 1, false},
		{"PersonStoppedNotRerun", clickFlow, runnertest.New().On(protocol.ActionClick, stoppedByUser), 2, false, report.StatusFailed, 1, false},
		{"ObstacleNotRerun", "name: f\nsteps:\n  - extract: {}\n", runnertest.New().On(protocol.ActionExtract, runnertest.Result(highWall)), 2, false, report.StatusBlocked, 1, false},
		{"FlakyStep", "name: f\nsteps:\n  - click: \"#go\"\n    retry: { attempts: 3, on: [timeout] }\n",
			runnertest.New().On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeTimeout), ok)), 0, false, report.StatusPassed, 1, true},
		{"FlakyStepFailOnFlaky", "name: f\nsteps:\n  - click: \"#go\"\n    retry: { attempts: 3, on: [timeout] }\n",
			runnertest.New().On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeTimeout), ok)), 0, true, report.StatusFailed, 1, true},
		{"StaleRecoveryIsNotFlaky", "name: f\nsteps:\n  - extract: {}\n    as: page\n  - click: \"${{ uid(page, 'button', 'Sign in') }}\"\n",
			runnertest.New().On(protocol.ActionExtract, runnertest.Result(loginPage())).On(protocol.ActionClick, runnertest.Sequence(fail(protocol.CodeElementStale), ok)), 0, false, report.StatusPassed, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{Requester: tc.fake, Retries: tc.retries, FailOnFlaky: tc.failOnFlaky}
			s, _ := runSuite(t, r, map[string]string{"f.yaml": tc.src}, "f.yaml")
			rec := s.Flows[0]
			if rec.Status != tc.status || rec.Attempts != tc.attempts || rec.Flaky != tc.flaky {
				t.Fatalf("status %s, attempts %d, flaky %v; want %s, %d, %v (error %q)", rec.Status, rec.Attempts, rec.Flaky, tc.status, tc.attempts, tc.flaky, rec.Error)
			}
			if got := len(rec.FailedAttempts); got != tc.attempts-1 {
				t.Errorf("%d failed attempts kept, want %d", got, tc.attempts-1)
			}
			for i, a := range rec.FailedAttempts {
				if a.Status == report.StatusPassed || a.Error == "" {
					t.Errorf("failed attempt %d: status %s, error %q", i+1, a.Status, a.Error)
				}
			}
			if tc.failOnFlaky && !strings.Contains(rec.Error, "--fail-on-flaky") {
				t.Errorf("--fail-on-flaky error does not say why: %q", rec.Error)
			}
			p, f := s.FlakyCounts()
			if tc.flaky && p+f != 1 || !tc.flaky && p+f != 0 {
				t.Errorf("FlakyCounts = %d, %d", p, f)
			}
		})
	}
}

// TestRun_RerunIsFresh: a rerun starts as the first run did (vars, the
// current tab, hooks), reuses the served folder's URL, and saves its
// artifacts apart so the first failure's evidence stays.
func TestRun_RerunIsFresh(t *testing.T) {
	fake := runnertest.New().
		On(protocol.ActionOpenTab, runnertest.Sequence(runnertest.Result(protocol.OpenTabResult{TabID: 7}), runnertest.Result(protocol.OpenTabResult{TabID: 8}))).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQ"})).
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "nothing matches #go"))
	art := filepath.Join(t.TempDir(), "art")
	r := &Runner{Requester: fake, Retries: 1, Artifacts: art}
	s, _ := runSuite(t, r, map[string]string{
		"site/index.html": "<p>hi</p>",
		"f.yaml": `name: fresh
serve: site
vars: { n: 0 }
steps:
  - navigate: ${{ vars.base_url }}/index.html
  - set: { n: "vars.n + 1" }
  - open_tab: ${{ vars.base_url }}/${{ vars.n }}
  - click: "#go"
finally:
  - log: cleanup ${{ vars.n }}
`}, "f.yaml")
	rec := s.Flows[0]
	if rec.Status != report.StatusFailed || rec.Attempts != 2 || len(rec.FailedAttempts) != 1 {
		t.Fatalf("status %s, attempts %d, failed %d", rec.Status, rec.Attempts, len(rec.FailedAttempts))
	}
	var navs, opens []protocol.Action
	for _, a := range fake.Requests() {
		switch a.Type {
		case protocol.ActionNavigate:
			navs = append(navs, a)
		case protocol.ActionOpenTab:
			opens = append(opens, a)
		}
	}
	if len(navs) != 2 || navs[0].URL != navs[1].URL || !strings.HasPrefix(navs[0].URL, "http://127.0.0.1:") {
		t.Errorf("navigates %+v: want the same served URL in both runs", navs)
	}
	if navs[1].TabID != nil {
		t.Errorf("the rerun's navigate went to tab %d: want no tab, as in a first run", *navs[1].TabID)
	}
	if len(opens) != 2 || !strings.HasSuffix(opens[1].URL, "/1") {
		t.Errorf("open_tab URLs %+v: want vars.n back to 0 before the rerun's set", opens)
	}
	for i, run := range []*report.FlowReport{rec.FailedAttempts[0], rec} {
		last := run.Steps[len(run.Steps)-1]
		if last.Path != "finally.1" || last.Note != "cleanup 1" {
			t.Errorf("run %d: last step %s %q, want the finally hook", i+1, last.Path, last.Note)
		}
		click := run.Steps[3]
		want := filepath.Join(art, evidenceFolder(run.File), "4-click")
		if i == 1 {
			want = filepath.Join(art, "attempt-2", evidenceFolder(run.File), "4-click")
		}
		if len(click.Artifacts) == 0 || filepath.Dir(click.Artifacts[0]) != want {
			t.Errorf("run %d artifacts %v, want under %s", i+1, click.Artifacts, want)
		}
	}
}

// TestRun_FlakyStepReport: a step that its retry policy sent again keeps
// each failed attempt's error and is flaky only when a later one passed.
func TestRun_FlakyStepReport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		click  runnertest.Handler
		flaky  bool
		failed int
	}{
		{"PassedThirdAttempt", runnertest.Sequence(runnertest.Fail(protocol.CodeTimeout, "slow 1"), runnertest.Fail(protocol.CodeTimeout, "slow 2"), runnertest.Result(map[string]any{"ok": true})), true, 2},
		{"PassedAtOnce", runnertest.Result(map[string]any{"ok": true}), false, 0},
		{"NeverPassed", runnertest.Fail(protocol.CodeTimeout, "slow"), false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionClick, tc.click)
			rec, _ := runFlow(t, fake, "name: s\nsteps:\n  - click: \"#go\"\n    retry: { attempts: 3, on: [timeout] }\n")
			st := rec.Steps[0]
			if st.Flaky != tc.flaky || len(st.FailedAttempts) != tc.failed {
				t.Fatalf("step flaky %v with %d failed attempts, want %v, %d", st.Flaky, len(st.FailedAttempts), tc.flaky, tc.failed)
			}
			for i, a := range st.FailedAttempts {
				if a.Attempt != i+1 || a.Code != protocol.CodeTimeout || a.Hint == "" {
					t.Errorf("failed attempt %d = %+v", i+1, a)
				}
			}
		})
	}
}

// TestReport_FlakyGolden pins the JSON and JUnit of a suite with a flow
// that passed on a rerun, one with a flaky step, one that failed every
// run and one that passed (go test ./pkg/runner -run FlakyGolden -update).
func TestReport_FlakyGolden(t *testing.T) {
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fake := runnertest.New().
		On(protocol.ActionClick, func(_ context.Context, a protocol.Action) (any, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeElementNotFound, "nothing matches %s", a.Selector)
		}).
		On(protocol.ActionEvaluate, runnertest.Sequence(runnertest.Result("cold"), runnertest.Result("warm"))).
		On(protocol.ActionWaitFor, runnertest.Sequence(runnertest.Fail(protocol.CodeTimeout, "#report did not appear within 1000ms"), runnertest.Result(map[string]any{"ok": true})))
	r := &Runner{Requester: fake, Retries: 1, Now: func() time.Time { return clock }}
	s, dir := runSuite(t, r, map[string]string{
		"a_rerun.yaml":  "name: passes on a rerun\ntags: [smoke]\nsteps:\n  - evaluate: return cache\n  - assert: last == \"warm\"\n    message: the cache is ${{ last }}\n",
		"b_step.yaml":   "name: flaky step\nsteps:\n  - name: wait for report\n    wait_for: { selector: \"#report\", timeoutMs: 1000 }\n    retry: { attempts: 3, on: [timeout] }\n",
		"c_fails.yaml":  "name: fails every run\nsteps:\n  - click: \"#missing\"\n",
		"d_passes.yaml": "name: passes\nsteps:\n  - log: fine\n",
	}, "a_rerun.yaml", "b_step.yaml", "c_fails.yaml", "d_passes.yaml")
	s.ExitCode = func(st report.Status) int {
		return map[report.Status]int{report.StatusPassed: 0, report.StatusFailed: 1}[st]
	}
	if got, want := s.SummaryLine(), "3 passed (2 flaky), 1 failed, 0 skipped in 0ms"; got != want {
		t.Errorf("SummaryLine = %q, want %q", got, want)
	}
	for _, g := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"flaky.junit.xml", func(b *bytes.Buffer) error { return s.WriteJUnit(b) }},
		{"flaky.json", func(b *bytes.Buffer) error { return s.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := g.write(&b); err != nil {
			t.Fatal(err)
		}
		got := scrubDir(b.String(), dir, "")
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./pkg/runner -run FlakyGolden -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from golden (run with -update if intended):\n--- got\n%s\n--- want\n%s", g.file, got, want)
		}
	}
}
