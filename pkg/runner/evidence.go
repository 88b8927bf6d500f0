package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// gathers reports whether the runner collects evidence for failed steps:
// for the bundle (Artifacts) or the HTML report (Evidence).
func (r *Runner) gathers() bool { return r.Artifacts != "" || r.Evidence }

// failingExprs are the conditions of st that can fail it: its if modifier,
// an assert's or if's condition, a repeat's while and until.
func failingExprs(st flow.Step) []*expr.Expr {
	var out []*expr.Expr
	if m := st.Meta(); m.If != nil {
		out = append(out, m.If)
	}
	switch x := st.(type) {
	case *flow.AssertStep:
		out = append(out, x.Cond)
	case *flow.IfStep:
		out = append(out, x.Cond)
	case *flow.RepeatStep:
		if x.While != nil {
			out = append(out, x.While)
		}
		if x.Until != nil {
			out = append(out, x.Until)
		}
	}
	return out
}

// readFailingExprs records, on the step that just failed, the value of
// every name its conditions read, evaluated in the state the step ran in
// (a sub-flow's names stay inside it).
func (s *State) readFailingExprs(st flow.Step, rep *report.StepReport) {
	if !s.r.gathers() {
		return
	}
	ev := &report.Evidence{}
	for _, e := range failingExprs(st) {
		ev.Exprs = append(ev.Exprs, report.ExprReads{Src: s.shared.masker.Mask(e.Src), Values: s.readValues(e)})
	}
	rep.Evidence = ev
}

// failedStep is the step that failed the flow: the last one recorded with
// an error of its own (an if, repeat or run around it has none).
func (s *State) failedStep() *report.StepReport {
	for i := len(s.rec.Steps) - 1; i >= 0; i-- {
		if st := s.rec.Steps[i]; st.Status != report.StatusPassed && st.Status != report.StatusSkipped && st.Error != nil {
			return st
		}
	}
	return nil
}

// captureTimeout bounds the evidence capture (screenshot, extract, trace)
// as a whole: the flow's own deadline may be what failed.
const captureTimeout = 20 * time.Second

// gatherEvidence captures, for the step that failed the flow, the current
// tab's screenshot, its extract and its trace since the flow started, and
// writes the bundle when Artifacts is set. A failure to capture is noted,
// never fatal: the step's error stays the flow's outcome.
func (s *State) gatherEvidence(ctx context.Context, cause error) {
	if !s.r.gathers() || classify(cause) == report.StatusUnavailable {
		return
	}
	failed := s.failedStep()
	if failed == nil {
		return
	}
	if failed.Evidence == nil {
		failed.Evidence = &report.Evidence{}
	}
	ev := failed.Evidence
	actx, cancel := context.WithTimeout(s.shared.runCtx(), captureTimeout)
	defer cancel()
	onTab := func(a protocol.Action) protocol.Action {
		if s.shared.tab != nil {
			return a.OnTab(*s.shared.tab)
		}
		return a
	}
	mask := s.shared.masker

	if raw, berr := s.r.Requester.Request(actx, onTab(protocol.Screenshot(false))); berr != nil {
		ev.Notes = append(ev.Notes, "screenshot failed: "+mask.Mask(berr.Error()))
	} else {
		var res protocol.ScreenshotResult
		_ = json.Unmarshal(raw, &res)
		_, b64, _ := strings.Cut(res.DataURL, ",")
		if img, err := base64.StdEncoding.DecodeString(b64); err == nil && len(img) > 0 {
			ev.Screenshot = img
		} else {
			ev.Notes = append(ev.Notes, "screenshot failed: the result holds no base64 image")
		}
	}

	if raw, berr := s.r.Requester.Request(actx, onTab(protocol.Action{Type: protocol.ActionExtract})); berr == nil {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			ev.Extract, ev.ExtractSource = m, "at failure"
		}
	} else {
		ev.Notes = append(ev.Notes, "extract at failure failed: "+mask.Mask(berr.Error()))
	}
	if ev.Extract == nil && s.shared.lastExtract != nil {
		ev.Extract, ev.ExtractSource = s.shared.lastExtract, "last extract"
	}
	if ev.Extract != nil {
		ev.Extract, _ = mask.MaskValue(ev.Extract).(map[string]any)
	}

	s.readTrace(actx, ev, onTab(protocol.GetTrace(0)))

	if s.r.Artifacts != "" {
		for _, err := range s.writeBundle(failed) {
			ev.Notes = append(ev.Notes, "bundle: "+err.Error())
			s.rec.HookErrors = append(s.rec.HookErrors, "artifacts: "+err.Error())
			s.rec.WriteErrors = append(s.rec.WriteErrors, "artifact "+err.Error())
		}
	}
	if len(ev.Notes) > 0 {
		failed.Note = strings.TrimPrefix(failed.Note+"; "+strings.Join(ev.Notes, "; "), "; ")
	}
}

// readTrace reads the tab's trace and keeps the events since the flow
// started, masked. An extension without the trace feature (the daemon
// refuses get_trace with invalid_action) leaves a note, not an error.
func (s *State) readTrace(ctx context.Context, ev *report.Evidence, a protocol.Action) {
	raw, berr := s.r.Requester.Request(ctx, a)
	if berr != nil {
		if berr.Code == protocol.CodeInvalidAction {
			ev.TraceNote = "no trace: the extension does not support get_trace (feature trace): " + berr.Message
		} else {
			ev.TraceNote = "no trace: get_trace failed: " + s.shared.masker.Mask(berr.Error())
		}
		return
	}
	var res protocol.TraceResult
	if err := json.Unmarshal(raw, &res); err != nil {
		ev.TraceNote = fmt.Sprintf("no trace: get_trace result is not JSON: %v", err)
		return
	}
	since := float64(s.rec.Started.UnixMilli())
	m := s.shared.masker
	for _, e := range res.Events {
		if e.T < since {
			continue
		}
		e.Text, e.URL, e.ErrorText = m.Mask(e.Text), m.Mask(e.URL), m.Mask(e.ErrorText)
		ev.Trace = append(ev.Trace, e)
	}
	ev.TraceDropped = res.Dropped
}

// readValues evaluates every name e reads in s, for the evidence bundle:
// values are elided like the JSON report's results and secrets masked.
func (s *State) readValues(e *expr.Expr) []report.ExprValue {
	var out []report.ExprValue
	for _, sub := range e.Reads() {
		v, err := sub.Eval(s)
		ev := report.ExprValue{Src: sub.Src}
		if err != nil {
			ev.Error = s.shared.masker.Mask(err.Error())
		} else {
			ev.Value = s.shared.masker.MaskValue(report.Elide(toJSONShape(v)))
		}
		out = append(out, ev)
	}
	return out
}

// toJSONShape turns an expression value into the JSON shapes the masker
// and elide walk (maps, []any, strings, float64, bool, nil), all the way
// down, so no string escapes the masker inside a []string or a struct.
func toJSONShape(v any) any {
	switch v.(type) {
	case nil, string, bool, float64:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return fmt.Sprint(v)
	}
	return out
}
