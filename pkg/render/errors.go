package render

import (
	"github.com/bua-dev/bua/pkg/protocol"
)

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
