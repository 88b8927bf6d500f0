package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bua-dev/bua/internal/ctxtime"
)

// Step is one validated flow step. Run executes it against the flow's
// State; the runner's exec wraps it with the modifiers every step shares
// (if, timeout, continue_on_error, as) and records it in the report.
type Step interface {
	Meta() *StepMeta
	Run(ctx context.Context, s *State) error
}

// StepMeta is what every step carries: where it is, its kind, and the
// modifiers of the step grammar in docs/flows.md#steps.
type StepMeta struct {
	Name      string
	Kind      string // an action name, or if, assert, set, run, repeat, sleep, log, fail
	File      string
	Line, Col int
	As        string // binds the step's result for later expressions
	If        *Expr  // run the step only when true
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
	Cond       *Expr
	Then, Else []Step
}

// Run evaluates the condition and runs one branch.
func (st *IfStep) Run(ctx context.Context, s *State) error {
	ok, err := st.Cond.EvalBool(s)
	if err != nil {
		return err
	}
	if ok {
		s.note("then")
		return s.execSteps(ctx, st.Then, s.cur.Path+".then")
	}
	if st.Else != nil {
		s.note("else")
		return s.execSteps(ctx, st.Else, s.cur.Path+".else")
	}
	s.note("condition false")
	return nil
}

// AssertionError is a failed assert step. Values shows what the
// condition's operands evaluated to ("title is \"Login\""), so a CI log
// says why without a rerun. Its text gives the message first, whole, then
// the condition and its values as an assert without a message does: on
// the message's line ("assertion failed: MSG (EXPR): VALUES"), or on a
// line of their own after a message of several lines.
type AssertionError struct {
	Expr    string
	Message string
	Values  []string
}

func (e *AssertionError) Error() string {
	msg := "assertion failed: " + e.Expr
	switch {
	case strings.Contains(e.Message, "\n"):
		msg = "assertion failed: " + e.Message + "\n" + e.Expr
	case e.Message != "":
		msg = fmt.Sprintf("assertion failed: %s (%s)", e.Message, e.Expr)
	}
	if len(e.Values) > 0 {
		msg += ": " + strings.Join(e.Values, ", ")
	}
	return msg
}

// AssertStep fails the flow unless Cond holds.
type AssertStep struct {
	StepMeta
	Cond    *Expr
	Message *Template
}

// Run evaluates the assertion; on failure it evaluates the failing
// comparison's operands again to report their values.
func (st *AssertStep) Run(ctx context.Context, s *State) error {
	ok, err := st.Cond.EvalBool(s)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	ae := &AssertionError{Expr: st.Cond.Src, Values: st.Cond.explain(s)}
	if st.Message != nil {
		ae.Message, _ = st.Message.EvalString(s)
	}
	return ae
}

// SetStep assigns vars.NAME for each name, in order (a later value may read
// an earlier one).
type SetStep struct {
	StepMeta
	Names  []string
	Values []*Template
}

// Run evaluates and assigns each value.
func (st *SetStep) Run(ctx context.Context, s *State) error {
	for i, name := range st.Names {
		v, err := st.Values[i].Eval(s)
		if err != nil {
			return err
		}
		s.vars[name] = v
	}
	return nil
}

// RunStep runs a sub-flow (Path relative to the calling file) with its
// vars overridden by With. It shares the caller's current tab; its `as`
// names stay inside. It keeps the caller's obstacles, defaults.timeout and
// dialogs policies where it sets none (State.child), and its own timeout,
// when it sets one, bounds it within the caller's. Its result, for the
// caller's `as`, is the sub-flow's `last`.
type RunStep struct {
	StepMeta
	Path       string
	Sub        *Flow
	WithNames  []string
	WithValues []*Template
}

// Run evaluates With in the caller, then runs the sub-flow with its hooks.
func (st *RunStep) Run(ctx context.Context, s *State) error {
	with := map[string]any{}
	for i, name := range st.WithNames {
		v, err := st.WithValues[i].Eval(s)
		if err != nil {
			return err
		}
		with[name] = v
	}
	sub := s.child(st.Sub, s.cur.Path+".run")
	if err := sub.initVars(with, nil); err != nil {
		return err
	}
	if st.Sub.ownTimeout {
		// Its own timeout bounds it; without one, the caller's does.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, st.Sub.Timeout, fmt.Errorf("sub-flow %s timeout %s exceeded", st.Path, st.Sub.Timeout))
		defer cancel()
	}
	err := sub.runBody(ctx)
	s.setResult(sub.last)
	return err
}

// RepeatStep runs Steps Times times, or while While holds, or until Until
// holds (checked after each pass), at most Max passes for while/until.
type RepeatStep struct {
	StepMeta
	Times *Template
	While *Expr
	Until *Expr
	Max   int
	Steps []Step
}

// ErrRepeatMax is returned when a while/until loop reaches its max passes
// without its condition settling.
var ErrRepeatMax = errors.New("repeat reached max passes")

// The report keeps a repeat's passes while its flow has recorded fewer
// than maxListedSteps steps; after that it keeps only the latest pass (the
// one that failed, or the last), so a loop of a million passes holds one
// pass's records, not a million.
const maxListedSteps = 1000

// Run loops. Each pass checks ctx first, so the flow's timeout and an
// interrupt stop a loop whose body never waits (an empty one included).
func (st *RepeatStep) Run(ctx context.Context, s *State) error {
	n := st.Max
	if st.Times != nil {
		v, err := st.Times.Eval(s)
		if err != nil {
			return err
		}
		i, ok := toInt(v)
		if !ok || i < 0 {
			return fmt.Errorf("repeat.times: want a non-negative integer, got %v", v)
		}
		n = i
	}
	l := passLog{s: s, rep: s.cur, unlisted: s.unlisted, mark: -1}
	defer l.end()
	for pass := 1; pass <= n; pass++ {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		if st.While != nil {
			ok, err := st.While.EvalBool(s)
			if err != nil {
				return err
			}
			if !ok {
				s.note(fmt.Sprintf("%d passes", pass-1))
				return nil
			}
		}
		l.begin(pass)
		if err := s.execSteps(ctx, st.Steps, fmt.Sprintf("%s.%d", s.cur.Path, pass)); err != nil {
			return err
		}
		if st.Until != nil {
			ok, err := st.Until.EvalBool(s)
			if err != nil {
				return err
			}
			if ok {
				s.note(fmt.Sprintf("%d passes", pass))
				return nil
			}
		}
	}
	if st.Times != nil {
		s.note(fmt.Sprintf("%d passes", n))
		return nil
	}
	return fmt.Errorf("%w (%d) without its condition settling", ErrRepeatMax, n)
}

// passLog bounds what a repeat's passes leave in the report: once the
// flow holds maxListedSteps step records, each new pass drops the records
// of the pass before it, and the repeat's note says how many passes it
// left out.
type passLog struct {
	s        *State
	rep      *StepReport // the repeat's own, for the note
	unlisted bool        // the caller's s.unlisted, restored at end
	mark     int         // where the latest unlisted pass's records start; -1 before one
	dropped  int         // passes whose records were dropped
	first    int         // the first dropped pass
}

// begin starts pass: it drops the previous unlisted pass's records, and
// marks this pass unlisted once the flow's report is full.
func (l *passLog) begin(pass int) {
	s := l.s
	if l.mark >= 0 {
		clear(s.rec.Steps[l.mark:])
		s.rec.Steps = s.rec.Steps[:l.mark]
		if l.dropped == 0 {
			l.first = pass - 1
		}
		l.dropped++
	}
	if l.mark >= 0 || len(s.rec.Steps) >= maxListedSteps {
		l.mark = len(s.rec.Steps)
		s.unlisted = true
	}
}

// end restores the caller's listing and notes the dropped passes.
func (l *passLog) end() {
	l.s.unlisted = l.unlisted
	if l.dropped > 0 {
		last := l.first + l.dropped - 1
		note := fmt.Sprintf("passes %d to %d left out of the report", l.first, last)
		if l.dropped == 1 {
			note = fmt.Sprintf("pass %d left out of the report", l.first)
		}
		l.rep.Note = strings.TrimPrefix(l.rep.Note+"; "+note, "; ")
	}
}

// SleepStep waits D, or less if the flow is cancelled.
type SleepStep struct {
	StepMeta
	D time.Duration
}

// Run waits with a timer.
func (st *SleepStep) Run(ctx context.Context, s *State) error { return ctxtime.Sleep(ctx, st.D) }

// LogStep prints Msg to the progress output and records it in the report.
type LogStep struct {
	StepMeta
	Msg *Template
}

// Run interpolates and logs.
func (st *LogStep) Run(ctx context.Context, s *State) error {
	msg, err := st.Msg.EvalString(s)
	if err != nil {
		return err
	}
	s.note(msg) // printed with the step's progress line and in reports
	return nil
}

// FailError is a fail step's message.
type FailError struct{ Message string }

func (e *FailError) Error() string { return e.Message }

// FailStep fails the flow with Msg.
type FailStep struct {
	StepMeta
	Msg *Template
}

// Run interpolates and fails.
func (st *FailStep) Run(ctx context.Context, s *State) error {
	msg, err := st.Msg.EvalString(s)
	if err != nil {
		return err
	}
	return &FailError{Message: msg}
}
