package report

import (
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/runner/event"
)

// AttemptError is one failed attempt of a step that its retry policy sent
// again: its number (from 1) and its error.
type AttemptError struct {
	Attempt int `json:"attempt"`
	ErrorInfo
}

// FlakyNote says why a flaky flow is flaky: the failed runs before the one
// that passed, else its first flaky step.
func (f *FlowReport) FlakyNote() string {
	if n := len(f.FailedAttempts); n > 0 {
		first := f.FailedAttempts[0]
		return fmt.Sprintf("passed on attempt %d after %s; attempt 1: %s", f.Attempts, plural(n, "failed run"), firstLine(first.attemptReason()))
	}
	var flaky []*StepReport
	for _, st := range f.Steps {
		if st.Flaky {
			flaky = append(flaky, st)
		}
	}
	if len(flaky) == 0 {
		return ""
	}
	st := flaky[0]
	first := st.FailedAttempts[0]
	note := fmt.Sprintf("step %s %s passed on attempt %d after %s: %s", st.Path, st.Label(), st.Attempts, plural(len(st.FailedAttempts), "failed attempt"), firstLine(string(first.Code)+": "+first.Message))
	if len(flaky) > 1 {
		note += fmt.Sprintf(" (and %s)", plural(len(flaky)-1, "more flaky step"))
	}
	return note
}

// attemptReason is a failed run's cause with the step that failed it.
func (f *FlowReport) attemptReason() string {
	if f.FailedStep != "" {
		return fmt.Sprintf("step %q (line %d): %s", f.FailedStep, f.FailedLine, f.Reason)
	}
	return f.Error
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// flakyStatus is a status as the summary table shows it.
func flakyStatus(st Status, flaky bool) string {
	if flaky {
		return string(st) + " (flaky)"
	}
	return string(st)
}

func flakyCount(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d flaky)", n)
}

// FlakyCounts returns how many flaky flows passed and how many failed
// (runner.Runner.FailOnFlaky).
func (s *SuiteReport) FlakyCounts() (passed, failed int) {
	for _, f := range s.Flows {
		switch {
		case !f.Flaky:
		case f.Status == StatusPassed:
			passed++
		default:
			failed++
		}
	}
	return
}

func maskAttempts(m *Masker, in []AttemptError) []AttemptError {
	if len(in) == 0 {
		return nil
	}
	out := make([]AttemptError, len(in))
	for i, a := range in {
		a.Message = m.Mask(a.Message)
		out[i] = a
	}
	return out
}

// junitRerun is a <rerunFailure> or <flakyFailure>, as Maven Surefire's
// surefire-test-report-3.0.xsd defines them: message and type, the failed
// run's error as stackTrace and its steps as system-out.
type junitRerun struct {
	Message    string `xml:"message,attr"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace"`
	SystemOut  string `xml:"system-out,omitempty"`
}

// junitReruns returns f's earlier failed runs and flaky steps as Surefire
// writes reruns: for a flaky flow, one <flakyFailure> per failed run and
// per failed attempt of a flaky step (the testcase itself passes, unless
// --fail-on-flaky failed it); for a flow that failed every run, one
// <rerunFailure> per run before the last (the last is its <failure>).
func (f *FlowReport) junitReruns() (rerun, flaky []junitRerun) {
	var runs []junitRerun
	for i, a := range f.FailedAttempts {
		body := a.Error
		if a.Hint != "" {
			body += "\nhint: " + a.Hint
		}
		for _, h := range a.HookErrors {
			body += "\nhook: " + h
		}
		runs = append(runs, junitRerun{
			Message:    a.Masker.Mask(fmt.Sprintf("attempt %d of %d %s: %s", i+1, f.Attempts, a.Status, firstLine(a.attemptReason()))),
			Type:       string(a.Status),
			StackTrace: a.Masker.Mask(body),
			SystemOut:  a.Masker.Mask(strings.Join(a.stepLines(), "\n")),
		})
	}
	if !f.Flaky {
		return runs, nil
	}
	flaky = runs
	for _, st := range f.Steps {
		if !st.Flaky {
			continue
		}
		for _, a := range st.FailedAttempts {
			trace := fmt.Sprintf("%s:%d: step %q attempt %d: %s: %s", ReportPath(st.File), st.Line, st.Label(), a.Attempt, a.Code, a.Message)
			if a.Hint != "" {
				trace += "\nhint: " + a.Hint
			}
			flaky = append(flaky, junitRerun{
				Message:    f.Masker.Mask(fmt.Sprintf("step %q (line %d) attempt %d of %d: %s: %s", st.Label(), st.Line, a.Attempt, st.Attempts, a.Code, firstLine(a.Message))),
				Type:       string(a.Code),
				StackTrace: f.Masker.Mask(trace),
			})
		}
	}
	return nil, flaky
}

// stepLines is a run's steps as text lines: path, label, status, duration
// and the error or note (unmasked: callers mask).
func (f *FlowReport) stepLines() []string {
	var out []string
	for _, st := range f.Steps {
		line := fmt.Sprintf("%s%s %s %s (%s)", strings.Repeat("  ", st.Depth), st.Path, st.Label(), st.Status, event.FormatDuration(st.Duration))
		if st.Error != nil {
			line += ": " + string(st.Error.Code) + ": " + firstLine(st.Error.Message)
		} else if st.Note != "" {
			line += ": " + firstLine(st.Note)
		}
		out = append(out, line)
	}
	return out
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
