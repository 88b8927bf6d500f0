package runner

import (
	"errors"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
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
	if err == nil || !started || classify(err) != report.StatusFailed || stoppedByPerson(err) != "" {
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
func markFlaky(rec *report.FlowReport, failOnFlaky bool) {
	if rec.Status != report.StatusPassed {
		return
	}
	rec.Flaky = len(rec.FailedAttempts) > 0
	for _, st := range rec.Steps {
		rec.Flaky = rec.Flaky || st.Flaky
	}
	if rec.Flaky && failOnFlaky {
		rec.Status = report.StatusFailed
		rec.Reason = "flaky, and --fail-on-flaky counts it as failed: " + rec.FlakyNote()
		rec.Error = rec.Reason
		rec.Hint = "find what made the first attempt fail (the report keeps its error), or run without --fail-on-flaky"
	}
}
