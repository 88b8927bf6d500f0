package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bua-dev/bua/internal/ctxtime"
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// runStep runs st by its type: the engine's half of each step type the
// loader (pkg/flow) builds as data. exec wraps it with the modifiers every
// step shares.
func (s *State) runStep(ctx context.Context, st flow.Step) error {
	switch st := st.(type) {
	case *flow.ActionStep:
		return s.runAction(ctx, st)
	case *flow.IfStep:
		return s.runIf(ctx, st)
	case *flow.AssertStep:
		return s.runAssert(ctx, st)
	case *flow.SetStep:
		return s.runSet(ctx, st)
	case *flow.RunStep:
		return s.runSub(ctx, st)
	case *flow.RepeatStep:
		return s.runRepeat(ctx, st)
	case *flow.SleepStep:
		return s.runSleep(ctx, st)
	case *flow.LogStep:
		return s.runLog(ctx, st)
	case *flow.FailStep:
		return s.runFail(ctx, st)
	}
	return fmt.Errorf("step %s: no engine for %T", st.Meta().Label(), st)
}

// runIf evaluates the condition and runs one branch.
func (s *State) runIf(ctx context.Context, st *flow.IfStep) error {
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

// runAssert evaluates the assertion; on failure it evaluates the failing
// comparison's operands again to report their values.
func (s *State) runAssert(ctx context.Context, st *flow.AssertStep) error {
	ok, err := st.Cond.EvalBool(s)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	ae := &AssertionError{Expr: st.Cond.Src, Values: st.Cond.Explain(s)}
	if st.Message != nil {
		ae.Message, _ = st.Message.EvalString(s)
	}
	return ae
}

// runSet evaluates and assigns each value.
func (s *State) runSet(ctx context.Context, st *flow.SetStep) error {
	for i, name := range st.Names {
		v, err := st.Values[i].Eval(s)
		if err != nil {
			return err
		}
		s.vars[name] = v
	}
	return nil
}

// runSub evaluates With in the caller, then runs the sub-flow with its hooks.
func (s *State) runSub(ctx context.Context, st *flow.RunStep) error {
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
	if st.Sub.OwnTimeout {
		// Its own timeout bounds it; without one, the caller's does.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, st.Sub.Timeout, fmt.Errorf("sub-flow %s timeout %s exceeded", st.Path, st.Sub.Timeout))
		defer cancel()
	}
	err := sub.runBody(ctx)
	s.setResult(sub.last)
	return err
}

// ErrRepeatMax is returned when a while/until loop reaches its max passes
// without its condition settling.
var ErrRepeatMax = errors.New("repeat reached max passes")

// The report keeps a repeat's passes while its flow has recorded fewer
// than maxListedSteps steps; after that it keeps only the latest pass (the
// one that failed, or the last), so a loop of a million passes holds one
// pass's records, not a million.
const maxListedSteps = 1000

// runRepeat loops. Each pass checks ctx first, so the flow's timeout and an
// interrupt stop a loop whose body never waits (an empty one included).
func (s *State) runRepeat(ctx context.Context, st *flow.RepeatStep) error {
	n := st.Max
	if st.Times != nil {
		v, err := st.Times.Eval(s)
		if err != nil {
			return err
		}
		i, ok := expr.ToInt(v)
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
	rep      *report.StepReport // the repeat's own, for the note
	unlisted bool               // the caller's s.unlisted, restored at end
	mark     int                // where the latest unlisted pass's records start; -1 before one
	dropped  int                // passes whose records were dropped
	first    int                // the first dropped pass
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

// runSleep waits with a timer.
func (s *State) runSleep(ctx context.Context, st *flow.SleepStep) error {
	return ctxtime.Sleep(ctx, st.D)
}

// runLog interpolates and logs.
func (s *State) runLog(ctx context.Context, st *flow.LogStep) error {
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

// runFail interpolates and fails.
func (s *State) runFail(ctx context.Context, st *flow.FailStep) error {
	msg, err := st.Msg.EvalString(s)
	if err != nil {
		return err
	}
	return &FailError{Message: msg}
}
