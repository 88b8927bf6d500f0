package main

import (
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner"
)

// Exit codes: stable, documented in docs/commands.md#exit-codes and `bua help exit-codes`
// (k6's errext/exitcodes, cli/cli). Every error bua prints maps to one of
// them here and nowhere else.
const (
	exitOK          = 0 // success
	exitFailure     = 1 // an action error, or a failed flow
	exitUsage       = 2 // usage or invalid input, an action refused before sending, an invalid flow
	exitBlocked     = 3 // domain_blocked, or an obstacle that policy says stops
	exitUnavailable = 4 // no daemon, or no browser in time
	exitTimeout     = 5 // timeout, for one-shot commands
	// exitInterrupted is the shell's 128+SIGINT: Ctrl-C (or SIGTERM) stopped
	// the command, and the daemon cancelled its action in the browser.
	exitInterrupted = 130
)

// codeExits is a one-shot command's exit code for each protocol error
// code. TestExitCodes fails when a code is missing.
var codeExits = map[protocol.ErrorCode]int{
	protocol.CodeDomainBlocked:        exitBlocked,
	protocol.CodeSessionNotFound:      exitFailure,
	protocol.CodeTabNotFound:          exitFailure,
	protocol.CodeElementNotFound:      exitFailure,
	protocol.CodeElementStale:         exitFailure,
	protocol.CodeTimeout:              exitTimeout,
	protocol.CodeDebuggerAttachFailed: exitFailure,
	protocol.CodeInvalidAction:        exitFailure,
	protocol.CodeInternalError:        exitFailure,
	protocol.CodeBridgeUnavailable:    exitUnavailable,
}

// exitForCode is a one-shot command's exit code for a protocol error code;
// a code this build does not know exits 1.
func exitForCode(code protocol.ErrorCode) int {
	if c, ok := codeExits[code]; ok {
		return c
	}
	return exitFailure
}

// statusExits maps a flow's status (pkg/runner) to `bua run`'s exit code.
// A suite exits with its worst flow's status (runner.SuiteReport.Status:
// interrupted > invalid > unavailable > blocked > failed > passed), so
// 130 > 2 > 4 > 3 > 1 > 0.
var statusExits = map[runner.Status]int{
	runner.StatusPassed:      exitOK,
	runner.StatusSkipped:     exitOK,
	runner.StatusFailed:      exitFailure,
	runner.StatusBlocked:     exitBlocked,
	runner.StatusUnavailable: exitUnavailable,
	runner.StatusInvalid:     exitUsage,
	runner.StatusInterrupted: exitInterrupted,
}

// exitForStatus is `bua run`'s exit code for a suite or flow status; it is
// also the runner's Runner.ExitCode, so JSON reports carry exitCode.
func exitForStatus(status runner.Status) int {
	if c, ok := statusExits[status]; ok {
		return c
	}
	return exitFailure
}
