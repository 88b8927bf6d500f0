package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// checkObstacle applies policy to the verdict of an extract result, result
// (read by ex): a handoff may replace result with the cleared page's.
func checkObstacle(ctx context.Context, s *State, ex protocol.Action, result *map[string]any, policy flow.ObstaclePolicy) error {
	o, ok := (*result)["obstacle"].(map[string]any)
	if !ok {
		return nil
	}
	typ, _ := o["type"].(string)
	conf, _ := o["confidence"].(string)
	msg, _ := o["message"].(string)
	action := policy.Low
	if conf == "high" {
		action = policy.High
	}
	if action == flow.PolicyHandoff {
		return s.handOver(ctx, ex, result, policy, &protocol.Obstacle{Type: protocol.ObstacleType(typ), Confidence: protocol.Confidence(conf), Message: msg})
	}
	if action == flow.PolicyStop {
		return &report.ObstacleError{Type: typ, Confidence: conf, Message: msg}
	}
	advisory := fmt.Sprintf("%s obstacle %s (%s): %s", conf, typ, "continued", msg)
	s.note(advisory)
	if conf == "high" {
		return nil // the flow chose to go on; a note, not an advisory
	}
	s.rec.Advisories = append(s.rec.Advisories, fmt.Sprintf("step %s: %s", s.cur.Path, advisory))
	return nil
}

// classify maps a flow's error to its status.
func classify(err error) report.Status {
	if err == nil {
		return report.StatusPassed
	}
	var le *flow.LoadError
	var oe *report.ObstacleError
	var be *protocol.Error
	switch {
	case errors.As(err, &le):
		return report.StatusInvalid
	case errors.As(err, &oe):
		return report.StatusBlocked
	case errors.As(err, &be) && be.Code == protocol.CodeDomainBlocked:
		return report.StatusBlocked
	case errors.As(err, &be) && be.Code == protocol.CodeBridgeUnavailable:
		return report.StatusUnavailable
	}
	return report.StatusFailed
}

// terminal reports whether err may not be swallowed by continue_on_error.
// A person's Stop is terminal too: they stopped bua on purpose
// (docs/cancellation.md#cancellation), so no policy of the flow's may carry on past it.
func terminal(err error) bool {
	st := classify(err)
	return st == report.StatusBlocked || st == report.StatusUnavailable || stoppedByPerson(err) != ""
}

// stoppedByPerson is the reason when err is the answer to a request the
// person stopped from the extension's popup (internal_error with reason
// user_stopped, or global_stop for Stop all, per docs/protocol.md#events and
// the schema's x-reasons), else "".
func stoppedByPerson(err error) string {
	var be *protocol.Error
	if errors.As(err, &be) && be.Code == protocol.CodeInternalError && (be.Reason == protocol.ReasonUserStopped || be.Reason == protocol.ReasonGlobalStop) {
		return be.Reason
	}
	return ""
}
