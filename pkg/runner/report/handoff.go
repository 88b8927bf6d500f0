package report

import (
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/runner/event"
)

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
