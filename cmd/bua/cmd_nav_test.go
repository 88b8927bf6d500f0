package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestWaitUntilFlag: --wait-until reaches the waitUntil of navigate,
// reload, back, forward and open; without it none is sent (the extension's
// default, load); a value the schema lacks is refused before anything is
// sent.
func TestWaitUntilFlag(t *testing.T) {
	h, ext := startFake(t)
	for _, tc := range []struct {
		args []string
		typ  protocol.ActionType
		want string
	}{
		{[]string{"navigate", "--wait-until", "commit", "https://a.test/"}, protocol.ActionNavigate, "commit"},
		{[]string{"navigate", "https://a.test/", "--wait-until=networkidle"}, protocol.ActionNavigate, "networkidle"},
		{[]string{"navigate", "https://a.test/"}, protocol.ActionNavigate, ""},
		{[]string{"reload", "--wait-until", "domcontentloaded"}, protocol.ActionReload, "domcontentloaded"},
		{[]string{"back", "--wait-until", "load"}, protocol.ActionGoBack, "load"},
		{[]string{"forward", "--wait-until", "commit"}, protocol.ActionGoForward, "commit"},
		{[]string{"open", "--wait-until", "domcontentloaded", "https://a.test/"}, protocol.ActionOpenTab, "domcontentloaded"},
	} {
		r := runCLI(t, h, "", tc.args...)
		reqs := ext.Requests()
		if r.code != 0 || len(reqs) == 0 {
			t.Errorf("bua %s: exit %d, stderr %q", strings.Join(tc.args, " "), r.code, r.stderr)
			continue
		}
		if got := reqs[len(reqs)-1]; got.Type != tc.typ || got.WaitUntil != tc.want {
			t.Errorf("bua %s sent %s, want %s with waitUntil %q", strings.Join(tc.args, " "), js(got), tc.typ, tc.want)
		}
	}
	sent := len(ext.Requests())
	for _, args := range [][]string{
		{"navigate", "--wait-until", "networkIdle", "https://a.test/"},
		{"reload", "--wait-until", "idle"},
		{"open", "--wait-until", "", "https://a.test/"},
	} {
		r := runCLI(t, h, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "expected commit, domcontentloaded, load, networkidle") {
			t.Errorf("bua %s: exit %d, stderr %q; want a usage error naming the values", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if n := len(ext.Requests()); n != sent {
		t.Errorf("%d refused commands reached the extension", n-sent)
	}
}

// TestDialogsFlag: --dialogs rides on the actions that leave a page as
// their dialogs param and their answers are said on stderr; any other
// action that meets a dialog gets handle_dialog; leave (the default) sends
// nothing new; a policy bua does not know is a usage error.
func TestDialogsFlag(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionNavigate, func(a protocol.Action) (any, *protocol.Error) {
		if a.Dialogs == "" {
			return protocol.OKResult{OK: true}, nil
		}
		return map[string]any{"ok": true, "dialogs": []map[string]any{{"dialogType": "alert", "message": "Welcome", "accepted": a.Dialogs == "accept"}}}, nil
	})
	opened := false
	ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonDialogOpened, Message: `a confirm "Sure?" is open on tab 1 (it opened during click)`}
	})
	ext.Handle(protocol.ActionHandleDialog, func(a protocol.Action) (any, *protocol.Error) {
		opened = true
		return protocol.HandleDialogResult{OK: true, DialogType: "confirm", Message: "Sure?", Accepted: *a.Accept}, nil
	})
	last := func() protocol.Action { r := ext.Requests(); return r[len(r)-1] }

	r := runCLI(t, h, "", "--dialogs", "accept", "navigate", "https://a.test/")
	if r.code != 0 || last().Dialogs != "accept" || !strings.Contains(r.stderr, `bua: accepted alert "Welcome" (--dialogs accept)`) {
		t.Errorf("navigate --dialogs accept: exit %d, sent %s, stderr %q", r.code, js(last()), r.stderr)
	}
	if r = runCLI(t, h, "", "close", "5", "--dialogs", "dismiss"); r.code != 0 || last().Type != protocol.ActionCloseTab || last().Dialogs != "dismiss" {
		t.Errorf("close --dialogs dismiss: exit %d, sent %s", r.code, js(last()))
	}
	if r = runCLI(t, h, "", "navigate", "https://a.test/"); r.code != 0 || last().Dialogs != "" || r.stderr != "" {
		t.Errorf("navigate under leave: exit %d, sent %s, stderr %q", r.code, js(last()), r.stderr)
	}
	r = runCLI(t, h, "", "--dialogs", "dismiss", "click", "#delete")
	if r.code != 0 || !opened || last().Type != protocol.ActionHandleDialog || *last().Accept || !strings.Contains(r.stderr, `bua: dismissed confirm "Sure?" (--dialogs dismiss)`) {
		t.Errorf("click --dialogs dismiss: exit %d, last sent %s, stderr %q", r.code, js(last()), r.stderr)
	}
	r = runCLI(t, h, "", "click", "#delete")
	if r.code != exitFailure || !strings.Contains(r.stderr, "hint: ") || !strings.Contains(r.stderr, "--dialogs dismiss") {
		t.Errorf("click under leave: exit %d, stderr %q; want the dialog error with a hint naming --dialogs", r.code, r.stderr)
	}
	sent := len(ext.Requests())
	if r = runCLI(t, h, "", "--dialogs", "maybe", "navigate", "https://a.test/"); r.code != exitUsage || !strings.Contains(r.stderr, `"maybe" is not a dialog policy (expected accept, dismiss or leave)`) {
		t.Errorf("--dialogs maybe: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(ext.Requests()); n != sent {
		t.Errorf("a refused --dialogs sent %d requests", n-sent)
	}
}
