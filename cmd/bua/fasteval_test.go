package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

func TestParseFastEval(t *testing.T) {
	tests := []struct {
		args   []string
		expr   string
		tab    int
		hasTab bool
		ok     bool
	}{
		{[]string{"bua", "eval", "return 1"}, "return 1", 0, false, true},
		{[]string{"bua", "eval", "return 1", "--tab", "7"}, "return 1", 7, true, true},
		{[]string{"bua", "eval", "--tab", "7", "return 1"}, "return 1", 7, true, true},
		{[]string{"bua", "eval", "--tab=7", "return 1"}, "return 1", 7, true, true},
		{[]string{"bua", "evaluate", "return 1"}, "return 1", 0, false, true},           // the flow step's name
		{[]string{"bua", "eval"}, "", 0, false, false},                                  // usage error: the full CLI explains
		{[]string{"bua", "eval", "-"}, "", 0, false, false},                             // stdin
		{[]string{"bua", "eval", "return 1", "--json"}, "", 0, false, false},            // another flag
		{[]string{"bua", "--json", "eval", "return 1"}, "", 0, false, false},            // a global flag first
		{[]string{"bua", "eval", "return 1", "--tab"}, "", 0, false, false},             // no tab value
		{[]string{"bua", "eval", "return 1", "--tab", "x"}, "", 0, false, false},        // not a number
		{[]string{"bua", "eval", "a", "b"}, "", 0, false, false},                        // two expressions
		{[]string{"bua", "eval", "x", "--tab", "1", "--tab", "2"}, "", 0, false, false}, // two tabs
		{[]string{"bua", "click", "#b"}, "", 0, false, false},
	}
	for _, tt := range tests {
		expr, tab, hasTab, ok := parseFastEval(tt.args)
		if expr != tt.expr || tab != tt.tab || hasTab != tt.hasTab || ok != tt.ok {
			t.Errorf("parseFastEval(%q) = %q, %d, %v, %v; want %q, %d, %v, %v", tt.args, expr, tab, hasTab, ok, tt.expr, tt.tab, tt.hasTab, tt.ok)
		}
	}
}

// TestFastEvalAnswersAsTheFullCLI runs each command line through the fast
// path and through the full CLI, against the same fake extension, and
// wants the same request sent and the same exit code, stdout and stderr.
func TestFastEvalAnswersAsTheFullCLI(t *testing.T) {
	h, ext := startFake(t)
	replies := []struct {
		name  string
		reply func(protocol.Action) (any, *protocol.Error)
	}{
		{"number", func(protocol.Action) (any, *protocol.Error) { return map[string]any{"type": "number", "value": 1}, nil }},
		{"string", func(protocol.Action) (any, *protocol.Error) {
			return map[string]any{"type": "string", "value": "a b"}, nil
		}},
		{"object", func(protocol.Action) (any, *protocol.Error) {
			return map[string]any{"type": "object", "value": map[string]any{"k": []int{1, 2}}}, nil
		}},
		{"undefined", func(protocol.Action) (any, *protocol.Error) { return map[string]any{"type": "undefined"}, nil }},
		{"described", func(protocol.Action) (any, *protocol.Error) {
			return map[string]any{"type": "object", "description": "HTMLBodyElement"}, nil
		}},
		{"truncated", func(protocol.Action) (any, *protocol.Error) {
			return map[string]any{"type": "string", "truncated": true, "preview": "aaa…[truncated 3 chars]"}, nil
		}},
		{"thrown", func(protocol.Action) (any, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeInvalidAction, "ReferenceError: nope is not defined")
		}},
		{"no tab", func(protocol.Action) (any, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeTabNotFound, "tab 7 is closed or never existed")
		}},
	}
	for _, r := range replies {
		ext.Handle(protocol.ActionEvaluate, r.reply)
		for _, args := range [][]string{{"eval", "return x", "--tab", "7"}, {"eval", "return x"}, {"evaluate", "return x", "--tab", "7"}} {
			if _, _, _, ok := parseFastEval(append([]string{"bua"}, args...)); !ok {
				t.Fatalf("%q does not take the fast path", args)
			}
			fast := runCLI(t, h, "", args...)
			fastSent := ext.Requests()[len(ext.Requests())-1]
			fastEvalEnabled = false
			full := runCLI(t, h, "", args...)
			fastEvalEnabled = true
			fullSent := ext.Requests()[len(ext.Requests())-1]
			if fast != full {
				t.Errorf("%s %q: fast path %+v, full CLI %+v", r.name, args, fast, full)
			}
			if fastSent.Expression != fullSent.Expression || !sameTab(fastSent.TabID, fullSent.TabID) {
				t.Errorf("%s %q: fast path sent %+v, full CLI %+v", r.name, args, fastSent, fullSent)
			}
			if r.name == "number" && strings.TrimSpace(fast.stdout) != "1" {
				t.Errorf("%q printed %q, want 1", args, fast.stdout)
			}
		}
	}
	ext.Handle(protocol.ActionEvaluate, nil)
}

func sameTab(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
