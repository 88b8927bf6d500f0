package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// execSteps runs steps in order; path numbers them from 1 under prefix.
func (s *State) execSteps(ctx context.Context, steps []flow.Step, prefix string) error {
	for i, st := range steps {
		path := fmt.Sprint(i + 1)
		if prefix != "" {
			path = prefix + "." + path
		}
		if err := s.exec(ctx, st, path); err != nil {
			return err
		}
	}
	return nil
}

// exec runs one step with its modifiers and records it.
func (s *State) exec(ctx context.Context, st flow.Step, path string) error {
	m := st.Meta()
	rep := &report.StepReport{Path: path, Name: m.Name, Kind: m.Kind, File: m.File, Line: m.Line}
	if s.cur.Path != "" {
		rep.Depth = s.cur.Depth + 1 // nested in an if, repeat or run
	}
	s.rec.Steps = append(s.rec.Steps, rep)
	parent := s.cur
	s.cur = rep
	defer func() { s.cur = parent }()
	start := s.r.now()
	s.result = nil

	stepCtx := ctx // with the step's own timeout, when it has one
	err := func() error {
		// A step that only computes (set, assert, if) never waits, so the
		// flow's timeout and an interrupt are checked here, before each
		// step, or a busy repeat would never see them.
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		if m.If != nil {
			ok, err := m.If.EvalBool(s)
			if err != nil {
				return err
			}
			if !ok {
				rep.Status = report.StatusSkipped
				rep.Note = "if: false"
				return nil
			}
		}
		_, isAction := st.(*flow.ActionStep)
		if isLeaf(st) && !s.unlisted {
			s.stepStarted(rep, m)
		}
		if m.Timeout > 0 && !isAction {
			var cancel context.CancelFunc
			stepCtx, cancel = context.WithTimeoutCause(ctx, m.Timeout, protocol.Errorf(protocol.CodeTimeout, "step timed out after %s", m.Timeout))
			defer cancel()
		}
		return s.runStep(stepCtx, st)
	}()
	rep.Duration = s.r.now().Sub(start)
	if rep.Status == report.StatusSkipped {
		s.stepEnded(rep)
		return nil
	}
	if err == nil {
		rep.Status = report.StatusPassed
		rep.Flaky = len(rep.FailedAttempts) > 0
		if m.As != "" {
			s.env.Names[m.As] = s.result
		}
		s.stepEnded(rep)
		return nil
	}
	var se *report.StepError
	if !errors.As(err, &se) {
		if stepCtx != ctx && stepCtx.Err() != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = context.Cause(stepCtx) // the step's own timeout (a sleep's), not the flow's
		}
		se = &report.StepError{Flow: s.flow.Name, Step: m.Label(), File: m.File, Line: m.Line, Err: err}
		rep.Error = s.r.errorInfo(err)
	}
	rep.Status = classify(err)
	if m.ContinueOnError && !terminal(err) && ctx.Err() == nil {
		info := s.r.errorInfo(se.Err)
		s.env.Names["error"] = map[string]any{"code": string(info.Code), "message": info.Message}
		s.note("continued after error")
		s.stepEnded(rep)
		return nil
	}
	if rep.Error != nil {
		s.readFailingExprs(st, rep) // this step's own failure, not a nested one's
	}
	s.stepEnded(rep)
	return se
}

// stopped is the error of a step that ctx stopped, as context.Cause says
// why: a step's own timeout (a timeout *protocol.Error, as is), the flow's
// timeout, or the run's caller going away (Ctrl-C, SIGTERM).
func stopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	var be *protocol.Error
	if errors.As(cause, &be) {
		return cause
	}
	return fmt.Errorf("flow stopped: %w", cause)
}

func isLeaf(st flow.Step) bool {
	switch st.(type) {
	case *flow.IfStep, *flow.RepeatStep, *flow.RunStep:
		return false
	}
	return true
}

// request sends a on the current tab (unless it names one) with a
// per-attempt deadline: timeout, or the flow's defaults.timeout stretched
// to the action's own default (a long wait_for keeps its time).
func (s *State) request(ctx context.Context, a protocol.Action, timeout time.Duration) ([]byte, error) {
	if a.TabID == nil && s.shared.tab != nil && a.Type != protocol.ActionGetTabs && a.Type != protocol.ActionOpenTab {
		id := *s.shared.tab
		a.TabID = &id
		if s.cur.Params != nil {
			s.cur.Params["tabId"] = id
		}
	}
	if timeout == 0 {
		timeout = max(s.stepTimeout, protocol.DefaultTimeout(a))
	}
	actx, cancel := protocol.WithTimeout(ctx, timeout) // errors downstream state timeout
	defer cancel()
	raw, berr := s.send(actx, a) // under the flow's dialogs policy
	if berr != nil {
		if ctx.Err() != nil {
			// The flow's own deadline or a cancel, not this attempt's.
			return nil, stopped(ctx)
		}
		if actx.Err() != nil && berr.Code != protocol.CodeTimeout {
			return nil, protocol.Errorf(protocol.CodeTimeout, "%s did not answer within %s", a.Type, timeout)
		}
		return nil, berr
	}
	return raw, nil
}

// runBody runs a flow's steps, then on_failure when they failed or were
// blocked, then finally. A hook's failure is recorded but never replaces
// the steps' error; it fails a flow whose steps passed.
//
// When the run's caller stopped it (Ctrl-C, SIGTERM), neither evidence nor
// hooks run: the person or the CI job wants bua out now, and the reports
// are still to be written.
func (s *State) runBody(ctx context.Context) error {
	err := s.execSteps(ctx, s.flow.Steps, s.prefix)
	if err != nil && interrupted(ctx) {
		if len(s.flow.OnFailure)+len(s.flow.Finally) > 0 {
			s.rec.HookErrors = append(s.rec.HookErrors, "on_failure and finally did not run: the run was interrupted")
		}
		return err
	}
	status := classify(err)
	if err != nil && s.depth == 0 {
		s.gatherEvidence(ctx, err)
	}
	// Hooks get time of their own: the flow's deadline may be what failed.
	hookCtx, cancel := context.WithTimeout(s.shared.runCtx(), max(s.stepTimeout, time.Minute))
	defer cancel()
	if status == report.StatusFailed || status == report.StatusBlocked {
		if herr := s.execSteps(hookCtx, s.flow.OnFailure, joinPath(s.prefix, "on_failure")); herr != nil {
			s.rec.HookErrors = append(s.rec.HookErrors, herr.Error())
		}
	}
	if herr := s.execSteps(hookCtx, s.flow.Finally, joinPath(s.prefix, "finally")); herr != nil {
		s.rec.HookErrors = append(s.rec.HookErrors, herr.Error())
		if err == nil {
			err = herr
		}
	}
	return err
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
