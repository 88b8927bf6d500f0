package main

import (
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner"
)

// Exit codes: stable, documented in README and `bua help exit-codes`
// (k6's errext/exitcodes, cli/cli). Every error bua prints maps to one of
// them here and nowhere else.
const (
	exitOK          = 0 // success
	exitFailure     = 1 // an action error, or a failed flow
	exitUsage       = 2 // usage or invalid input, an action refused before sending, an invalid flow
	exitBlocked     = 3 // domain_blocked, or an obstacle that policy says stops
	exitUnavailable = 4 // no daemon, or no browser in time
	exitTimeout     = 5 // timeout, for one-shot commands
)

// codeExits are the protocol codes that do not exit 1.
var codeExits = map[protocol.ErrorCode]int{
	protocol.CodeDomainBlocked:     exitBlocked,
	protocol.CodeTimeout:           exitTimeout,
	protocol.CodeBridgeUnavailable: exitUnavailable,
}

// exitForCode is a one-shot command's exit code for a protocol error code.
func exitForCode(code protocol.ErrorCode) int {
	if c, ok := codeExits[code]; ok {
		return c
	}
	return exitFailure
}

// statusExits maps a flow's status (pkg/runner) to `bua run`'s exit code.
var statusExits = map[string]int{
	runner.StatusPassed:      exitOK,
	runner.StatusSkipped:     exitOK,
	runner.StatusFailed:      exitFailure,
	runner.StatusBlocked:     exitBlocked,
	runner.StatusUnavailable: exitUnavailable,
	runner.StatusInvalid:     exitUsage,
}

// exitForStatus is `bua run`'s exit code for a suite or flow status.
func exitForStatus(status string) int {
	if c, ok := statusExits[status]; ok {
		return c
	}
	return exitFailure
}
