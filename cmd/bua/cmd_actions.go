package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/dialogs"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
	"github.com/bua-dev/bua/pkg/roletarget"
)

// The action commands, one file per action family as the extension's
// actions are (extension/src/actions/): cmd_nav.go (navigate, reload, back,
// forward), cmd_tabs.go (tabs, open, close), cmd_input.go (click, hover,
// type, press, scroll), cmd_forms.go (select, upload), cmd_waits.go
// (wait-for), cmd_eval.go, cmd_capture.go (screenshot), cmd_dialog.go,
// cmd_extract.go, cmd_describe.go, cmd_trace.go and cmd_handoff.go
// (wait-for-human). This file holds what they share: the options every one
// starts with, reading a target, and sending one action.
//
// Each command reads its command line into an options struct, then runs
// it: newXCommand(env, runF) takes a run function that, when not nil,
// replaces the real one (cli/cli's seam), so tests check what a command
// line parses to without a daemon.

// actionOptions are an action command's common options: the global flags
// and --tab.
type actionOptions struct {
	globalOptions
	// Tab is --tab given as a tab id; nil leaves the tab to the protocol's
	// default (the most recently used tab in the BUA window), or to
	// globalOptions.TabHandle when --tab gave a handle.
	Tab *int
}

// read fills o from c's global flags and --tab, and checks --dialogs: the
// checks every action command makes once it has read its own arguments.
func (o *actionOptions) read(c *cli.Context, env *Env) error {
	o.globalOptions = readGlobals(c, env)
	if c.IsSet("tab") {
		id, handle, err := parseTab(c.String("tab"))
		if err != nil {
			return err
		}
		o.Tab, o.TabHandle = id, handle
	}
	return o.checkDialogs()
}

// parseTab reads a tab as --tab and close take it: a handle as `bua tabs`
// shows it (t1, t2, …), which the daemon resolves, or a tab id. A
// malformed one is a usage error saying what to pass.
func parseTab(s string) (id *int, handle string, err error) {
	if bridge.IsTabHandle(s) {
		return nil, s, nil
	}
	n, aerr := strconv.Atoi(s)
	if aerr != nil || n < 0 {
		return nil, "", usageError(fmt.Sprintf("--tab %q: want a tab handle like t2 or a tab id, as `bua tabs` lists them", s))
	}
	return &n, "", nil
}

// onTab is a sent on --tab's tab, when given.
func (o *actionOptions) onTab(a protocol.Action) protocol.Action {
	if o.Tab != nil {
		return a.OnTab(*o.Tab)
	}
	return a
}

// runWith runs o with runF when a test gave one, else with run.
func runWith[T any](o *T, runF, run func(*T) error) error {
	if runF != nil {
		return runF(o)
	}
	return run(o)
}

// tabFlag is --tab on every action command: a handle (t2) or a tab id.
func tabFlag() cli.Flag {
	return &cli.StringFlag{Name: "tab", Usage: "act on tab `TAB`: its handle, like t2, or its id (see `bua tabs`); default: the most recently used tab in the BUA window"}
}

// actionCommand is an action command with --tab.
func actionCommand(name, usage, args string, flags []cli.Flag, action cli.ActionFunc) *cli.Command {
	return &cli.Command{
		Name: name, Category: catActions, Usage: usage, ArgsUsage: args,
		Flags: append(flags, tabFlag()), Action: action,
	}
}

// runAction sends one action and prints its result: the raw result JSON
// with --json, else render's text. Errors print in the one shared form and
// exit with the contract's code.
func (o *actionOptions) runAction(a protocol.Action, render func(json.RawMessage) error) error {
	return o.runActionJSON(a, nil, render)
}

// runActionJSON is runAction whose --json output is shape(result) when
// shape is not nil.
func (o *actionOptions) runActionJSON(a protocol.Action, shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	return o.runActionAfter(a, nil, shape, render)
}

// runActionAfter is runActionJSON whose result first goes through after
// when after is not nil (--download moves the file it reports); an error
// from after fails the command.
func (o *actionOptions) runActionAfter(a protocol.Action, after func(json.RawMessage) (json.RawMessage, error), shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	a = o.onTab(a)
	req, err := o.actionRequester()
	if err != nil {
		return o.fail(err)
	}
	defer req.Close()
	ctx, cancel := o.actionContext(a)
	defer cancel()
	res, berr := dialogs.Send(ctx, req, a, o.Dialogs, func(d dialogs.Answer) {
		if !o.Quiet {
			fmt.Fprintf(o.env.Stderr, "bua: %s %s %q (--dialogs %s)\n", d.How(), d.DialogType, d.Message, o.Dialogs)
		}
	})
	if berr != nil && berr.Reason == protocol.ReasonRefused {
		printBridgeError(o.env, berr, o.JSON)
		return exit(exitUsage) // the daemon refused it before sending
	}
	if berr != nil {
		return o.failWith(berr)
	}
	if after != nil {
		var err error
		if res, err = after(res); err != nil {
			return cli.Exit("bua: "+err.Error(), exitFailure)
		}
	}
	if o.JSON {
		if shape != nil {
			return printJSON(o.env, shape(res))
		}
		return printJSON(o.env, res)
	}
	if render == nil {
		return nil
	}
	return render(res)
}

// printOK is the text form of {ok: true, tabId}, and for an input of
// where it went (render.Input): the URL it navigated to, the tab it opened
// (newTabId); --quiet prints only that new tab's id, as `bua open` prints
// its tab's, since the rest is nothing a script needs beyond the exit
// code.
func (o *actionOptions) printOK(verb string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		if o.Quiet {
			if r.NewTabID != nil {
				fmt.Fprintln(o.env.Stdout, *r.NewTabID)
			}
			return nil
		}
		fmt.Fprintln(o.env.Stdout, render.Input(verb, r))
		return nil
	}
}

// targetFlags are --uid and --selector, which force how TARGET is read;
// --frame, the frame a selector or role target is looked up in (the
// schema's frame); and
// --role, --name and --nth, the role target that replaces TARGET.
func targetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "uid", Usage: "read TARGET as a uid from the last extract"},
		&cli.BoolFlag{Name: "selector", Usage: "read TARGET as a CSS selector, even when it looks like e3"},
		&cli.StringFlag{Name: "frame", Usage: "look for the selector (or --role) in the iframe whose URL contains `TEXT` or whose name is TEXT"},
		&cli.StringFlag{Name: "role", Usage: "target the element with WAI-ARIA `ROLE` (button, link, textbox, ...) instead of TARGET; no extract needed"},
		&cli.StringFlag{Name: "name", Usage: "with --role: the accessible `NAME`, exact, or /pattern/flags"},
		&cli.IntFlag{Name: "nth", Usage: "with --role: take the `N`th match, 0-based, when several have that role and name"},
	}
}

// forceFlag is --force on click, hover, type and select: act without
// waiting for the target to be actionable (the schema's force).
func forceFlag() cli.Flag {
	return &cli.BoolFlag{Name: "force", Usage: "act at once, skipping the wait until TARGET is visible, stable, enabled and not covered"}
}

// target reads the command's target and returns the args after it: with
// --role, the role target (no TARGET argument); otherwise TARGET, where
// ^e\d+$ is a uid and anything else a CSS selector, unless --uid or
// --selector says otherwise.
func target(c *cli.Context) (protocol.Target, []string, error) {
	args := c.Args().Slice()
	if c.IsSet("role") {
		return roleTarget(c, args)
	}
	if c.IsSet("name") || c.IsSet("nth") {
		return protocol.Target{}, nil, usageError("--name and --nth go with --role, e.g. --role button --name \"Sign in\"")
	}
	if len(args) == 0 {
		return protocol.Target{}, nil, usageError(c.Command.Name + " needs a TARGET: a uid like e3 (from `bua extract`), a CSS selector, or --role ROLE [--name NAME]")
	}
	s, rest := args[0], args[1:]
	var t protocol.Target
	switch {
	case c.Bool("uid") && c.Bool("selector"):
		return protocol.Target{}, nil, usageError("--uid and --selector exclude each other")
	case c.Bool("uid"):
		t = protocol.Target{UID: s}
	case c.Bool("selector"):
		t = protocol.Target{Selector: s}
	default:
		t = protocol.ParseTarget(s)
	}
	if err := frameFlag(c, &t); err != nil {
		return protocol.Target{}, nil, err
	}
	return t, rest, nil
}

// oneTarget is target for a command that takes TARGET and nothing after
// it.
func oneTarget(c *cli.Context) (protocol.Target, error) {
	t, rest, err := target(c)
	if err == nil && len(rest) > 0 {
		err = usageError(fmt.Sprintf("%s takes one TARGET (or --role ROLE [--name NAME]), got extra %q", c.Command.Name, rest[0]))
	}
	return t, err
}

// frameFlag sets t.Frame from --frame, which goes with a CSS selector or
// --role, not a uid.
func frameFlag(c *cli.Context, t *protocol.Target) error {
	if !c.IsSet("frame") {
		return nil
	}
	if t.UID != "" {
		return usageError("--frame goes with a CSS selector or --role: uid " + t.UID + " already names the frame it was read in")
	}
	if t.Frame = c.String("frame"); t.Frame == "" {
		return usageError("--frame needs TEXT: a part of the iframe's URL, or its name")
	}
	return nil
}

// roleTarget reads --role, --name and --nth, checking the role and name as
// the flow loader does (roletarget.CheckRole, roletarget.CheckName).
func roleTarget(c *cli.Context, args []string) (protocol.Target, []string, error) {
	if c.Bool("uid") || c.Bool("selector") {
		return protocol.Target{}, nil, usageError("--role replaces TARGET: drop --uid and --selector")
	}
	t := protocol.Target{Role: c.String("role"), Name: c.String("name")}
	if err := roletarget.CheckRole(t.Role); err != nil {
		return protocol.Target{}, nil, usageError(err.Error())
	}
	if c.IsSet("name") && t.Name == "" {
		return protocol.Target{}, nil, usageError("--name is empty: leave it out to match any name")
	}
	if err := roletarget.CheckName(t.Name); err != nil {
		return protocol.Target{}, nil, usageError(err.Error())
	}
	if c.IsSet("nth") {
		n := c.Int("nth")
		if n < 0 {
			return protocol.Target{}, nil, usageError("--nth counts from 0: the first match is --nth 0")
		}
		t.Nth = &n
	}
	if err := frameFlag(c, &t); err != nil {
		return protocol.Target{}, nil, err
	}
	return t, args, nil
}
