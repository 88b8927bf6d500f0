package report

import (
	"fmt"
)

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
