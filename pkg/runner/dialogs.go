package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Dialog policies (a flow's `dialogs:`): what the runner does with a
// page's alert, confirm, prompt or beforeunload that an action meets.
// DialogsLeave, the default, leaves it open, as protocol v4 §Dialogs leaves
// page dialogs alone: the action fails, naming the dialog.
const (
	DialogsAccept  = "accept"
	DialogsDismiss = "dismiss"
	DialogsLeave   = "leave"
)

// DialogReport is one dialog the flow's policy answered, in the step
// that met it.
type DialogReport struct {
	Type    string `json:"type"` // alert, confirm, prompt or beforeunload
	Message string `json:"message"`
	How     string `json:"how"` // accepted or dismissed
}

// maxDialogsPerRequest bounds a page that opens a dialog every time it is
// answered.
const maxDialogsPerRequest = 5

// dialogBlocked reports whether err is the extension's answer to an
// action that met an open dialog, and whether that action ran (reason
// dialog_opened: it ran up to the dialog) or not (dialog_open).
func dialogBlocked(be *protocol.Error) (blocked, ran bool) {
	if be == nil || be.Code != protocol.CodeInvalidAction {
		return false, false
	}
	switch be.Reason {
	case protocol.ReasonDialogOpen:
		return true, false
	case protocol.ReasonDialogOpened:
		return true, true
	}
	return false, false
}

// rerunsAfterDialog lists the actions sent again after a dialog that
// opened while they ran was answered: they only read the page, so running
// them again is how they get their answer. Any other action (a click, a
// navigation) did what it was asked up to the dialog, its effect, and is
// not repeated.
func rerunsAfterDialog(t protocol.ActionType) bool {
	switch t {
	case protocol.ActionWaitFor, protocol.ActionExtract, protocol.ActionScreenshot, protocol.ActionEvaluate, protocol.ActionGetTrace:
		return true
	}
	return false
}

// answerDialogs applies the flow's dialog policy to a request that failed
// on an open dialog: it answers the dialog with handle_dialog, records it
// in the step's report, and then either resends the action (it did not
// run, or it only reads) or answers for it with {ok: true}. send is the
// request itself. Under DialogsLeave, or for any other error, it returns
// err as it is.
func (s *State) answerDialogs(ctx context.Context, a protocol.Action, raw json.RawMessage, err *protocol.Error, send func() (json.RawMessage, *protocol.Error)) (json.RawMessage, *protocol.Error) {
	how := s.dialogs
	if how != DialogsAccept && how != DialogsDismiss || a.Type == protocol.ActionHandleDialog {
		return raw, err
	}
	for n := 0; err != nil && n < maxDialogsPerRequest; n++ {
		blocked, ran := dialogBlocked(err)
		if !blocked {
			return raw, err
		}
		hd := protocol.HandleDialog(how == DialogsAccept, nil)
		hd.TabID = a.TabID
		hraw, herr := s.r.Requester.Request(ctx, hd)
		if herr != nil {
			return nil, &protocol.Error{Code: err.Code, Reason: err.Reason, Message: fmt.Sprintf("%s (answering it with handle_dialog failed: %s)", err.Message, herr.Message)}
		}
		var d protocol.HandleDialogResult
		_ = json.Unmarshal(hraw, &d)
		rep := DialogReport{Type: d.DialogType, Message: d.Message, How: "dismissed"}
		if d.Accepted {
			rep.How = "accepted"
		}
		s.cur.Dialogs = append(s.cur.Dialogs, rep)
		s.note(fmt.Sprintf("%s %s %q (dialogs: %s)", rep.How, rep.Type, rep.Message, how))
		if ran && !rerunsAfterDialog(a.Type) {
			return json.RawMessage(`{"ok":true}`), nil
		}
		raw, err = send()
	}
	return raw, err
}
