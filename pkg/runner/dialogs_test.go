package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/dialogs"
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// blockedBy answers an action the way the extension does when it meets an
// open dialog: invalid_action with reason dialog_opened (the action opened
// it) or dialog_open (it was open before).
func blockedBy(reason string) runnertest.Handler {
	return func(context.Context, protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Reason: reason, Message: `an alert "Are you sure?" is open on tab 1`}
	}
}

// dialogFake answers handle_dialog as the extension does, with the dialog
// it answered.
func dialogFake() *runnertest.Fake {
	return runnertest.New().On(protocol.ActionHandleDialog, func(_ context.Context, a protocol.Action) (any, *protocol.Error) {
		return protocol.HandleDialogResult{OK: true, DialogType: "confirm", Message: "Are you sure?", Accepted: *a.Accept}, nil
	})
}

func TestDialogsPolicy(t *testing.T) {
	ok := runnertest.Result(map[string]any{"ok": true})
	for _, tc := range []struct {
		name    string
		policy  string
		typ     protocol.ActionType
		step    string
		replies []runnertest.Handler
		status  report.Status
		sent    string // the request types, in order
		how     string // the recorded answer, "" for none
	}{
		{"accept answers the dialog a click opened, and the click is done", "accept", protocol.ActionClick, `click: "#delete"`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpened)}, report.StatusPassed, "click handle_dialog", "accepted"},
		{"dismiss answers it with accept false", "dismiss", protocol.ActionClick, `click: "#delete"`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpened)}, report.StatusPassed, "click handle_dialog", "dismissed"},
		{"a dialog open before the action: answered, then the action is sent again", "accept", protocol.ActionClick, `click: "#next"`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpen), ok}, report.StatusPassed, "click handle_dialog click", "accepted"},
		{"a read-only action the dialog interrupted runs again", "accept", protocol.ActionWaitFor, `wait_for: { text: "Deleted" }`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpened), ok}, report.StatusPassed, "wait_for handle_dialog wait_for", "accepted"},
		{"leave (the default) fails the step naming the dialog", "", protocol.ActionClick, `click: "#delete"`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpened)}, report.StatusFailed, "click", ""},
		{"leave set explicitly too", "leave", protocol.ActionClick, `click: "#delete"`,
			[]runnertest.Handler{blockedBy(protocol.ReasonDialogOpened)}, report.StatusFailed, "click", ""},
		{"other invalid_action errors are not touched", "accept", protocol.ActionClick, `click: "#delete"`,
			[]runnertest.Handler{runnertest.Fail(protocol.CodeInvalidAction, "bad selector")}, report.StatusFailed, "click", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := dialogFake().On(tc.typ, runnertest.Sequence(tc.replies...))
			src := "name: d\n"
			if tc.policy != "" {
				src += "dialogs: " + tc.policy + "\n"
			}
			src += "steps:\n  - " + tc.step + "\n"
			rec, _ := runFlow(t, fake, src)
			wantStatus(t, rec, tc.status)
			if got := strings.Join(fake.Types(), " "); got != tc.sent {
				t.Errorf("sent %q, want %q", got, tc.sent)
			}
			step := rec.Steps[0]
			switch {
			case tc.how == "" && len(step.Dialogs) != 0:
				t.Errorf("recorded %+v, want no dialog answered", step.Dialogs)
			case tc.how != "" && (len(step.Dialogs) != 1 || step.Dialogs[0] != report.DialogReport{Type: "confirm", Message: "Are you sure?", How: tc.how}):
				t.Errorf("recorded %+v, want one confirm %s", step.Dialogs, tc.how)
			}
			if tc.status == report.StatusFailed && tc.how == "" && tc.policy != "accept" && !strings.Contains(rec.Error, `an alert "Are you sure?" is open`) {
				t.Errorf("error %q does not name the dialog", rec.Error)
			}
			if tc.how != "" {
				last := fake.Requests()[1]
				if want := tc.how == "accepted"; last.Accept == nil || *last.Accept != want {
					t.Errorf("handle_dialog sent accept %v, want %v", last.Accept, want)
				}
			}
		})
	}
}

// A page that opens a dialog every time one is answered is not answered
// forever: after a few, the step fails with the extension's error.
func TestDialogsPolicyGivesUp(t *testing.T) {
	fake := dialogFake().On(protocol.ActionExtract, blockedBy(protocol.ReasonDialogOpen))
	rec, _ := runFlow(t, fake, "name: d\ndialogs: dismiss\nsteps:\n  - extract: {}\n")
	wantStatus(t, rec, report.StatusFailed)
	if n := strings.Count(strings.Join(fake.Types(), " "), "handle_dialog"); n != dialogs.MaxPerRequest {
		t.Errorf("answered %d dialogs, want %d", n, dialogs.MaxPerRequest)
	}
}

// A sub-flow without its own policy keeps its caller's.
func TestDialogsPolicyInherited(t *testing.T) {
	fake := dialogFake().On(protocol.ActionClick, blockedBy(protocol.ReasonDialogOpened))
	rec, _ := runFlow(t, fake, "name: d\ndialogs: accept\nsteps:\n  - run: sub.yaml\n", "sub.yaml", "name: sub\nsteps:\n  - click: \"#x\"\n")
	wantStatus(t, rec, report.StatusPassed)
	if got := strings.Join(fake.Types(), " "); got != "click handle_dialog" {
		t.Errorf("sent %q", got)
	}
}

// The actions that leave a page take the flow's policy as their own
// dialogs param: the extension answers the dialog in their way (a
// beforeunload always accepted) and lists it in the result, which the
// step's report records.
func TestDialogsPolicyRidesOnNavigate(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionNavigate, func(_ context.Context, a protocol.Action) (any, *protocol.Error) {
		if a.Dialogs != flow.DialogsDismiss {
			t.Errorf("navigate sent with dialogs %q, want dismiss", a.Dialogs)
		}
		return map[string]any{"ok": true, "dialogs": []map[string]any{{"dialogType": "beforeunload", "message": "", "accepted": true}}}, nil
	})
	rec, _ := runFlow(t, fake, "name: d\ndialogs: dismiss\nsteps:\n  - navigate: https://a.test/\n  - close_tab: 3\n")
	wantStatus(t, rec, report.StatusPassed)
	if got := strings.Join(fake.Types(), " "); got != "navigate close_tab" {
		t.Errorf("sent %q", got)
	}
	if d := fake.Requests()[1].Dialogs; d != flow.DialogsDismiss {
		t.Errorf("close_tab sent with dialogs %q", d)
	}
	if st := rec.Steps[0]; len(st.Dialogs) != 1 || st.Dialogs[0] != (report.DialogReport{Type: "beforeunload", How: "accepted"}) || !strings.Contains(st.Note, `accepted beforeunload "" (dialogs: dismiss)`) {
		t.Errorf("navigate step: dialogs %+v, note %q", st.Dialogs, st.Note)
	}
}

// Runner.Dialogs (`bua run --dialogs`) is the policy of a flow without a
// dialogs key; a flow's own key wins.
func TestDialogsRunnerDefault(t *testing.T) {
	for _, tc := range []struct{ key, def, want string }{
		{"", flow.DialogsAccept, flow.DialogsAccept},
		{"dialogs: leave\n", flow.DialogsAccept, ""},
		{"dialogs: dismiss\n", flow.DialogsAccept, flow.DialogsDismiss},
		{"", "", ""},
	} {
		fake := runnertest.New()
		files := writeFlows(t, map[string]string{"main.yaml": "name: d\n" + tc.key + "steps:\n  - reload: {}\n"})
		f, err := flow.Load(filepath.Join(files, "main.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		r := &Runner{Requester: fake, Dialogs: tc.def}
		wantStatus(t, r.RunFlow(context.Background(), f), report.StatusPassed)
		if got := fake.Requests()[0].Dialogs; got != tc.want {
			t.Errorf("key %q, --dialogs %q: reload sent with dialogs %q, want %q", tc.key, tc.def, got, tc.want)
		}
	}
}
