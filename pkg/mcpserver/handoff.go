package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// handoff is the tool's handoff action: the whole of the CLI's `bua
// wait-for-human`. It reads the tab; when a high-confidence obstacle is
// there, it hands the tab to the person (handoff.Wait: the tab comes to
// where they look, the extension shows "bua needs you") and answers the
// page they cleared, or, when nobody cleared it in time or nobody can see
// the browser (a headless managed one), an error whose next step is to
// stop and tell the person.
func (s *Server) handoff(ctx context.Context, req *mcp.CallToolRequest, c *call) *mcp.CallToolResult {
	ex := protocol.Extract("")
	ex.TabID = c.action.TabID
	if perr := s.boundaries(ctx, &call{action: ex}); perr != nil {
		return s.failed(perr, nil)
	}
	res, perr := s.o.Requester.Request(ctx, ex)
	if perr != nil {
		return s.failed(perr, nil)
	}
	var r protocol.ExtractResult
	if err := json.Unmarshal(res, &r); err != nil {
		return s.failed(protocol.Errorf(protocol.CodeInternalError, "extract's answer does not decode: %v", err), nil)
	}
	if r.TabID == nil {
		return s.failed(protocol.Errorf(protocol.CodeInternalError, "extract's answer names no tab to hand over"), nil)
	}
	tab := *r.TabID
	if !handoff.HighOnly(r.Obstacle) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("handoff: tab %d shows no obstacle that needs a person; nothing was handed over", tab)}},
			StructuredContent: map[string]any{"tabId": tab, "outcome": "none"},
		}
	}
	v := r.Obstacle
	if s.o.HandoffGate != nil {
		if err := s.o.HandoffGate(ctx); err != nil {
			e := protocol.Errorf(protocol.CodeDomainBlocked, "%s (%s) on tab %d, and nobody can be handed the browser: %v", v.Type, v.Confidence, tab, err)
			e.Reason = "handoff_unavailable"
			return s.failedNext(e, "stop and tell the person: this page needs them, and they cannot see the browser bua drives")
		}
	}
	stop := s.report(ctx, req, s.o.HandoffTimeout, func(spent time.Duration) string {
		return fmt.Sprintf("waiting for the person to clear the %s: %s of %s", v.Type, spent.Round(time.Second), s.o.HandoffTimeout)
	})
	out, err := handoff.Wait(ctx, s.o.Requester, tab, v, handoff.Options{Extract: protocol.Extract(""), Timeout: s.o.HandoffTimeout})
	stop()
	if err != nil {
		if pe, ok := err.(*protocol.Error); ok {
			return s.failed(pe, nil)
		}
		return s.failed(protocol.Errorf(protocol.CodeInternalError, "%v", err), nil)
	}
	if !out.Resolved {
		if out.Verdict != nil {
			v = out.Verdict
		}
		e := protocol.Errorf(protocol.CodeDomainBlocked, "%s (%s) on tab %d: nobody cleared it within %s, and the tab went back", v.Type, v.Confidence, tab, s.o.HandoffTimeout)
		e.Reason = "handoff_timeout"
		return s.failedNext(e, "stop and tell the person what the page needs; call handoff again when they are ready")
	}
	var cleared protocol.ExtractResult
	_ = json.Unmarshal(out.Result, &cleared)
	var b strings.Builder
	fmt.Fprintf(&b, "handoff: the person cleared the %s on tab %d after %s; the page now:\n", v.Type, tab, out.Waited.Round(100*time.Millisecond))
	render.Extract(&b, cleared, render.ExtractOptions{Terms: render.Agent, Fence: s.fence, Where: true})
	st := structuredOf(protocol.ActionExtract, out.Result)
	st["handoff"] = map[string]any{"outcome": protocol.HandoffResolved, "waitedMs": out.Waited.Milliseconds(), "obstacle": v.Type}
	// Recorded as the handoff it made, so the flow's obstacle policy
	// hands this obstacle to the person too.
	handed := protocol.Handoff(protocol.HandoffRequested, string(v.Type), "").OnTab(tab)
	s.record(Step{Action: handed, Result: out.Result, URLBefore: r.URL, URLAfter: cleared.URL, Title: cleared.Title, Time: time.Now()})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}}, StructuredContent: st}
}

// failedNext is failed with a next step of the server's own, for a
// failure that is not a protocol error code's (the person is needed).
func (s *Server) failedNext(e *protocol.Error, next string) *mcp.CallToolResult {
	r := s.failed(e, map[string]any{"next": next})
	r.Content = []mcp.Content{&mcp.TextContent{Text: "error[" + string(e.Code) + "]: " + e.Message + "\nnext: " + next}}
	return r
}
