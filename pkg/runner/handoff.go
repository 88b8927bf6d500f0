package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// handOver runs the handoff policy for verdict, read by ex into *result: it
// acts as stop when the Runner's HandoffGate says nobody can be handed the
// browser; else it hands the tab over (handoff.Wait) and, once the person
// has cleared the page, replaces *result with the cleared page's extract
// and applies the policy to what that shows. A person who does not clear it
// in time ends the flow blocked with the verdict.
func (s *State) handOver(ctx context.Context, ex protocol.Action, result *map[string]any, policy flow.ObstaclePolicy, verdict *protocol.Obstacle) error {
	stop := &report.ObstacleError{Type: string(verdict.Type), Confidence: string(verdict.Confidence), Message: verdict.Message}
	if s.r.HandoffGate != nil {
		if err := s.r.HandoffGate(ctx); err != nil {
			stop.Message += " (the handoff policy acts as stop: " + err.Error() + ")"
			return stop
		}
	}
	tab, ok := expr.ToInt((*result)["tabId"])
	if !ok && ex.TabID != nil {
		tab, ok = *ex.TabID, true
	}
	if !ok {
		stop.Message += " (the handoff policy acts as stop: the extract result names no tab to hand over)"
		return stop
	}
	timeout := policy.Timeout
	if timeout <= 0 {
		timeout = handoff.DefaultTimeout
	}
	needs := func(o *protocol.Obstacle) bool {
		if o == nil {
			return false
		}
		if o.Confidence == "high" {
			return policy.High == flow.PolicyHandoff
		}
		return policy.Low == flow.PolicyHandoff
	}
	s.r.emit(event.Notice{Text: fmt.Sprintf("%s on tab %d: waiting up to %s for a person to clear it in the browser", verdict.Type, tab, timeout)})
	out, err := handoff.Wait(ctx, s.r.Requester, tab, verdict, handoff.Options{Extract: ex, Timeout: timeout, Needs: needs, Sleep: s.r.handoffSleep})
	rep := &report.HandoffReport{TabID: tab, Obstacle: string(verdict.Type), Outcome: protocol.HandoffAbandoned, WaitedMs: out.Waited.Milliseconds()}
	if out.Resolved {
		rep.Outcome = protocol.HandoffResolved
	}
	s.cur.Handoff = rep
	s.note(rep.String())
	if err != nil {
		return err
	}
	if !out.Resolved {
		if out.Verdict != nil {
			stop = &report.ObstacleError{Type: string(out.Verdict.Type), Confidence: string(out.Verdict.Confidence), Message: out.Verdict.Message}
		}
		stop.Message += fmt.Sprintf(" (handed to a person, who did not clear it within %s)", timeout)
		return stop
	}
	var cleared map[string]any
	if err := json.Unmarshal(out.Result, &cleared); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "extract result is not JSON: %v", err)
	}
	*result = cleared
	// What the cleared page shows now goes through the policy too (a
	// login wall behind the captcha may stop the flow).
	return checkObstacle(ctx, s, ex, result, policy)
}
