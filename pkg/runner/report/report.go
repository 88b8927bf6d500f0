package report

import (
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
)

// ErrorInfo is an error as reports show it: a protocol code when there is
// one (else "assertion", "fail", "obstacle" or "error"), the message and
// the hint (the engine's Runner.hint).
type ErrorInfo struct {
	Code    protocol.ErrorCode `json:"code"`
	Message string             `json:"message"`
	Hint    string             `json:"hint,omitempty"`
}

// StepReport is one executed (or skipped) step. Path numbers it within its
// flow ("3", "3.then.1", "4.run.2", "finally.1"); Depth is its nesting.
type StepReport struct {
	Path     string        `json:"path"`
	Name     string        `json:"name,omitempty"`
	Kind     string        `json:"kind"`
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Depth    int           `json:"depth,omitempty"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"-"`
	// Params are the action's params after interpolation.
	Params   map[string]any `json:"params,omitempty"`
	Result   any            `json:"result,omitempty"`
	Error    *ErrorInfo     `json:"error,omitempty"`
	Note     string         `json:"note,omitempty"`
	Attempts int            `json:"attempts,omitempty"`
	// Handoff is set when the step's page was handed to a person (the
	// handoff obstacle policy): the outcome and how long they took.
	Handoff *HandoffReport `json:"handoff,omitempty"`
	// Dialogs are the page dialogs the flow's dialogs policy answered
	// while the step ran, in order.
	Dialogs []DialogReport `json:"dialogs,omitempty"`
	// Artifacts are the files of this step's evidence bundle (bundle.go),
	// when it failed the flow and --artifacts was given, in the OS's form;
	// reports write them slash-separated (ReportPath).
	Artifacts []string `json:"artifacts,omitempty"`
	// FailedAttempts are the attempts its retry policy sent again, each
	// with its error; Flaky is set when one was followed by a pass (see
	// flaky.go).
	FailedAttempts []AttemptError `json:"failedAttempts,omitempty"`
	Flaky          bool           `json:"flaky,omitempty"`
	// Evidence is what was gathered when this step failed the flow (nil
	// otherwise, or when neither Artifacts nor runner.Runner.Evidence asked).
	Evidence *Evidence `json:"-"`
}

// Label is the step's name, or its kind when it has none.
func (r *StepReport) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Kind
}

// FlowReport is one flow's outcome.
type FlowReport struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Status   Status        `json:"status"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"-"`
	Error    string        `json:"error,omitempty"`
	// Reason is the cause alone, without the step's location.
	Reason string `json:"reason,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// FailedStep and FailedLine name the step that failed the flow.
	FailedStep  string           `json:"failedStep,omitempty"`
	FailedLine  int              `json:"failedLine,omitempty"`
	Obstacle    *ObstacleError   `json:"obstacle,omitempty"`
	Advisories  []string         `json:"advisories,omitempty"`
	HookErrors  []string         `json:"hookErrors,omitempty"`
	Diagnostics flow.Diagnostics `json:"diagnostics,omitempty"`
	Steps       []*StepReport    `json:"steps"`
	// Attempts counts the runs of the flow (1 + its reruns under
	// runner.Runner.Retries); FailedAttempts are the runs before the last one,
	// which all failed. Flaky: the flow passed after a failed run or a
	// flaky step (flaky.go).
	Attempts int `json:"attempts,omitempty"`
	// Tags are the flow's `tags`.
	Tags []string `json:"tags,omitempty"`
	// Shard is the --shard I/N of the run that ran the flow, set by Merge
	// (merge.go) in a merged report; "" otherwise.
	Shard string `json:"shard,omitempty"`
	// Worker is the index of the worker that ran the flow in a parallel
	// run (runner.Runner.RunParallel), nil in a serial one.
	Worker         *int          `json:"worker,omitempty"`
	FailedAttempts []*FlowReport `json:"-"`
	Flaky          bool          `json:"-"`

	// Masker masks the flow's secrets in what its report shows (nil
	// masks nothing): the engine's, for the run's values.
	Masker *Masker `json:"-"`
	// StoppedBy is the reason when the person stopped the flow from the
	// extension's popup (the engine's stoppedByPerson), else "".
	StoppedBy string `json:"-"`
	// WriteErrors are the evidence files it could not write (runner.Runner.RunSuite
	// gathers them into SuiteReport.Problems).
	WriteErrors []string `json:"-"`
}

// SuiteReport is one `bua run`: every flow in order.
type SuiteReport struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"-"`
	Flows    []*FlowReport `json:"flows"`
	// Interrupted is set when the run's caller stopped it (the context
	// runner.Runner.RunSuite was given was cancelled: Ctrl-C, SIGTERM). The flow that
	// was running is StatusInterrupted, the ones after it skipped.
	Interrupted bool `json:"-"`
	// Problems are the files the run could not write, each naming the path
	// and the OS error: evidence bundles (--artifacts), then what the
	// caller adds (the CLI's --report files); in a merged report, the
	// inputs' too. Any makes Exit fail.
	Problems []string `json:"-"`
	// MissingShards are the shards ("3/4") of a merged report's I/N
	// splits that none of its inputs ran (Merge): their flows are not in
	// it, so Exit fails as for an invalid flow.
	MissingShards []string `json:"-"`
	// ExitCode is runner.Runner.ExitCode: when set, WriteJSON adds each flow's
	// and the suite's exit code (Exit). nil leaves exitCode out.
	ExitCode func(Status) int `json:"-"`

	// Bua, Host and Shard say which run wrote the report, so that the
	// reports of several shards can be merged (merge.go): the bua version,
	// the machine's host name and --shard's "I/N" ("" when not sharded).
	// The CLI sets them; the runner does not know them.
	Bua, Host, Shard string `json:"-"`
	// WorkDir is the run's working directory relative to the directory of
	// the JSON report being written, slash-separated ("." or ".."):
	// relative artifact paths start there, so a merge on another machine
	// finds them beside the report (ReadJSONFile). The CLI sets it for each
	// JSON file it writes; "" (stdout) means the report's own directory.
	WorkDir string `json:"-"`
	// Shards are a merged report's inputs (Merge); nil for a run.
	Shards []ShardInfo `json:"-"`
	// Source is the JSON file the report was read from (ReadJSONFile), for
	// messages; "" for a run.
	Source string `json:"-"`
}

// Exit is the run's exit code on ExitCode's scale (0 when ExitCode is
// nil): its Status's, raised to an invalid flow's when a file could not
// be written (Problems) or a shard is missing (MissingShards), so CI
// never takes a missing report for a pass.
func (s *SuiteReport) Exit() int {
	if s.ExitCode == nil {
		return 0
	}
	code := s.ExitCode(s.Status())
	if len(s.Problems) > 0 || len(s.MissingShards) > 0 {
		code = max(code, s.ExitCode(StatusInvalid))
	}
	return code
}

// Counts returns how many flows passed, failed (any other status) and were
// skipped.
func (s *SuiteReport) Counts() (passed, failed, skipped int) {
	for _, f := range s.Flows {
		switch f.Status {
		case StatusPassed:
			passed++
		case StatusSkipped:
			skipped++
		default:
			failed++
		}
	}
	return
}

// DialogReport is one dialog the flow's policy answered, in the step
// that met it.
type DialogReport struct {
	Type    string `json:"type"` // alert, confirm, prompt or beforeunload
	Message string `json:"message"`
	How     string `json:"how"` // accepted or dismissed
}

// HandoffReport records a step whose page was handed to the person under
// the handoff obstacle policy: which obstacle, how it ended (resolved or
// abandoned) and how long the person took.
type HandoffReport struct {
	TabID    int    `json:"tabId"`
	Obstacle string `json:"obstacle"`
	Outcome  string `json:"outcome"`
	WaitedMs int64  `json:"waitedMs"`
}

// String is the report's note: "handed over (captcha): resolved after 4.1s".
func (h *HandoffReport) String() string {
	return fmt.Sprintf("handed over (%s): %s after %s", h.Obstacle, h.Outcome, event.FormatDuration(time.Duration(h.WaitedMs)*time.Millisecond))
}
