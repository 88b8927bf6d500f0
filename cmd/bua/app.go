package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// Command categories, as `bua --help` groups them.
const (
	catActions = "Actions"
	catFlows   = "Flows"
	catSetup   = "Setup"
)

// registry holds every command: each command's file registers itself in
// init, so adding a command touches one file.
var registry []registered

// registered is one command: the words that name it (its Name, then its
// Aliases) and its constructor. newApp builds only the command a command
// line names, so a one-shot command pays for building that one alone.
type registered struct {
	names []string
	build func(*Env) *cli.Command
	// whole: the command reads every other one (completion's fish
	// script), so a command line naming it builds them all.
	whole bool
}

// register adds the command build makes, named names (its Name, then its
// Aliases: TestRegistryNames checks they agree).
func register(build func(*Env) *cli.Command, names ...string) {
	registry = append(registry, registered{names: names, build: build})
}

// registerWhole is register for a command that reads every other command
// from its app.
func registerWhole(build func(*Env) *cli.Command, names ...string) {
	registry = append(registry, registered{names: names, build: build, whole: true})
}

// registeredAs is the command that name names, or nil.
func registeredAs(name string) *registered {
	for i := range registry {
		if slices.Contains(registry[i].names, name) {
			return &registry[i]
		}
	}
	return nil
}

// exitError carries an exit code out of a command after its message has
// been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exit returns an error that makes run return code without printing more.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code}
}

// globalFlags apply to every command.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print the full result or error as one JSON object"},
		&cli.DurationFlag{Name: "timeout", Usage: "how long the command may work, all of it; it answers within that plus " + protocol.LadderMargin.String() + " (0 = the action's own default)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only what scripts need"},
		&cli.StringFlag{Name: "browser", Value: "auto", Usage: "which browser serves actions: auto, user, managed, managed-N (1-15), or a pairing's name (bua pair --name)"},
		&cli.StringFlag{Name: "dialogs", Value: protocol.DialogsLeave, Usage: "what to do with a page's alert, confirm, prompt or beforeunload dialog: `POLICY` is leave (keep it open; the action fails, naming it), dismiss or accept (answer it as actions meet it; leaving a page always accepts its beforeunload)"},
	}
}

// newApp is the app for args: when args name a command (after any global
// flags), that command alone, since building all of them was most of a
// one-shot command's own time (BENCHMARKS.md §One client path); else (no
// command, an unknown one, help, completion) every command. Nil args build
// every command.
func newApp(env *Env, args []string) *cli.App {
	if i := commandAt(args); i < len(args) {
		if r := registeredAs(args[i]); r != nil && !r.whole {
			return appOf(env, []*cli.Command{r.build(env)})
		}
	}
	cmds := make([]*cli.Command, 0, len(registry))
	for _, r := range registry {
		cmds = append(cmds, r.build(env))
	}
	return appOf(env, cmds)
}

// appOf is the app of cmds, each given the global flags.
func appOf(env *Env, cmds []*cli.Command) *cli.App {
	app := &cli.App{
		Name:                 "bua",
		Usage:                "drive your real Chrome, or a managed Chromium, from the shell and CI",
		Version:              version,
		Flags:                globalFlags(),
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      false,
		ExitErrHandler:       func(*cli.Context, error) {}, // run() maps errors to exit codes
		OnUsageError:         onUsageError,
		// Without an Action, urfave/cli answers an unknown command with its
		// help's exit code 3, which bua reserves for "blocked".
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError(fmt.Sprintf("unknown command %q: see `bua --help`", c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
	}
	for _, cmd := range cmds {
		addGlobalFlags(cmd)
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			// As for the app: without an Action, urfave/cli answers `bua
			// browser bogus` with its help's exit code 3 ("blocked").
			cmd.Action = func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageError(fmt.Sprintf("unknown command %q: see `%s`", c.Args().First(), helpCommand(c)))
				}
				return cli.ShowSubcommandHelp(c)
			}
		}
		app.Commands = append(app.Commands, cmd)
	}
	sort.SliceStable(app.Commands, func(i, j int) bool { return app.Commands[i].Name < app.Commands[j].Name })
	return app
}

// addGlobalFlags lets global flags follow the command name too (`bua tabs
// --json`); a command's own flag of the same name (wait-for's --timeout)
// wins.
func addGlobalFlags(cmd *cli.Command) {
	cmd.OnUsageError = onUsageError
	have := map[string]bool{}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			have[n] = true
		}
	}
	for _, f := range globalFlags() {
		if !have[f.Names()[0]] {
			cmd.Flags = append(cmd.Flags, f)
		}
	}
	for _, sub := range cmd.Subcommands {
		addGlobalFlags(sub)
	}
}

// onUsageError keeps stdout for results: a bad flag is one line on stderr
// and exit 2, not the command's whole help.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return usageError(err.Error() + ": see `" + helpCommand(c) + "`")
}

// helpCommand is the help line for c's command: "bua click --help", or
// "bua --help" at the top level (whose command is the app itself).
func helpCommand(c *cli.Context) string {
	var names []string // innermost first
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			names = append(names, ctx.Command.Name)
		}
	}
	words := []string{"bua"}
	for i := len(names) - 1; i >= 0; i-- {
		words = append(words, names[i])
	}
	return strings.Join(append(words, "--help"), " ")
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, env *Env) int {
	if n := len(args) - 1; n > 0 && args[n] == "--generate-bash-completion" && slices.Contains(args[:n], "--") {
		// After "--" urfave/cli stops completing and runs the command,
		// the request as its argument: a Tab must never run an action.
		return 0
	}
	if len(args) == 3 && args[1] == "help" && slices.Contains(helpTopics, args[2]) {
		args = []string{args[0], args[2]} // a help topic, not a command's usage
	}
	app := newApp(env, args)
	if values, ok := completeFlagValue(app, args); ok {
		fmt.Fprintln(env.Stdout, strings.Join(values, "\n"))
		return 0
	}
	return runApp(ctx, app, args, env)
}

// helpTopics are the words `bua help TOPIC` explains beside the commands:
// each is also a command of its own that prints it.
var helpTopics = []string{"environment", "exit-codes"}

// noHelpTopic is urfave/cli's answer to `bua help WORD` for a WORD that is
// no command: its message starts so, with its help's exit code 3, which
// bua keeps for "blocked".
const noHelpTopic = "No help topic for "

// runApp runs args through app and maps what it returns to the exit code,
// printing the error the command has not printed itself.
func runApp(ctx context.Context, app *cli.App, args []string, env *Env) int {
	err := app.RunContext(ctx, reorderArgs(app, args))
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) && strings.HasPrefix(err.Error(), noHelpTopic) {
		fmt.Fprintf(env.Stderr, "bua: no help topic or command %s: the topics are %s; the commands are in `bua --help`\n",
			strings.TrimPrefix(err.Error(), noHelpTopic), strings.Join(helpTopics, ", "))
		return exitUsage
	}
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(env.Stderr, msg)
		}
		return ec.ExitCode()
	}
	var be *protocol.Error
	if errors.As(err, &be) {
		printBridgeError(env, be, false)
		return exitForCode(be.Code)
	}
	fmt.Fprintf(env.Stderr, "bua: %v\n", err)
	return exitUsage
}

// printBridgeError prints err the one way every command does: as JSON
// {"error": {code, message, hint}} on stdout when asJSON, otherwise
// "error[CODE]: message" and the hint on stderr.
func printBridgeError(env *Env, err *protocol.Error, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(bodyOf(err))
		return
	}
	fmt.Fprintf(env.Stderr, "error[%s]: %s\n", err.Code, err.Message)
	if h := render.CommandHint(err); h != "" {
		fmt.Fprintf(env.Stderr, "hint: %s\n", h)
	}
}
