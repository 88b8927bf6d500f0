package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestCompletionFlagValues: after a flag that takes one of a fixed set,
// the completion protocol offers that set, the protocol's own list, and
// nothing else (after `--flag` or bash's `--flag =`); after a flag the
// typed command does not have, or one that takes any value, bua leaves
// the answer to urfave/cli, which offers no such set. fish's script
// carries the same sets.
func TestCompletionFlagValues(t *testing.T) {
	const complete = "--generate-bash-completion"
	for _, tt := range []struct {
		args []string
		want []string // nil: none of flagValues' sets
	}{
		{[]string{"navigate", "--wait-until", complete}, protocol.WaitUntilValues},
		{[]string{"open", "https://a.test", "--wait-until", complete}, protocol.WaitUntilValues},
		{[]string{"reload", "--wait-until", "=", complete}, protocol.WaitUntilValues},
		{[]string{"click", "--role", complete}, protocol.Roles},
		{[]string{"wait-for", "--role", complete}, protocol.Roles},
		{[]string{"wait-for", "#x", "--state", complete}, protocol.WaitStates},
		{[]string{"click", "e3", "--button", complete}, protocol.MouseButtons},
		{[]string{"--dialogs", complete}, protocol.DialogPolicies},
		{[]string{"click", "--dialogs", complete}, protocol.DialogPolicies},
		{[]string{"browser", "start", "--browser", complete}, []string{"auto", "user", "managed"}},
		{[]string{"click", "--state", complete}, nil},       // click has no --state
		{[]string{"navigate", "--role", complete}, nil},     // nor navigate --role
		{[]string{"click", "--tab", complete}, nil},         // any tab id
		{[]string{"navigate", "--wait-until", "load"}, nil}, // no completion asked: navigate runs (no daemon here)
	} {
		r := runCLI(t, nil, "", tt.args...)
		got := strings.Fields(r.stdout)
		if tt.want != nil {
			if r.code != 0 || !slices.Equal(got, tt.want) {
				t.Errorf("%q: exit %d, offered %q; want %q", tt.args, r.code, got, tt.want)
			}
			continue
		}
		for _, set := range flagValues {
			if len(got) > 0 && slices.Equal(got, set) {
				t.Errorf("%q: offered %q", tt.args, got)
			}
		}
	}
	fish := runCLI(t, nil, "", "completion", "fish").stdout
	for _, want := range []string{
		"complete -c bua -l dialogs -x -a 'accept dismiss leave'\n",
		"complete -c bua -n '__fish_seen_subcommand_from navigate' -l wait-until -x -a 'commit domcontentloaded load networkidle'\n",
		"complete -c bua -n '__fish_seen_subcommand_from wait-for' -l state -x -a 'visible attached hidden detached'\n",
		"complete -c bua -n '__fish_seen_subcommand_from click' -l role -x -a '" + strings.Join(protocol.Roles, " ") + "'\n",
	} {
		if !strings.Contains(fish, want) {
			t.Errorf("bua completion fish lacks %q", want)
		}
	}
}
