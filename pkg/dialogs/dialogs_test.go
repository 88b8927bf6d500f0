package dialogs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// fake is a Requester that answers each action with the next reply of its
// type's script and records what it was sent.
type fake struct {
	replies map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error)
	sent    []protocol.Action
}

func (f *fake) Request(_ context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	f.sent = append(f.sent, a)
	script := f.replies[a.Type]
	if len(script) == 0 {
		return json.RawMessage(`{"ok":true}`), nil
	}
	next := script[0]
	if len(script) > 1 {
		f.replies[a.Type] = script[1:]
	}
	v, err := next(a)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(v)
	return b, nil
}

func (f *fake) types() string {
	var s []string
	for _, a := range f.sent {
		w := string(a.Type)
		if a.Dialogs != "" {
			w += "(" + a.Dialogs + ")"
		}
		s = append(s, w)
	}
	return strings.Join(s, " ")
}

func blocked(reason string) func(protocol.Action) (any, *protocol.Error) {
	return func(protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Reason: reason, Message: `an alert "Hi" is open on tab 1`}
	}
}

func answer(a protocol.Action) (any, *protocol.Error) {
	return protocol.HandleDialogResult{OK: true, DialogType: "alert", Message: "Hi", Accepted: *a.Accept}, nil
}

func ok(v any) func(protocol.Action) (any, *protocol.Error) {
	return func(protocol.Action) (any, *protocol.Error) { return v, nil }
}

var refused = func(protocol.Action) (any, *protocol.Error) {
	return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonRefused, Message: `the connected extension (0.1.0) does not support navigate with dialogs`}
}

func TestSend(t *testing.T) {
	answered := map[string]any{"ok": true, "dialogs": []Answer{{DialogType: "beforeunload", Accepted: true}}}
	for _, tc := range []struct {
		name    string
		policy  string
		action  protocol.Action
		replies map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error)
		sent    string
		answers string
		err     string
	}{
		{"leave sends the action as it is", protocol.DialogsLeave, protocol.Navigate("https://a.test/"), nil, "navigate", "", ""},
		{"no policy either", "", protocol.Action{Type: protocol.ActionClick, Selector: "#a"},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionClick: {blocked(protocol.ReasonDialogOpened)}}, "click", "", "dialog_opened"},
		{"an action that leaves the page carries the policy, and its result's answers are reported", protocol.DialogsDismiss, protocol.Navigate("https://a.test/"),
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionNavigate: {ok(answered)}}, "navigate(dismiss)", "beforeunload accepted", ""},
		{"close_tab too", protocol.DialogsAccept, protocol.CloseTab(4), nil, "close_tab(accept)", "", ""},
		{"a step's own dialogs param wins", protocol.DialogsAccept, protocol.Action{Type: protocol.ActionReload, Dialogs: protocol.DialogsDismiss},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionReload: {ok(answered)}}, "reload(dismiss)", "beforeunload accepted", ""},
		{"and is reported under leave as well", "", protocol.Action{Type: protocol.ActionReload, Dialogs: protocol.DialogsDismiss},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionReload: {ok(answered)}}, "reload(dismiss)", "beforeunload accepted", ""},
		{"an older extension refuses the param: sent again without it, its dialog answered by handle_dialog", protocol.DialogsAccept, protocol.Navigate("https://a.test/"),
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionNavigate: {refused, blocked(protocol.ReasonDialogOpen), ok(map[string]any{"ok": true})}, protocol.ActionHandleDialog: {answer}},
			"navigate(accept) navigate handle_dialog navigate", "alert accepted", ""},
		{"a click that opened a dialog: answered, and done", protocol.DialogsDismiss, protocol.Action{Type: protocol.ActionClick, Selector: "#a"},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionClick: {blocked(protocol.ReasonDialogOpened)}, protocol.ActionHandleDialog: {answer}},
			"click handle_dialog", "alert dismissed", ""},
		{"a read that met one: answered, and read again", protocol.DialogsAccept, protocol.Extract(""),
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionExtract: {blocked(protocol.ReasonDialogOpened), ok(map[string]any{"text": "x"})}, protocol.ActionHandleDialog: {answer}},
			"extract handle_dialog extract", "alert accepted", ""},
		{"a page that opens one each time is given up on", protocol.DialogsAccept, protocol.Extract(""),
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionExtract: {blocked(protocol.ReasonDialogOpen)}, protocol.ActionHandleDialog: {answer}},
			"extract" + strings.Repeat(" handle_dialog extract", MaxPerRequest), strings.TrimSpace(strings.Repeat("alert accepted ", MaxPerRequest)), "dialog_open"},
		{"handle_dialog failing keeps the action's error, saying so", protocol.DialogsAccept, protocol.Action{Type: protocol.ActionClick, Selector: "#a"},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionClick: {blocked(protocol.ReasonDialogOpen)}, protocol.ActionHandleDialog: {func(protocol.Action) (any, *protocol.Error) {
				return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Message: "no dialog is open on tab 1"}
			}}},
			"click handle_dialog", "", "answering it with handle_dialog failed: no dialog is open on tab 1"},
		{"other errors are left alone", protocol.DialogsAccept, protocol.Action{Type: protocol.ActionClick, Selector: "#a"},
			map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){protocol.ActionClick: {func(protocol.Action) (any, *protocol.Error) {
				return nil, &protocol.Error{Code: protocol.CodeElementNotFound, Message: "no match"}
			}}},
			"click", "", "no match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{replies: tc.replies}
			if f.replies == nil {
				f.replies = map[protocol.ActionType][]func(protocol.Action) (any, *protocol.Error){}
			}
			var got []string
			_, err := Send(context.Background(), f, tc.action, tc.policy, func(a Answer) { got = append(got, a.DialogType+" "+a.How()) })
			if s := f.types(); s != tc.sent {
				t.Errorf("sent %q, want %q", s, tc.sent)
			}
			if s := strings.Join(got, " "); s != tc.answers {
				t.Errorf("answers %q, want %q", s, tc.answers)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Message+" "+err.Reason, tc.err)):
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// TestTakes: the actions that carry the policy themselves are those whose
// schema def has the dialogs param.
func TestTakes(t *testing.T) {
	var got []string
	for _, a := range protocol.Actions {
		if Takes(a) {
			got = append(got, string(a))
		}
	}
	if want := "[navigate close_tab reload go_back go_forward]"; fmt.Sprint(got) != want {
		t.Errorf("Takes: %v, want %s", got, want)
	}
}

func TestCheck(t *testing.T) {
	for _, p := range protocol.DialogPolicies {
		if err := Check(p); err != nil {
			t.Errorf("Check(%q) = %v", p, err)
		}
	}
	if err := Check("always"); err == nil || !strings.Contains(err.Error(), "expected accept, dismiss or leave") {
		t.Errorf("Check(always) = %v", err)
	}
}
