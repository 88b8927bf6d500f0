package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestRoleTargetFlags: --role, --name and --nth send a role target on
// click, hover, type and wait-for, and nothing else of the target.
func TestRoleTargetFlags(t *testing.T) {
	h, ext := startFake(t)
	one := 1
	tests := []struct {
		args []string
		want protocol.Action
	}{
		{[]string{"click", "--role", "button", "--name", "Sign in"}, protocol.Click(protocol.Target{Role: "button", Name: "Sign in"})},
		{[]string{"click", "--role", "button", "--name", "/^sign/i", "--nth", "1"}, protocol.Click(protocol.Target{Role: "button", Name: "/^sign/i", Nth: &one})},
		{[]string{"hover", "--role", "link"}, protocol.Hover(protocol.Target{Role: "link"})},
		{[]string{"type", "--role", "textbox", "--name", "Email", "a@b.test"}, protocol.Type(protocol.Target{Role: "textbox", Name: "Email"}, "a@b.test")},
		{[]string{"wait-for", "--role", "heading", "--name", "Done", "--timeout", "2s"}, protocol.WaitFor(protocol.Target{Role: "heading", Name: "Done"}, 2e9)},
	}
	for i, tt := range tests {
		r := runCLI(t, h, "", tt.args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d %s", tt.args, r.code, r.stderr)
		}
		reqs := ext.Requests()
		if len(reqs) != i+1 {
			t.Fatalf("%q: %d requests, want %d", tt.args, len(reqs), i+1)
		}
		got := reqs[i]
		got.TabID = nil
		if g, w := actionJSON(t, got), actionJSON(t, tt.want); g != w {
			t.Errorf("%q sent %s, want %s", tt.args, g, w)
		}
	}
}

// TestRoleTargetUsage: bad role-target flags are usage errors (exit 2)
// that say what to write, and nothing is sent.
func TestRoleTargetUsage(t *testing.T) {
	h, ext := startFake(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"click", "--role", "Button"}, `roles are lowercase; write "button"`},
		{[]string{"click", "--role", "buton", "--name", "Go"}, `did you mean "button"?`},
		{[]string{"hover", "--role", "widget"}, "abstract WAI-ARIA role"},
		{[]string{"click", "--name", "Go", "e3"}, "--name and --nth go with --role"},
		{[]string{"click", "--nth", "1", "#a"}, "--name and --nth go with --role"},
		{[]string{"click", "--role", "button", "--nth", "-1"}, "--nth counts from 0"},
		{[]string{"click", "--role", "button", "--name", ""}, "--name is empty"},
		{[]string{"click", "--role", "button", "--name", "/x/q"}, "not a regular expression flag"},
		{[]string{"click", "--role", "button", "--selector", "#a"}, "--role replaces TARGET"},
		{[]string{"click", "--role", "button", "e3"}, `got extra "e3"`},
		{[]string{"type", "--role", "textbox"}, "with --role, only TEXT"},
		{[]string{"wait-for", "--role", "button", "#a"}, `got extra "#a"`},
	}
	for _, tt := range tests {
		r := runCLI(t, h, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d stderr %q, want exit 2 mentioning %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if n := len(ext.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

func actionJSON(t *testing.T, a protocol.Action) string {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
