package main

import (
	"slices"
	"testing"
)

func TestReorderArgs(t *testing.T) {
	app := newApp(&Env{})
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reorderArgs(app, tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("reorderArgs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
