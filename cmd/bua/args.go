package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves every flag after a command's name in front of its
// positional arguments, because people type `bua click e3 --tab 5` as often
// as `bua click --tab 5 e3`, and urfave/cli stops reading flags at the first
// positional. "--" still ends flag parsing, and "-" stays positional (stdin).
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Completion (`bua completion`'s scripts) asks with the words typed so
	// far and --generate-bash-completion, which urfave/cli reads only when
	// it is last: the words are reordered, the request stays behind them.
	if n := len(args) - 1; n > 1 && args[n] == "--generate-bash-completion" {
		return append(reorderArgs(app, args[:n]), args[n])
	}
	out := []string{args[0]}
	// Global flags typed before the command move behind it: every command
	// defines them too, and urfave/cli reads the nearest definition.
	var globals []string
	i := copyFlags(app.Flags, args, 1, &globals)
	if i >= len(args) {
		return append(out, globals...)
	}
	cmd := findCommand(app.Commands, args[i])
	if cmd == nil {
		out = append(out, globals...)
		return append(out, args[i:]...)
	}
	out = append(out, args[i])
	i++
	for len(cmd.Subcommands) > 0 && i < len(args) {
		sub := findCommand(cmd.Subcommands, args[i])
		if sub == nil {
			break
		}
		out = append(out, args[i])
		cmd = sub
		i++
	}
	flags := globals
	var positional []string
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			if !strings.Contains(a, "=") && takesValue(cmd.Flags, app.Flags, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	out = append(out, flags...)
	return append(out, positional...)
}

// commandAt is the index in args of the command's name, after the flags
// typed before it (copyFlags); len(args) when there is none.
func commandAt(args []string) int {
	if len(args) < 2 {
		return len(args)
	}
	var skipped []string
	return copyFlags(globalFlags(), args, 1, &skipped)
}

// copyFlags copies the flags typed before the command; globals are the
// global flags. A command's own flag there (`bua --tab 5 click e3`) moves
// behind the command too; when it is not a global, the token after it is
// its value unless that token is a command name, so `--tab 5` keeps its 5.
func copyFlags(globals []cli.Flag, args []string, i int, out *[]string) int {
	for i < len(args) && len(args[i]) > 1 && args[i][0] == '-' && args[i] != "--" {
		*out = append(*out, args[i])
		if !strings.Contains(args[i], "=") && i+1 < len(args) {
			known := isFlag(globals, args[i])
			if (known && takesValue(globals, nil, args[i])) || (!known && registeredAs(args[i+1]) == nil && !strings.HasPrefix(args[i+1], "-")) {
				i++
				*out = append(*out, args[i])
			}
		}
		i++
	}
	return i
}

// isFlag reports whether token names one of defs.
func isFlag(defs []cli.Flag, token string) bool {
	name := strings.TrimLeft(token, "-")
	for _, f := range defs {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// takesValue reports whether the flag token names a non-boolean flag.
func takesValue(defs, globals []cli.Flag, token string) bool {
	name := strings.TrimLeft(token, "-")
	for _, set := range [][]cli.Flag{defs, globals} {
		for _, f := range set {
			for _, n := range f.Names() {
				if n == name {
					_, isBool := f.(*cli.BoolFlag)
					return !isBool
				}
			}
		}
	}
	return false
}
