package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/protocol"
)

// progress reports a waiting action's progress to a client that gave a
// progressToken: every ProgressEvery, the time spent and the action's
// whole budget (milliseconds; the pool's deadline, DefaultTimeout), so a
// client that resets its own timeout on progress keeps waiting. Only
// navigate and wait_for wait long enough to report (and handoff, which
// reports itself). The returned stop ends the reports.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, a protocol.Action) (stop func()) {
	if a.Type != protocol.ActionNavigate && a.Type != protocol.ActionWaitFor {
		return func() {}
	}
	total := protocol.DefaultTimeout(a)
	if a.Type == protocol.ActionWaitFor && a.TimeoutMs != nil {
		total = time.Duration(*a.TimeoutMs) * time.Millisecond
	} else if a.Type == protocol.ActionWaitFor {
		total = protocol.DefaultWaitForTimeout
	}
	return s.report(ctx, req, total, func(spent time.Duration) string {
		return fmt.Sprintf("%s: %.1f s of %s", a.Type, spent.Seconds(), total)
	})
}

// report sends notifications/progress every ProgressEvery until stop, when
// req carries a progressToken; what words the message.
func (s *Server) report(ctx context.Context, req *mcp.CallToolRequest, total time.Duration, what func(time.Duration) string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(s.o.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				spent := time.Since(start)
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(spent.Milliseconds()),
					Total:         float64(total.Milliseconds()),
					Message:       what(spent),
				})
				if err != nil {
					s.o.Log.Debug("progress not sent", "err", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished // no report after the answer
	}
}
