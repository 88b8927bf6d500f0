// Package dialogs applies a dialog policy (protocol.DialogsAccept,
// DialogsDismiss or DialogsLeave: a flow's dialogs: key, the CLI's
// --dialogs) to the actions sent through a protocol.Requester.
//
// docs/protocol.md#dialogs leaves a page's dialogs open: an action that meets
// one fails with invalid_action, reason dialog_open (it was open before the
// action, which did not run) or dialog_opened (the action opened it). Under
// accept or dismiss:
//   - an action that leaves the page (navigate, reload, go_back,
//     go_forward, close_tab: the actions whose schema def has the dialogs
//     param) carries the policy itself, and the extension answers a dialog
//     open on the tab, or opening while the action runs, a beforeunload
//     always accepted, and lists the answers in the result's dialogs (the
//     schema's answeredDialogs);
//   - any other action that meets a dialog gets it answered with
//     handle_dialog, and is sent again when it did not run or only reads
//     the page.
//
// Under leave nothing changes: the action fails, naming the dialog.
package dialogs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Answer is one dialog answered under a policy.
type Answer struct {
	DialogType string `json:"dialogType"` // alert, confirm, prompt or beforeunload
	Message    string `json:"message,omitempty"`
	Accepted   bool   `json:"accepted"`
}

// How is "accepted" or "dismissed".
func (a Answer) How() string {
	if a.Accepted {
		return "accepted"
	}
	return "dismissed"
}

// MaxPerRequest bounds a page that opens a dialog every time one is
// answered: after this many handle_dialog answers for one action, its
// error stands.
const MaxPerRequest = 5

// Answering reports whether policy answers dialogs: accept or dismiss.
func Answering(policy string) bool {
	return policy == protocol.DialogsAccept || policy == protocol.DialogsDismiss
}

// Check is nil when policy is one of protocol.DialogPolicies, else an
// error naming them.
func Check(policy string) error {
	for _, p := range protocol.DialogPolicies {
		if policy == p {
			return nil
		}
	}
	return fmt.Errorf("%q is not a dialog policy (expected accept, dismiss or leave)", policy)
}

// Takes reports whether actions of type t carry a dialogs policy of their
// own (the schema's dialogs param, feature dialog_policy).
func Takes(t protocol.ActionType) bool {
	spec, ok := protocol.ActionSpecs[t]
	if !ok {
		return false
	}
	_, ok = spec.Param("dialogs")
	return ok
}

// Blocked reports whether err is the extension's answer to an action that
// met an open dialog, and whether that action ran (reason dialog_opened:
// it ran up to the dialog) or not (dialog_open).
func Blocked(err *protocol.Error) (blocked, ran bool) {
	if err == nil || err.Code != protocol.CodeInvalidAction {
		return false, false
	}
	switch err.Reason {
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

// Send sends a through req under policy and returns its result, calling
// answered (which may be nil) with each dialog answered on its way, in
// order: by handle_dialog, or by the action itself (its result's dialogs,
// whether the policy or the action's own dialogs param set it). An action
// that takes the policy itself gets it unless it sets its own; an
// extension whose hello lacks the dialog_policy feature refuses that
// (invalid_action, reason refused, never sent), and the action goes again
// without it, its dialogs then answered with handle_dialog. Errors are
// req's, or the action's own when answering its dialog failed.
func Send(ctx context.Context, req protocol.Requester, a protocol.Action, policy string, answered func(Answer)) (json.RawMessage, *protocol.Error) {
	if answered == nil {
		answered = func(Answer) {}
	}
	answering := Answering(policy) && a.Type != protocol.ActionHandleDialog
	own := answering && Takes(a.Type) && a.Dialogs == ""
	if own {
		a.Dialogs = policy
	}
	raw, err := req.Request(ctx, a)
	if own && err != nil && err.Reason == protocol.ReasonRefused {
		a.Dialogs = ""
		raw, err = req.Request(ctx, a)
	}
	for n := 0; answering && err != nil && n < MaxPerRequest; n++ {
		blocked, ran := Blocked(err)
		if !blocked {
			return raw, err
		}
		hd := protocol.HandleDialog(policy == protocol.DialogsAccept, nil)
		hd.TabID = a.TabID
		hraw, herr := req.Request(ctx, hd)
		if herr != nil {
			return nil, &protocol.Error{Code: err.Code, Reason: err.Reason, Message: fmt.Sprintf("%s (answering it with handle_dialog failed: %s)", err.Message, herr.Message)}
		}
		var d protocol.HandleDialogResult
		_ = json.Unmarshal(hraw, &d)
		answered(Answer{DialogType: d.DialogType, Message: d.Message, Accepted: d.Accepted})
		if ran && !rerunsAfterDialog(a.Type) {
			return json.RawMessage(`{"ok":true}`), nil
		}
		raw, err = req.Request(ctx, a)
	}
	if err == nil && a.Dialogs != "" {
		var r struct {
			Dialogs []Answer `json:"dialogs"`
		}
		_ = json.Unmarshal(raw, &r)
		for _, d := range r.Dialogs {
			answered(d)
		}
	}
	return raw, err
}
