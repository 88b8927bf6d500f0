package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFrameFlag: --frame rides beside a selector on click, hover, type and
// wait-for (the schema's frame), and is refused with a uid before anything
// is sent.
func TestFrameFlag(t *testing.T) {
	h, ext := startFake(t)
	tests := []struct {
		args     []string
		typ      protocol.ActionType
		selector string
	}{
		{[]string{"click", "--selector", "#card", "--frame", "pay"}, protocol.ActionClick, "#card"},
		{[]string{"click", "#card", "--frame=pay"}, protocol.ActionClick, "#card"},
		{[]string{"hover", "button", "--frame", "pay"}, protocol.ActionHover, "button"},
		{[]string{"type", "--frame", "pay", "#card", "4242"}, protocol.ActionType_, "#card"},
		{[]string{"wait-for", "#card", "--frame", "pay", "--timeout", "2s"}, protocol.ActionWaitFor, "#card"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runCLI(t, h, "", tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			reqs := ext.Requests()
			got := reqs[len(reqs)-1]
			if got.Type != tt.typ || got.Selector != tt.selector || got.Frame != "pay" || got.UID != "" {
				t.Fatalf("sent %+v", got)
			}
		})
	}
	t.Run("WithUID", func(t *testing.T) {
		before := len(ext.Requests())
		r := runCLI(t, h, "", "click", "e3", "--frame", "pay")
		if r.code != exitUsage || !strings.Contains(r.stderr, "--frame goes with a CSS selector") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if len(ext.Requests()) != before {
			t.Fatal("a uid with --frame reached the extension")
		}
	})
	t.Run("WithRole", func(t *testing.T) {
		r := runCLI(t, h, "", "click", "--role", "button", "--name", "Pay now", "--frame", "pay")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		reqs := ext.Requests()
		got := reqs[len(reqs)-1]
		if got.Role != "button" || got.Name != "Pay now" || got.Frame != "pay" {
			t.Fatalf("sent %+v", got)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		before := len(ext.Requests())
		r := runCLI(t, h, "", "click", "#card", "--frame", "")
		if r.code != exitUsage || !strings.Contains(r.stderr, "--frame needs TEXT") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if len(ext.Requests()) != before {
			t.Fatal("an empty frame reached the extension")
		}
	})
}
