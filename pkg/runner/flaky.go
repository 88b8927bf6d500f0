package runner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
)

// Flakiness: a step or a flow that failed and then passed on a retry is
// reported flaky (JSON `flaky`, JUnit <flakyFailure>, the summary's count).
//   - A step is flaky when its `retry` policy sent it again after a failed
//     attempt and a later attempt passed. The error contract's re-extract
//     recovery (element_stale, element_not_found) is not a failure of the
//     flow but the page changing under it: it does not make a step flaky.
//   - A flow is flaky when it passed after a failed run (Runner.Retries) or
//     with a flaky step.
//   - Runner.FailOnFlaky turns a flaky flow's status to failed.

// AttemptError is one failed attempt of a step that its retry policy sent
// again: its number (from 1) and its error.
type AttemptError struct {
	Attempt int `json:"attempt"`
	ErrorInfo
}

// rerunnable reports whether a flow that ended with err may be run again
// under Runner.Retries. Only a plain failure is (an assertion, `fail`, a
// timeout, a missing element, an expression error, the flow's timeout):
// an invalid flow, a blocked one (domain_blocked or an obstacle the policy
// stops on), no bridge, a request the person stopped (stoppedByPerson),
// an error whose code the protocol's error contract says never to retry
// (RetryNever: invalid_action, session_not_found) and a flow that failed
// before its steps (vars, serve) end as they are: a rerun would meet them
// again.
func rerunnable(err error, started bool) bool {
	if err == nil || !started || classify(err) != StatusFailed || stoppedByPerson(err) != "" {
		return false
	}
	var be *protocol.Error
	if errors.As(err, &be) {
		if info, ok := protocol.Lookup(be.Code); ok && info.Retry == protocol.RetryNever {
			return false
		}
	}
	return true
}

// markFlaky sets rec.Flaky for a flow that passed after failed runs or
// with a flaky step, and under failOnFlaky fails it, saying why.
func markFlaky(rec *FlowReport, failOnFlaky bool) {
	if rec.Status != StatusPassed {
		return
	}
	rec.Flaky = len(rec.FailedAttempts) > 0
	for _, st := range rec.Steps {
		rec.Flaky = rec.Flaky || st.Flaky
	}
	if rec.Flaky && failOnFlaky {
		rec.Status = StatusFailed
		rec.Reason = "flaky, and --fail-on-flaky counts it as failed: " + rec.flakyNote()
		rec.Error = rec.Reason
		rec.Hint = "find what made the first attempt fail (the report keeps its error), or run without --fail-on-flaky"
	}
}

// flakyNote says why a flaky flow is flaky: the failed runs before the one
// that passed, else its first flaky step.
func (f *FlowReport) flakyNote() string {
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
	note := fmt.Sprintf("step %s %s passed on attempt %d after %s: %s", st.Path, st.label(), st.Attempts, plural(len(st.FailedAttempts), "failed attempt"), firstLine(string(first.Code)+": "+first.Message))
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
// (Runner.FailOnFlaky).
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
			Message:    a.masker.Mask(fmt.Sprintf("attempt %d of %d %s: %s", i+1, f.Attempts, a.Status, firstLine(a.attemptReason()))),
			Type:       string(a.Status),
			StackTrace: a.masker.Mask(body),
			SystemOut:  a.masker.Mask(strings.Join(a.stepLines(), "\n")),
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
			trace := fmt.Sprintf("%s:%d: step %q attempt %d: %s: %s", ReportPath(st.File), st.Line, st.label(), a.Attempt, a.Code, a.Message)
			if a.Hint != "" {
				trace += "\nhint: " + a.Hint
			}
			flaky = append(flaky, junitRerun{
				Message:    f.masker.Mask(fmt.Sprintf("step %q (line %d) attempt %d of %d: %s: %s", st.label(), st.Line, a.Attempt, st.Attempts, a.Code, firstLine(a.Message))),
				Type:       string(a.Code),
				StackTrace: f.masker.Mask(trace),
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
		line := fmt.Sprintf("%s%s %s %s (%s)", strings.Repeat("  ", st.Depth), st.Path, st.label(), st.Status, event.FormatDuration(st.Duration))
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
