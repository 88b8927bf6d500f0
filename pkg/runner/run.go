package runner

import (
	"context"
	"strconv"
	"time"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// Runner executes flows against a Requester.
type Runner struct {
	// Requester sends actions: the daemon client in the CLI, a fake in tests.
	Requester protocol.Requester
	// Vars override flow vars by name (`--var k=v`), top flows only.
	Vars map[string]string
	// Getenv reads the environment for `env.NAME`; nil reads nothing.
	Getenv func(string) string
	// Serve, when set, is a directory served on loopback for every flow,
	// whose URL becomes vars.base_url (`--serve DIR`).
	Serve string
	// Artifacts, when set, is where the evidence bundle of a step that
	// fails a flow is saved, in Artifacts/<flow file>/<step>/ (see
	// writeBundle): screenshot, extract, trace, step log and the values
	// the failing expression read.
	Artifacts string
	// Evidence gathers that evidence in memory (StepReport.Evidence) even
	// without Artifacts, for the HTML report.
	Evidence bool
	// Events receives what the run does as it does it: flows and steps
	// starting and ending (nil: nothing). pkg/runner/progress prints them
	// as progress lines.
	Events event.Sink
	// FailFast stops a suite at its first flow that does not pass.
	FailFast bool
	// Retries is how many more times a flow that failed runs again
	// (`--retries N`), each run a fresh one; only failures a rerun may fix
	// are retried (rerunnable). A flow that passes on a rerun is flaky.
	Retries int
	// FailOnFlaky reports a flaky flow as failed (`--fail-on-flaky`).
	FailOnFlaky bool
	// Now is the clock for report times; nil is time.Now.
	Now func() time.Time
	// HandoffGate, when set, says whether a tab can be handed to a person
	// now; when it cannot, the handoff obstacle policy acts as stop with the
	// gate's reason. Nil hands over always. The CLI's gate reads BUA_HANDOFF
	// and whether the browser serving the flow is a headless managed one.
	HandoffGate handoff.Gate
	// Dialogs is the dialog policy (Dialogs*) of a flow without a dialogs
	// key of its own (`bua run --dialogs`); "" leaves dialogs open.
	Dialogs string
	// worker is the index of the worker running the flow (RunParallel;
	// 0 in a serial run), set on each worker's copy of the Runner, with
	// parallel, which names the worker in the flow's progress line.
	worker   int
	parallel bool
	// handoffSleep shortens a handoff's waits in tests (nil: real time).
	handoffSleep func(context.Context, time.Duration) error
	// ExitCode, when set, maps a status to the caller's exit code; the
	// suite's JSON report then carries it as exitCode (suite and flows).
	// The runner itself speaks only in statuses.
	ExitCode func(report.Status) int
	// Hint, when set, is the next step shown under a protocol error in
	// progress and reports: the CLI passes its own (pkg/render/hints.go, by
	// code and reason), so a flow's error reads as the same command's would.
	// Nil uses the error contract's hint for the code (protocol.Lookup).
	Hint func(*protocol.Error) string
}

// WorkerIndexEnv is the name flows read their worker's index under
// (env.BUA_WORKER_INDEX, a string): 0 … N-1 in a run on N workers
// (RunParallel), 0 in a serial one, whatever the environment says: test
// data unique per worker (Playwright's TEST_WORKER_INDEX).
const WorkerIndexEnv = "BUA_WORKER_INDEX"

// getenv is env.NAME's value: the worker's index for WorkerIndexEnv, else
// Getenv's.
func (r *Runner) getenv(name string) string {
	if name == WorkerIndexEnv {
		return strconv.Itoa(r.worker)
	}
	if r.Getenv == nil {
		return ""
	}
	return r.Getenv(name)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
