package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// flagValues are the values of the flags that take one of a fixed set, by
// flag name, for shell completion: the protocol's own lists, generated
// from its schema, so a value the schema gains is offered at once.
var flagValues = map[string][]string{
	"wait-until": protocol.WaitUntilValues,
	"state":      protocol.WaitStates,
	"role":       protocol.Roles,
	"button":     protocol.MouseButtons,
	"dialogs":    protocol.DialogPolicies,
	// A pairing's name or managed-N works too; these are the ones every
	// home has.
	"browser": {string(bridge.SelectAuto), string(bridge.SelectUser), string(bridge.SelectManaged)},
}

// completeFlagValue answers a completion request (args end in
// --generate-bash-completion) whose word before the one being completed
// is a flag of the typed command that takes one of flagValues, as
// `--role` or `--role=` (bash splits the "=" off as a word of its own):
// those values. ok is false for any other request, which urfave/cli
// answers (it would offer the command's flags again).
func completeFlagValue(app *cli.App, args []string) (values []string, ok bool) {
	n := len(args) - 1
	if n < 2 || args[n] != "--generate-bash-completion" {
		return nil, false
	}
	flag := args[n-1]
	if flag == "=" && n >= 3 {
		flag = args[n-2]
	}
	if !strings.HasPrefix(flag, "-") || strings.Contains(flag, "=") {
		return nil, false
	}
	name := strings.TrimLeft(flag, "-")
	if values, ok = flagValues[name]; !ok {
		return nil, false
	}
	// The command typed: each word that names a subcommand of the one
	// before; flags and their values, and positionals, name none.
	flags, cmds := app.Flags, app.Commands
	for _, word := range args[1 : n-1] {
		for _, c := range cmds {
			if c.HasName(word) {
				flags, cmds = c.Flags, c.Subcommands
				break
			}
		}
	}
	if !slices.ContainsFunc(flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) }) {
		return nil, false
	}
	return values, true
}

// fishFlagValues is fish's part of the same: a `complete` line per flag of
// flagValues, whose values fish offers after it. The global flags' lines
// hold everywhere; a command's own flag's, after that command.
func fishFlagValues(app *cli.App) string {
	var b strings.Builder
	line := func(cond, name string) {
		if cond != "" {
			cond = " -n '__fish_seen_subcommand_from " + cond + "'"
		}
		fmt.Fprintf(&b, "complete -c %s%s -l %s -x -a '%s'\n", app.Name, cond, name, strings.Join(flagValues[name], " "))
	}
	global := map[string]bool{}
	for _, f := range app.Flags {
		name := f.Names()[0]
		global[name] = true
		if _, ok := flagValues[name]; ok {
			line("", name)
		}
	}
	var walk func(cmds []*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			for _, f := range c.Flags {
				name := f.Names()[0]
				if _, ok := flagValues[name]; ok && !global[name] {
					line(strings.Join(c.Names(), " "), name)
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	return b.String()
}
