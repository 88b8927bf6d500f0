package runner

import (
	"errors"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// hint is the next step for a protocol error: Runner.Hint's when set (the
// CLI's, by code and reason), else the error contract's for the code.
func (r *Runner) hint(be *protocol.Error) string {
	if r.Hint != nil {
		return r.Hint(be)
	}
	if c, ok := protocol.Lookup(be.Code); ok {
		return c.Next
	}
	return ""
}

func (r *Runner) errorInfo(err error) *report.ErrorInfo {
	var be *protocol.Error
	var ae *AssertionError
	var fe *FailError
	var oe *report.ObstacleError
	switch {
	case errors.As(err, &be):
		return &report.ErrorInfo{Code: be.Code, Message: be.Message, Hint: r.hint(be)}
	case errors.As(err, &ae):
		return &report.ErrorInfo{Code: "assertion", Message: strings.TrimPrefix(ae.Error(), "assertion failed: ")}
	case errors.As(err, &fe):
		return &report.ErrorInfo{Code: "fail", Message: fe.Message}
	case errors.As(err, &oe):
		return &report.ErrorInfo{Code: "obstacle", Message: oe.Error()}
	}
	return &report.ErrorInfo{Code: "error", Message: err.Error()}
}
