package flow

import (
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

// Allows reports whether the policy retries code (a nil policy retries
// nothing).
func (r *RetryPolicy) Allows(code protocol.ErrorCode) bool {
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
	// can be handed the browser (runner.Runner.HandoffGate) or the person does not
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

// Override returns p with the fields o sets (a nil o sets none): a
// step's or a sub-flow's own keys over the policy in force.
func (p ObstaclePolicy) Override(o *ObstaclePolicy) ObstaclePolicy {
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

// Dialog policies (a flow's `dialogs:`): what the runner does with a
// page's alert, confirm, prompt or beforeunload that an action meets.
// DialogsLeave, the default, leaves it open, as docs/protocol.md#dialogs leaves
// page dialogs alone: the action fails, naming the dialog. pkg/dialogs
// applies them.
const (
	DialogsAccept  = protocol.DialogsAccept
	DialogsDismiss = protocol.DialogsDismiss
	DialogsLeave   = protocol.DialogsLeave
)
