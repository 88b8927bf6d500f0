package mcpserver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestRecorder: each successful action is recorded with its target's
// locators (describe, before it ran) and the tab's URL before and after;
// a failed action is not. The steps make a flow that signs in by role and
// name, with the password as a secret and a wait_for after the click that
// moved the tab.
func TestRecorder(t *testing.T) {
	log := &Log{}
	f := start(t, Options{Recorder: log}, nil)
	described := map[string]protocol.DescribeResult{
		"e1": {Tag: "input", InputType: "email", Label: "Email", Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: "Email", Count: 1}}},
		"e2": {Tag: "input", InputType: "password", Label: "Password", Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: "Password", Count: 1}}},
		"e3": {Tag: "button", Locators: []protocol.Locator{{By: "role", Role: "button", Name: "Sign in", Count: 1}}},
	}
	f.ext.Handle(protocol.ActionDescribe, func(a protocol.Action) (any, *protocol.Error) {
		d, ok := described[a.UID]
		if !ok {
			return nil, protocol.Errorf(protocol.CodeElementStale, "stale")
		}
		return d, nil
	})
	tab := f.navigate(t, "https://a.test/login")
	f.ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		if a.UID == "e9" {
			return nil, protocol.Errorf(protocol.CodeElementStale, "stale")
		}
		f.tabs.Load(tab, "https://a.test/home?session=1")
		return protocol.OKResult{OK: true, TabID: &tab}, nil
	})
	for _, args := range []map[string]any{
		{"action": "type", "uid": "e1", "text": "ada@example.com"},
		{"action": "type", "uid": "e2", "text": "hunter2"},
		{"action": "click", "uid": "e9"}, // fails: not recorded
		{"action": "click", "uid": "e3"},
		{"action": "evaluate", "expression": "return 1"},
	} {
		f.call(t, args)
	}
	const login, home = "https://a.test/login", "https://a.test/home?session=1"
	steps := log.Steps()
	want := []struct {
		typ           protocol.ActionType
		before, after string
	}{
		{protocol.ActionNavigate, "", login}, // no tab yet
		{protocol.ActionType_, login, login},
		{protocol.ActionType_, login, login},
		{protocol.ActionClick, login, home}, // not the failed click on e9
		{protocol.ActionEvaluate, home, home},
	}
	if len(steps) != len(want) {
		t.Fatalf("recorded %d steps %+v, want %d", len(steps), steps, len(want))
	}
	for i, w := range want {
		if st := steps[i]; st.Action.Type != w.typ || st.URLBefore != w.before || st.URLAfter != w.after || st.Title != "Page "+w.after {
			t.Errorf("step %d: %s %q -> %q (%q), want %s %q -> %q", i, st.Action.Type, st.URLBefore, st.URLAfter, st.Title, w.typ, w.before, w.after)
		}
	}
	if tg := steps[2].Target; tg == nil || !tg.Password() {
		t.Errorf("the password's target %+v, want its describe result", tg)
	}

	flow, err := flowwriter.Compile(flowwriter.Header{MadeBy: "test"}, Entries(steps))
	if err != nil {
		t.Fatalf("Compile: %v\n%s", err, flow.YAML)
	}
	y := string(flow.YAML)
	for _, want := range []string{
		// The tool's type replaces the value (clear: true, agentDefaults),
		// and so does the replay.
		"- type: {role: textbox, name: Email, text: ada@example.com, clear: true}",
		`- type: {role: textbox, name: Password, text: "${{ vars.password }}", clear: true}`,
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/home?**\"}",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("the flow lacks %q:\n%s", want, y)
		}
	}
	if strings.Contains(y, "hunter2") || len(flow.Env) != 1 || flow.Env[0].Name != "BUA_PASSWORD" {
		t.Errorf("env %+v; the flow:\n%s", flow.Env, y)
	}
}

// TestEntries: steps become the flow writer's entries as they were, but a
// navigation the next step saw and no answer showed (a form submitted by
// script, a redirect) is the last input's or navigation's on that tab,
// never a read's or a wait_for's, and never another tab's.
func TestEntries(t *testing.T) {
	res := func(tab int) json.RawMessage { return json.RawMessage(`{"ok":true,"tabId":` + itoa(tab) + `}`) }
	act := func(typ protocol.ActionType) protocol.Action { return protocol.Action{Type: typ} }
	const login, home, other = "https://a.test/login", "https://a.test/home", "https://b.test/"
	for _, tc := range []struct {
		name  string
		steps []Step
		want  [][2]string // each entry's URLBefore and URLAfter
	}{{
		name: "a click whose navigation an extract saw",
		steps: []Step{
			{Action: act(protocol.ActionNavigate), Result: res(1), URLAfter: login},
			{Action: act(protocol.ActionClick), Result: res(1), URLBefore: login, URLAfter: login},
			{Action: act(protocol.ActionExtract), Result: res(1), URLAfter: home, Title: "Home"},
			{Action: act(protocol.ActionScreenshot), Result: res(1)},
		},
		want: [][2]string{{"", login}, {login, home}, {home, home}, {"", ""}},
	}, {
		name: "a wait_for waited for it",
		steps: []Step{
			{Action: act(protocol.ActionClick), Result: res(1), URLBefore: login, URLAfter: login},
			{Action: act(protocol.ActionWaitFor), Result: res(1), URLAfter: home},
		},
		want: [][2]string{{login, home}, {home, home}},
	}, {
		name: "the next input saw it",
		steps: []Step{
			{Action: act(protocol.ActionType_), Result: res(1), URLBefore: login, URLAfter: login},
			{Action: act(protocol.ActionExtract), Result: res(1), URLAfter: login},
			{Action: act(protocol.ActionClick), Result: res(1), URLBefore: home, URLAfter: home},
		},
		want: [][2]string{{login, home}, {login, login}, {home, home}},
	}, {
		name: "another tab's steps are its own",
		steps: []Step{
			{Action: act(protocol.ActionClick), Result: res(1), URLBefore: login, URLAfter: login},
			{Action: act(protocol.ActionClick), Result: res(2), URLBefore: other, URLAfter: other},
			{Action: act(protocol.ActionClick), Result: res(1), URLBefore: login, URLAfter: login},
		},
		want: [][2]string{{login, login}, {other, other}, {login, login}},
	}, {
		name: "a tab first seen by a read has no cause to blame",
		steps: []Step{
			{Action: act(protocol.ActionExtract), Result: res(3), URLAfter: login},
			{Action: act(protocol.ActionClick), Result: res(3), URLBefore: home, URLAfter: home},
		},
		want: [][2]string{{login, login}, {home, home}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := Entries(tc.steps)
			for i, e := range got {
				if w := tc.want[i]; e.URLBefore != w[0] || e.URLAfter != w[1] {
					t.Errorf("entry %d (%s): %q -> %q, want %q -> %q", i, e.Action.Type, e.URLBefore, e.URLAfter, w[0], w[1])
				}
			}
		})
	}

	// A dialog the action opened is a step to edit by hand: a replay
	// stops at it.
	_, err := flowwriter.Compile(flowwriter.Header{}, Entries([]Step{{Action: protocol.Action{Type: protocol.ActionClick, Selector: "#delete"}, Dialog: "Delete it?"}}))
	var inc *flowwriter.IncompleteError
	if !errors.As(err, &inc) || len(inc.Problems) != 1 || !strings.Contains(inc.Problems[0].Msg, `click opened a dialog ("Delete it?")`) {
		t.Errorf("Compile: %v, want the click's dialog to need a hand edit", err)
	}
}
