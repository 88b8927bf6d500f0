package flow

import (
	"time"

	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Step is one validated flow step, as data: one of the *...Step types of
// this file. The engine (pkg/runner) runs each by its type, with the
// modifiers every step shares (if, timeout, continue_on_error, as).
type Step interface {
	Meta() *StepMeta
}

// StepMeta is what every step carries: where it is, its kind, and the
// modifiers of the step grammar in README §Writing flows (Steps).
type StepMeta struct {
	Name      string
	Kind      string // an action name, or if, assert, set, run, repeat, sleep, log, fail
	File      string
	Line, Col int
	As        string     // binds the step's result for later expressions
	If        *expr.Expr // run the step only when true
	// Timeout bounds one attempt of an action step, or the whole of any
	// other step; 0 means the flow's defaults.timeout for actions, none
	// otherwise.
	Timeout         time.Duration
	Retry           *RetryPolicy
	ContinueOnError bool
}

// Meta returns m itself, so embedding StepMeta satisfies Step.Meta.
func (m *StepMeta) Meta() *StepMeta { return m }

// Label is the step's name, or its kind when it has none.
func (m *StepMeta) Label() string {
	if m.Name != "" {
		return m.Name
	}
	return m.Kind
}

// IfStep runs Then when Cond holds, else Else.
type IfStep struct {
	StepMeta
	Cond       *expr.Expr
	Then, Else []Step
}

// AssertStep fails the flow unless Cond holds.
type AssertStep struct {
	StepMeta
	Cond    *expr.Expr
	Message *expr.Template
}

// SetStep assigns vars.NAME for each name, in order (a later value may read
// an earlier one).
type SetStep struct {
	StepMeta
	Names  []string
	Values []*expr.Template
}

// RunStep runs a sub-flow (Path relative to the calling file) with its
// vars overridden by With. It shares the caller's current tab; its `as`
// names stay inside. It keeps the caller's obstacles, defaults.timeout and
// dialogs policies where it sets none (pkg/runner's State.child), and its own timeout,
// when it sets one, bounds it within the caller's. Its result, for the
// caller's `as`, is the sub-flow's `last`.
type RunStep struct {
	StepMeta
	Path       string
	Sub        *Flow
	WithNames  []string
	WithValues []*expr.Template
}

// RepeatStep runs Steps Times times, or while While holds, or until Until
// holds (checked after each pass), at most Max passes for while/until.
type RepeatStep struct {
	StepMeta
	Times *expr.Template
	While *expr.Expr
	Until *expr.Expr
	Max   int
	Steps []Step
}

// SleepStep waits D, or less if the flow is cancelled.
type SleepStep struct {
	StepMeta
	D time.Duration
}

// LogStep prints Msg to the progress output and records it in the report.
type LogStep struct {
	StepMeta
	Msg *expr.Template
}

// FailStep fails the flow with Msg.
type FailStep struct {
	StepMeta
	Msg *expr.Template
}

// Param is one action param: its protocol name ("target" stands for uid or
// selector, chosen by protocol.ParseTarget) and its value.
type Param struct {
	Name  string
	Value *expr.Template
}

// ActionStep is one protocol action with its params as templates: the
// engine builds the Action from them and sends it under the error
// contract (pkg/runner's steps_action.go).
type ActionStep struct {
	StepMeta
	Type   protocol.ActionType
	Params []Param
	// Obstacles overrides the flow's obstacle policy (extract only).
	Obstacles *ObstaclePolicy
}
