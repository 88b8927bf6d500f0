package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestWaitForFlags: --text, --state and --url reach wait_for's params,
// TARGET becomes optional with --text or --url, and the shapes the schema
// refuses are refused before anything is sent.
func TestWaitForFlags(t *testing.T) {
	h, ext := startFake(t)
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		args []string
		want protocol.Action
		out  string
	}{
		{[]string{"wait-for", "--text", "Saved"}, protocol.Action{Type: protocol.ActionWaitFor, Text: str("Saved")}, "found"},
		{[]string{"wait-for", ".spinner", "--state", "detached"}, protocol.Action{Type: protocol.ActionWaitFor, Selector: ".spinner", State: "detached"}, "ok"},
		{[]string{"wait-for", "e4", "--text", "/done/i", "--state", "visible"}, protocol.Action{Type: protocol.ActionWaitFor, UID: "e4", Text: str("/done/i"), State: "visible"}, "found"},
		{[]string{"wait-for", "--url", "**/done.html"}, protocol.Action{Type: protocol.ActionWaitFor, URL: "**/done.html"}, "ok"},
	} {
		r := runCLI(t, h, "", tc.args...)
		reqs := ext.Requests()
		if r.code != 0 || len(reqs) == 0 {
			t.Errorf("bua %s: exit %d, stderr %q", strings.Join(tc.args, " "), r.code, r.stderr)
			continue
		}
		got := reqs[len(reqs)-1]
		got.TabID, got.TimeoutMs = nil, nil
		if js(got) != js(tc.want) {
			t.Errorf("bua %s sent %s, want %s", strings.Join(tc.args, " "), js(got), js(tc.want))
		}
		if !strings.HasPrefix(r.stdout, tc.out) {
			t.Errorf("bua %s printed %q, want %q…", strings.Join(tc.args, " "), r.stdout, tc.out)
		}
	}
	sent := len(ext.Requests())
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"wait-for"}, "wait-for needs a TARGET"},
		{[]string{"wait-for", "--state", "hidden"}, "wait-for needs a TARGET"},
		{[]string{"wait-for", "#a", "--state", "gone"}, `state: must be one of "visible", "attached", "hidden", "detached", got "gone"`},
		{[]string{"wait-for", "#a", "--url", "**/x"}, "url waits alone"},
		{[]string{"wait-for", "--text", ""}, "--text needs the text"},
	} {
		r := runCLI(t, h, "", tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("bua %s: exit %d, stderr %q; want a refusal saying %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.says)
		}
	}
	if n := len(ext.Requests()); n != sent {
		t.Errorf("%d refused wait-for commands reached the extension", n-sent)
	}
}

// TestBackForwardAndDialog: back and forward print where the tab went, or
// that nothing moved; dialog sends handle_dialog and prints what it
// answered.
func TestBackForwardAndDialog(t *testing.T) {
	h, ext := startFake(t)
	moved := true
	ext.Handle(protocol.ActionGoBack, func(protocol.Action) (any, *protocol.Error) {
		return protocol.OKResult{OK: true, Moved: &moved, URL: "http://a.test/one"}, nil
	})
	stay := false
	ext.Handle(protocol.ActionGoForward, func(protocol.Action) (any, *protocol.Error) {
		return protocol.OKResult{OK: true, Moved: &stay}, nil
	})
	ext.Handle(protocol.ActionHandleDialog, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.HandleDialogResult{OK: true, DialogType: "prompt", Message: "Name?", Accepted: *a.Accept}, nil
	})
	if r := runCLI(t, h, "", "back"); r.code != 0 || r.stdout != "ok http://a.test/one\n" {
		t.Errorf("back: exit %d, %q", r.code, r.stdout)
	}
	if r := runCLI(t, h, "", "forward"); r.code != 0 || r.stdout != "ok, nothing moved: no later page in the tab's history\n" {
		t.Errorf("forward: exit %d, %q", r.code, r.stdout)
	}
	r := runCLI(t, h, "", "dialog", "accept", "--prompt-text", "Ada")
	reqs := ext.Requests()
	last := reqs[len(reqs)-1]
	if r.code != 0 || r.stdout != "accepted prompt \"Name?\"\n" || last.Accept == nil || !*last.Accept || last.PromptText == nil || *last.PromptText != "Ada" {
		t.Errorf("dialog accept --prompt-text Ada: exit %d, %q, sent %s", r.code, r.stdout, js(last))
	}
	if r := runCLI(t, h, "", "dialog", "dismiss"); r.code != 0 || r.stdout != "dismissed prompt \"Name?\"\n" {
		t.Errorf("dialog dismiss: exit %d, %q", r.code, r.stdout)
	}
	for _, args := range [][]string{{"dialog"}, {"dialog", "ok"}, {"dialog", "dismiss", "--prompt-text", "x"}, {"back", "2"}} {
		if r := runCLI(t, h, "", args...); r.code != exitUsage {
			t.Errorf("bua %s: exit %d (%s), want usage", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
