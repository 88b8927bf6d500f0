package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestRun_BusyLoopStops: a loop whose body never waits (set, assert, if,
// or nothing at all) stops at the flow's timeout, at its own step
// timeout, and at a cancel of the run (Ctrl-C), with the error saying
// which; and its report holds a bounded number of steps.
func TestRun_BusyLoopStops(t *testing.T) {
	const busy = "vars: { i: 0 }\nsteps:\n  - repeat:\n      times: 1000000000\n      steps:\n        - set: { i: \"vars.i + 1\" }\n        - if: vars.i < 0\n          then: [ { fail: never } ]\n        - assert: vars.i > 0\n"
	for _, tc := range []struct {
		name    string
		src     string
		cancel  time.Duration // cancel the run's context after this long (0: never)
		limit   time.Duration // the deadline that must stop it
		status  report.Status
		wantErr string
		code    protocol.ErrorCode // the stopped step's error code, when one
	}{
		{"FlowTimeout", "name: t\ntimeout: 300ms\n" + busy, 0, 300 * time.Millisecond, report.StatusFailed, "flow stopped: flow timeout 300ms exceeded", "error"},
		{"EmptyBody", "name: t\ntimeout: 300ms\nsteps:\n  - repeat: { times: 1000000000, steps: [] }\n", 0, 300 * time.Millisecond, report.StatusFailed, "flow stopped: flow timeout 300ms exceeded", "error"},
		{"WhileLoop", "name: t\ntimeout: 300ms\nsteps:\n  - repeat: { while: \"true\", max: 1000000000, steps: [ { log: x } ] }\n", 0, 300 * time.Millisecond, report.StatusFailed, "flow stopped: flow timeout 300ms exceeded", "error"},
		{"StepTimeout", "name: t\n" + strings.Replace(busy, "  - repeat:\n", "  - timeout: 300ms\n    repeat:\n", 1), 0, 300 * time.Millisecond, report.StatusFailed, "step timed out after 300ms", protocol.CodeTimeout},
		{"Interrupt", "name: t\n" + busy, 300 * time.Millisecond, 300 * time.Millisecond, report.StatusInterrupted, "flow stopped: context canceled", "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFlows(t, map[string]string{"main.yaml": tc.src})
			f, err := flow.Load(filepath.Join(dir, "main.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var progress bytes.Buffer
			start := time.Now() // before the cancel's timer, which counts from here
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			rec := (&Runner{Requester: runnertest.New(), Events: printer(&progress)}).RunFlow(ctx, f)
			took := time.Since(start)
			t.Logf("%s: stopped after %s (deadline %s), %d steps in the report, %d progress lines", tc.name, took.Round(time.Millisecond), tc.limit, len(rec.Steps), strings.Count(progress.String(), "\n"))
			wantStatus(t, rec, tc.status)
			if !strings.Contains(rec.Error, tc.wantErr) {
				t.Errorf("error = %q, want %q", rec.Error, tc.wantErr)
			}
			if took < tc.limit || took > tc.limit+2*time.Second {
				t.Errorf("stopped after %s, want soon after %s", took, tc.limit)
			}
			failed := rec.Steps[len(rec.Steps)-1]
			for _, st := range rec.Steps {
				if st.Error != nil {
					failed = st
				}
			}
			if failed.Error == nil || failed.Error.Code != tc.code {
				t.Errorf("failed step %s: error %+v, want code %s", failed.Path, failed.Error, tc.code)
			}
			if n := len(rec.Steps); n > maxListedSteps+10 {
				t.Errorf("report holds %d steps, want at most about %d", n, maxListedSteps)
			}
			if n := strings.Count(progress.String(), "\n"); n > maxListedSteps+10 {
				t.Errorf("progress printed %d lines, want at most about %d", n, maxListedSteps)
			}
		})
	}
}

// TestRun_RepeatRecordsBounded: a long loop keeps its first passes (until
// the flow holds maxListedSteps steps) and its last one; the repeat's note
// says which it left out; a failing pass is kept with its error.
func TestRun_RepeatRecordsBounded(t *testing.T) {
	rec, _ := runFlow(t, runnertest.New(), "name: r\nvars: { i: 0 }\nsteps:\n  - repeat:\n      times: 5000\n      steps:\n        - set: { i: \"vars.i + 1\" }\n        - log: \"pass ${{ vars.i }}\"\n  - assert: vars.i == 5000\n")
	wantStatus(t, rec, report.StatusPassed)
	paths := map[string]bool{}
	for _, st := range rec.Steps {
		paths[st.Path] = true
	}
	// 1 + 499 passes of 2 steps: pass 500 is the last to start below the
	// bound of 1000 steps.
	for _, p := range []string{"1", "1.1.1", "1.500.2", "1.5000.1", "1.5000.2", "2"} {
		if !paths[p] {
			t.Errorf("report lacks step %s", p)
		}
	}
	if paths["1.501.1"] || paths["1.4999.2"] {
		t.Errorf("report keeps passes past its bound")
	}
	if got, want := rec.Steps[0].Note, "5000 passes; passes 501 to 4999 left out of the report"; got != want {
		t.Errorf("repeat note = %q, want %q", got, want)
	}
	if len(rec.Steps) != 1+500*2+2+1 {
		t.Errorf("%d steps recorded", len(rec.Steps))
	}

	rec, _ = runFlow(t, runnertest.New(), "name: r\nvars: { i: 0 }\nsteps:\n  - repeat:\n      times: 5000\n      steps:\n        - set: { i: \"vars.i + 1\" }\n        - fail: \"pass ${{ vars.i }} failed\"\n          if: vars.i == 3000\n")
	wantStatus(t, rec, report.StatusFailed)
	last := rec.Steps[len(rec.Steps)-1]
	if last.Path != "1.3000.2" || last.Error == nil || last.Error.Message != "pass 3000 failed" {
		t.Errorf("last step %s %+v, want the failing 1.3000.2", last.Path, last.Error)
	}
	if !strings.Contains(rec.Steps[0].Note, "passes 501 to 2999 left out of the report") {
		t.Errorf("repeat note = %q", rec.Steps[0].Note)
	}
}

// TestRun_DoubledVar: a var doubled in a loop, by + or by interpolation,
// fails at the first pass past the budget (a 16 MiB string), naming the
// expression and its place (the file slash-separated, as the report
// gives the flow's reason: ReportPath), instead of reaching 2^40 bytes.
func TestRun_DoubledVar(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"Plus", `"vars.s + vars.s"`, `expression "vars.s + vars.s" at %s:7:21: + would build 16 MiB`},
		{"Interpolation", `"${{ vars.s }}${{ vars.s }}"`, `value "${{ vars.s }}${{ vars.s }}" at %s:7:21: interpolation would build 16 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			rec, _ := runFlow(t, runnertest.New(), "name: d\nvars: { s: a }\nsteps:\n  - repeat:\n      times: 40\n      steps:\n        - set: { s: "+tc.value+" }\n")
			took := time.Since(start)
			wantStatus(t, rec, report.StatusFailed)
			want := fmt.Sprintf(tc.want, report.ReportPath(rec.File))
			if !strings.Contains(rec.Reason, want) {
				t.Fatalf("reason = %q, want %q", rec.Reason, want)
			}
			if last := rec.Steps[len(rec.Steps)-1]; last.Path != "1.24.1" {
				t.Errorf("failed at %s, want the 24th pass (1 byte doubled 24 times is 16 MiB)", last.Path)
			}
			t.Logf("doubling refused at 16 MiB after %s", took.Round(time.Millisecond))
			if took > 5*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestSuite_Interrupted: a run whose context is cancelled marks the flow
// it was in interrupted, skips the rest and its hooks, and the reports say
// so: JSON interrupted with the interrupted status's exit code, JUnit a
// failure of type interrupted.
func TestSuite_Interrupted(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"a.yaml": "name: a\nsteps:\n  - log: done\n",
		"b.yaml": "name: b\nsteps:\n  - repeat: { while: \"true\", max: 1000000000, steps: [] }\nfinally:\n  - log: cleanup\n",
		"c.yaml": "name: c\nsteps:\n  - log: never\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	files := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml")}
	codes := map[report.Status]int{report.StatusPassed: 0, report.StatusSkipped: 0, report.StatusInterrupted: 130}
	s := (&Runner{Requester: runnertest.New(), ExitCode: func(st report.Status) int { return codes[st] }}).RunSuite(ctx, files)
	if !s.Interrupted || s.Status() != report.StatusInterrupted || s.Exit() != 130 {
		t.Fatalf("suite interrupted=%v status=%s exit=%d", s.Interrupted, s.Status(), s.Exit())
	}
	if got := []report.Status{s.Flows[0].Status, s.Flows[1].Status, s.Flows[2].Status}; got[0] != report.StatusPassed || got[1] != report.StatusInterrupted || got[2] != report.StatusSkipped {
		t.Fatalf("flow statuses = %v, want passed, interrupted, skipped", got)
	}
	for _, st := range s.Flows[1].Steps {
		if strings.HasPrefix(st.Path, "finally") {
			t.Errorf("finally ran after the interrupt")
		}
	}
	if h := s.Flows[1].HookErrors; len(h) != 1 || !strings.Contains(h[0], "did not run: the run was interrupted") {
		t.Errorf("hook errors = %v", h)
	}
	if !strings.HasSuffix(s.SummaryLine(), ", interrupted") {
		t.Errorf("summary line = %q", s.SummaryLine())
	}
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var out struct {
		ExitCode    int  `json:"exitCode"`
		Interrupted bool `json:"interrupted"`
		Flows       []struct {
			Status report.Status `json:"status"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || out.ExitCode != 130 || !out.Interrupted || out.Flows[1].Status != report.StatusInterrupted {
		t.Errorf("JSON report: %v %+v", err, out)
	}
	var ju bytes.Buffer
	if err := s.WriteJUnit(&ju); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ju.String(), `type="interrupted"`) || !strings.Contains(ju.String(), "<skipped></skipped>") {
		t.Errorf("JUnit report:\n%s", ju.String())
	}
}

// TestRun_InterruptStopsHooks: hooks outlive the flow's timeout (a
// finally after it still runs) but not an interrupt: Ctrl-C during a long
// finally ends it at once.
func TestRun_InterruptStopsHooks(t *testing.T) {
	dir := writeFlows(t, map[string]string{"f.yaml": "name: f\ntimeout: 100ms\nsteps:\n  - sleep: 5s\nfinally:\n  - log: cleaning\n  - sleep: 30s\n"})
	f, err := flow.Load(filepath.Join(dir, "f.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	rec := (&Runner{Requester: runnertest.New()}).RunFlow(ctx, f)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the finally's 30 s sleep ran on %s after the interrupt", took-500*time.Millisecond)
	}
	wantStatus(t, rec, report.StatusInterrupted)
	if len(rec.Steps) != 3 || rec.Steps[1].Note != "cleaning" || rec.Steps[2].Error == nil || !strings.Contains(rec.Steps[2].Error.Message, "context canceled") {
		t.Errorf("steps: the finally must start after the flow's timeout and stop at the interrupt")
	}
}

// TestSuite_Problems: an evidence file that cannot be written is a problem
// of the run, named with its path (slash-separated, as the report's
// problems give it: ReportPath) and the OS error; the file is not left
// half-written, and the run's exit code is raised to an invalid flow's.
func TestSuite_Problems(t *testing.T) {
	dir := writeFlows(t, map[string]string{"f.yaml": "name: f\nsteps:\n  - click: \"#gone\"\n"})
	t.Chdir(dir) // a run from the flows' folder: f.yaml's evidence is in artifacts/f/
	artifacts := filepath.Join(dir, "artifacts")
	// The bundle's screenshot path is a folder: its write fails as a full
	// disk's would, and the other files still get written.
	if err := os.MkdirAll(filepath.Join(artifacts, "f", "1-click", report.BundleScreenshot), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := runnertest.New().
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "gone")).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64," + b64([]byte{0xff, 0xd8, 0xff})}))
	codes := map[report.Status]int{report.StatusFailed: 1, report.StatusInvalid: 2}
	s := (&Runner{Requester: fake, Artifacts: artifacts, ExitCode: func(st report.Status) int { return codes[st] }}).RunSuite(context.Background(), []string{filepath.Join(dir, "f.yaml")})
	shot := filepath.Join(artifacts, "f", "1-click", report.BundleScreenshot)
	if len(s.Problems) != 1 || s.Problems[0] != "artifact "+report.ReportPath(shot)+": is a directory" {
		t.Fatalf("problems = %q, want the screenshot's path and the OS error", s.Problems)
	}
	if s.Exit() != 2 {
		t.Errorf("exit = %d, want 2 (a file not written)", s.Exit())
	}
	if !strings.HasSuffix(s.SummaryLine(), ", 1 file not written") {
		t.Errorf("summary line = %q", s.SummaryLine())
	}
	if _, err := os.Stat(filepath.Join(artifacts, "f", "1-click", report.BundleSteps)); err != nil {
		t.Errorf("the other bundle files were not written: %v", err)
	}
	var js bytes.Buffer
	s.WriteJSON(&js)
	var out struct {
		ExitCode int      `json:"exitCode"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || out.ExitCode != 2 || len(out.Problems) != 1 {
		t.Errorf("JSON report: %v %+v", err, out)
	}
}

// TestStopped: a step stopped by its context says why, as the cause.
func TestStopped(t *testing.T) {
	timeout := protocol.Errorf(protocol.CodeTimeout, "step timed out after 1s")
	for _, tc := range []struct {
		name  string
		ctx   func() context.Context
		want  string
		isErr error
	}{
		{"StepTimeout", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(timeout)
			return ctx
		}, "timeout: step timed out after 1s", timeout},
		{"FlowTimeout", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("flow timeout 5m0s exceeded"))
			return ctx
		}, "flow stopped: flow timeout 5m0s exceeded", nil},
		{"Cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, "flow stopped: context canceled", context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := stopped(tc.ctx())
			if err.Error() != tc.want || tc.isErr != nil && !errors.Is(err, tc.isErr) {
				t.Errorf("stopped = %v, want %q", err, tc.want)
			}
		})
	}
}
