package report

import ()

// Status is a flow's or a step's outcome, as reports show it. A flow's
// status is the runner's verdict; the CLI maps it to an exit code
// (cmd/bua/exitcodes.go), the runner never speaks in exit codes.
type Status string

// Flow and step statuses.
const (
	StatusPassed      Status = "passed"
	StatusFailed      Status = "failed"
	StatusBlocked     Status = "blocked"     // domain_blocked, or an obstacle policy stops at
	StatusInvalid     Status = "invalid"     // the flow did not load: see its diagnostics
	StatusUnavailable Status = "unavailable" // no daemon or browser answered
	StatusSkipped     Status = "skipped"     // not run (--shard, --fail-fast, a false if)
	// StatusInterrupted: the run's caller stopped it (Ctrl-C, SIGTERM: the
	// context runner.Runner.RunSuite was given was cancelled) while this flow ran.
	StatusInterrupted Status = "interrupted"
)

// statusRank orders flow statuses from best to worst for Status.
var statusRank = map[Status]int{StatusPassed: 0, StatusSkipped: 0, StatusFailed: 1, StatusBlocked: 2, StatusUnavailable: 3, StatusInvalid: 4, StatusInterrupted: 5}

// Status is the suite's verdict: interrupted when its caller stopped it,
// else its worst flow's status, in the order invalid > unavailable >
// blocked > failed > passed (skipped flows count as passed: they were not
// run).
func (s *SuiteReport) Status() Status {
	if s.Interrupted {
		return StatusInterrupted
	}
	worst := StatusPassed
	for _, f := range s.Flows {
		if statusRank[f.Status] > statusRank[worst] {
			worst = f.Status
		}
	}
	return worst
}
