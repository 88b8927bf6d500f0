// Package event is what the flow engine (pkg/runner) reports while it
// runs a suite, as plain values: a flow's run starting and ending, each
// step starting and ending, a rerun, a line for the person. The engine
// emits them to a Sink and prints nothing itself; pkg/runner/progress is
// the sink that prints them as the progress lines of `bua run`.
package event

import (
	"fmt"
	"time"
)

// Event is one of this package's types: FlowStart, StepStart, StepEnd,
// FlowEnd, Rerun or Notice.
type Event interface{ event() }

// Sink receives events. The engine emits each as it happens, except in a
// parallel run, where a flow's run is emitted whole when it ends, so that
// flows running at once do not interleave: one call, several events.
type Sink interface {
	Emit(events ...Event)
}

// FlowStart is a run of a flow beginning: its attempt (1 for the first
// run, more for a rerun) and, in a parallel run, its worker's index.
type FlowStart struct {
	Name, File string
	Attempt    int
	Worker     int
	Parallel   bool
}

// StepStart is a leaf step beginning (not an if, repeat or run, whose
// children start instead), at Depth under the flow, as Path (1, 2.then.1,
// ...) and its label (name or kind). A parallel run emits none.
type StepStart struct {
	Depth       int
	Path, Label string
}

// StepEnd is a step ending, as the flow's report records it: its status
// ("passed", "failed", ... as report.Status), how long it took, its note
// and, when it failed, its error. Held says it is
// printed with the rest of its flow's run (a parallel run), so there is
// no running line to redraw. Mask masks the flow's secrets in the text
// made of it.
type StepEnd struct {
	Depth               int
	Path, Label, Status string
	Duration            time.Duration
	Note                string
	Error               *StepError
	Held                bool
	Mask                func(string) string
}

// StepError is a failed step's error: its code (an error code of
// docs/protocol.md#errors, or the runner's own for assertions and the
// like) and message.
type StepError struct {
	Code, Message string
}

// FlowEnd is a run of a flow ending, or a file that did not load
// (Diagnostics, each as its text): its status, duration and error
// (masked), whether it passed on a rerun (Flaky, with FlakyNote saying
// why) and the next step for its error (Hint).
type FlowEnd struct {
	Name, Status string
	Duration     time.Duration
	Error        string
	Diagnostics  []string
	Flaky        bool
	FlakyNote    string
	Hint         string
}

// Rerun is a failed flow about to run again: Attempt is the coming run,
// of at most Attempts.
type Rerun struct {
	Name              string
	Attempt, Attempts int
}

// Notice is a line for the person watching the run (a handoff waiting for
// them to clear the page).
type Notice struct {
	Text string
}

func (FlowStart) event() {}
func (StepStart) event() {}
func (StepEnd) event()   {}
func (FlowEnd) event()   {}
func (Rerun) event()     {}
func (Notice) event()    {}

// FormatDuration is how progress lines and reports print a flow's or a
// step's duration: whole milliseconds under a second ("850ms"), else
// seconds to one decimal ("2.3s").
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
