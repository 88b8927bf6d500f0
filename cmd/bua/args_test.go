package main

import (
	"slices"
	"strings"
	"testing"
)

func TestReorderArgs(t *testing.T) {
	app := newApp(&Env{}, nil)
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"FlagAfterTarget", []string{"bua", "click", "e3", "--tab", "5"}, []string{"bua", "click", "--tab", "5", "e3"}},
		{"FlagBeforeTarget", []string{"bua", "click", "--tab", "5", "e3"}, []string{"bua", "click", "--tab", "5", "e3"}},
		{"GlobalBeforeCommand", []string{"bua", "--json", "tabs"}, []string{"bua", "tabs", "--json"}},
		{"GlobalValueBeforeCommand", []string{"bua", "--browser", "managed", "tabs"}, []string{"bua", "tabs", "--browser", "managed"}},
		{"BoolFlagTakesNoValue", []string{"bua", "click", "e3", "--json", "--tab=2"}, []string{"bua", "click", "--json", "--tab=2", "e3"}},
		{"DashIsPositional", []string{"bua", "eval", "-", "--json"}, []string{"bua", "eval", "--json", "-"}},
		{"DoubleDashEndsFlags", []string{"bua", "eval", "--", "--not-a-flag"}, []string{"bua", "eval", "--", "--not-a-flag"}},
		{"Subcommand", []string{"bua", "browser", "start", "--block", "a.test", "--headless"}, []string{"bua", "browser", "start", "--block", "a.test", "--headless"}},
		{"UnknownCommand", []string{"bua", "nope", "--json"}, []string{"bua", "nope", "--json"}},
		{"CommandFlagBeforeCommand", []string{"bua", "--tab", "5", "click", "e3"}, []string{"bua", "click", "--tab", "5", "e3"}},
		{"CommandBoolBeforeCommand", []string{"bua", "--full-page", "screenshot"}, []string{"bua", "screenshot", "--full-page"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reorderArgs(app, tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("reorderArgs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestUsageErrorNamesHelp: a bad flag names the right help command, at the
// top level and on a command, never "bua bua".
func TestUsageErrorNamesHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "see `bua --help`"},
		{[]string{"click", "--bogus", "e3"}, "see `bua click --help`"},
		{[]string{"browser", "start", "--bogus"}, "see `bua browser start --help`"},
	} {
		r := runCLI(t, nil, "", tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "bua bua") {
			t.Errorf("bua %v: exit %d, stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
