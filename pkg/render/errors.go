package render

import (
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// EndHints are internal_error's next steps by the session-end reason the
// extension gives (schema error.reason x-reasons): the person, or their
// computer, ended the session while the request ran, so bua says who did
// and what to do rather than blaming itself. The words name no command,
// so the CLI and an agent share them.
var EndHints = map[string]string{
	protocol.ReasonUserStopped:      "the person pressed Stop on this tab in the bua extension: they want it left alone, so ask them before acting on that tab again",
	protocol.ReasonGlobalStop:       "the person pressed Stop all in the bua extension: every bua session ended; ask them before running anything again",
	protocol.ReasonDomainBlocked:    "the person blocked this tab's domain while the action ran: this is intentional, do not retry on that domain",
	protocol.ReasonDebuggerDetached: "the debugger was detached (Chrome's Cancel bar, DevTools, or another extension): close DevTools on that tab and retry once; if the person pressed Cancel, ask them first",
	protocol.ReasonSystemIdle:       "the computer went idle, so the extension ended its sessions: retry when the person is back",
	protocol.ReasonScreenLocked:     "the screen was locked, so the extension ended its sessions: retry when the person has unlocked it",
}

// NetHint is the next step for a page that could not load (a net:: error
// name as the reason): the page's fault or the network's, not bua's. ""
// for any other reason.
func NetHint(reason string) string {
	if !strings.HasPrefix(reason, "net::") {
		return ""
	}
	return "the page could not be loaded (" + reason + "): check the URL, and that the server is up and reachable from this machine"
}

// Next is an agent's next step after e, in the protocol's terms: by the
// session-end reason (EndHints), the named reason (the schema's
// x-reasons), a net:: failure, or else the code's contract row (extract
// again, wait and retry, fix the call, or stop and tell the person).
func Next(e *protocol.Error) string {
	if h, ok := EndHints[e.Reason]; ok && e.Code == protocol.CodeInternalError {
		return h
	}
	if h, ok := protocol.Reasons[e.Reason]; ok {
		return h
	}
	if h := NetHint(e.Reason); h != "" {
		return h
	}
	if info, ok := protocol.Lookup(e.Code); ok {
		return info.Next
	}
	return ""
}

// Problem is a failed action as an agent reads it: `error[code]: message`
// and the next step. The message is bua's or the extension's, in the
// protocol's terms, but an invalid_action from the page's side quotes the
// page (what a page script threw, a dialog's text), so fence, when not
// nil, wraps that message.
func Problem(e *protocol.Error, fence *Fence) string {
	msg := e.Message
	if fromPage(e) {
		msg = fence.Inline(msg)
	}
	out := "error[" + string(e.Code) + "]: " + msg
	if n := Next(e); n != "" {
		out += "\nnext: " + n
	}
	return out
}

// fromPage reports whether e's message quotes the page: an invalid_action
// the extension raised (a page script threw, a dialog is open), not one
// bua refused itself (a schema check, another agent's tab).
func fromPage(e *protocol.Error) bool {
	if e.Code != protocol.CodeInvalidAction || e.Schema != nil {
		return false
	}
	switch e.Reason {
	case "", protocol.ReasonScriptThrew, protocol.ReasonDialogOpen, protocol.ReasonDialogOpened:
		return true
	}
	return false
}
