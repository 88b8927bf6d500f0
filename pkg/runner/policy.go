package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// RetryPolicy is a step's `retry`: up to Attempts sends in all, waiting
// Delay before the first retry and multiplying the wait by Backoff after
// each, for the error codes in On (default [timeout]). It also sets how
// many re-extract recoveries an element error gets: max(1, Attempts-1).
type RetryPolicy struct {
	Attempts int
	Delay    time.Duration
	Backoff  float64
	On       []protocol.ErrorCode
}

func (r *RetryPolicy) allows(code protocol.ErrorCode) bool {
	if r == nil {
		return false
	}
	for _, c := range r.On {
		if c == code {
			return true
		}
	}
	return false
}

// Obstacle policies.
const (
	PolicyStop     = "stop"
	PolicyContinue = "continue"
	// PolicyHandoff hands the tab to the person (pkg/handoff) and goes on
	// once they have cleared the page; it acts as PolicyStop when nobody
	// can be handed the browser (Runner.HandoffGate) or the person does not
	// clear it within the policy's Timeout.
	PolicyHandoff = "handoff"
)

// ObstaclePolicy says what a verdict of each confidence does to the flow:
// PolicyStop ends it with StatusBlocked, PolicyContinue goes on (a low
// verdict is then recorded as advisory), PolicyHandoff waits up to Timeout
// for a person to clear the page.
type ObstaclePolicy struct {
	High string `json:"high"`
	Low  string `json:"low"`
	// Timeout is how long a handoff waits for the person (`timeout:` in
	// obstacles; handoff.DefaultTimeout when zero). The flow's own timeout
	// still caps it.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// DefaultObstaclePolicy stops on high and continues on low.
var DefaultObstaclePolicy = ObstaclePolicy{High: PolicyStop, Low: PolicyContinue}

// override returns p with the fields o sets.
func (p ObstaclePolicy) override(o *ObstaclePolicy) ObstaclePolicy {
	if o == nil {
		return p
	}
	if o.High != "" {
		p.High = o.High
	}
	if o.Low != "" {
		p.Low = o.Low
	}
	if o.Timeout != 0 {
		p.Timeout = o.Timeout
	}
	return p
}

// ObstacleError ends a flow blocked because an extract's verdict met a stop
// policy: the flow's status is StatusBlocked.
type ObstacleError struct {
	Type       string `json:"type"`
	Confidence string `json:"confidence"`
	Message    string `json:"message"`
}

func (e *ObstacleError) Error() string {
	return fmt.Sprintf("blocked by obstacle %s (%s confidence): %s", e.Type, e.Confidence, e.Message)
}

// checkObstacle applies policy to the verdict of an extract result, result
// (read by ex): a handoff may replace result with the cleared page's.
func checkObstacle(ctx context.Context, s *State, ex protocol.Action, result *map[string]any, policy ObstaclePolicy) error {
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
	if action == PolicyHandoff {
		return s.handOver(ctx, ex, result, policy, &protocol.Obstacle{Type: protocol.ObstacleType(typ), Confidence: protocol.Confidence(conf), Message: msg})
	}
	if action == PolicyStop {
		return &ObstacleError{Type: typ, Confidence: conf, Message: msg}
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
func classify(err error) Status {
	if err == nil {
		return StatusPassed
	}
	var le *LoadError
	var oe *ObstacleError
	var be *protocol.Error
	switch {
	case errors.As(err, &le):
		return StatusInvalid
	case errors.As(err, &oe):
		return StatusBlocked
	case errors.As(err, &be) && be.Code == protocol.CodeDomainBlocked:
		return StatusBlocked
	case errors.As(err, &be) && be.Code == protocol.CodeBridgeUnavailable:
		return StatusUnavailable
	}
	return StatusFailed
}

// terminal reports whether err may not be swallowed by continue_on_error.
// A person's Stop is terminal too: they stopped bua on purpose
// (docs/cancellation.md#cancellation), so no policy of the flow's may carry on past it.
func terminal(err error) bool {
	st := classify(err)
	return st == StatusBlocked || st == StatusUnavailable || stoppedByPerson(err) != ""
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
