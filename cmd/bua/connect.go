package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/dialogs"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// dirs resolves bua's directories from the environment.
func dirs(env *Env) (home.Dirs, error) { return home.Resolve(env.Getenv) }

// connect returns a client to the daemon, starting one when none runs.
// Failure is a *protocol.Error with CodeBridgeUnavailable.
func connect(c *cli.Context, env *Env) (*bridge.Client, error) {
	return dial(c, env, false)
}

// connectToAct is connect for a command about to send actions: a daemon it
// starts launches the managed browser at once where the launch policy
// allows (bridge.ClientOptions.Prelaunch), overlapping the dial.
func connectToAct(c *cli.Context, env *Env) (*bridge.Client, error) {
	return dial(c, env, true)
}

func dial(c *cli.Context, env *Env, prelaunch bool) (*bridge.Client, error) {
	d, err := dirs(env)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v", err)
	}
	sel, err := bridge.ParseSelection(c.String("browser"))
	if err != nil {
		return nil, usageError(err.Error())
	}
	// --timeout bounds the dial too, a daemon's start included.
	ctx, cancel := commandContext(c)
	defer cancel()
	cl, berr := bridge.Dial(ctx, bridge.ClientOptions{
		Dirs: d, AutoStart: env.AutoStart, Browser: sel, Env: os.Environ(), Prelaunch: prelaunch,
	})
	if berr != nil {
		return nil, berr
	}
	return cl, nil
}

// dialExisting connects only to a running daemon (status, stop, browser
// stop), within ctx.
func dialExisting(ctx context.Context, env *Env) (*bridge.Client, *protocol.Error) {
	d, err := dirs(env)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v", err)
	}
	return bridge.Dial(ctx, bridge.ClientOptions{Dirs: d})
}

// commandContext applies the global --timeout to c's context: the time
// the command's work may take (for an action, schema x-ladder level 1),
// all of it. protocol.WithTimeout puts the ladder's margins on top, so the
// command answers within --timeout plus protocol.LadderMargin.
func commandContext(c *cli.Context) (context.Context, context.CancelFunc) {
	if t := c.Duration("timeout"); t > 0 {
		// protocol.WithTimeout keeps t, so errors state it.
		return protocol.WithTimeout(c.Context, t)
	}
	return context.WithCancel(c.Context)
}

// linkTimeout is the deadline of a command that only asks the daemon
// something (status, stop, browser stop, pair --code) when --timeout sets
// none. The daemon answers those at once (browser stop within the
// browser's 5 s SIGTERM grace), so one that has not answered by then is
// suspended or stuck, and the command says so (bridge.Client's
// daemon_unresponsive) instead of waiting for ever.
const linkTimeout = 30 * time.Second

// linkContext is commandContext for those commands: --timeout when given,
// else linkTimeout. It bounds the dial and every wait of the command. No
// ladder margin goes on top: nothing it asks reaches the extension, so
// the command answers within --timeout itself.
func linkContext(c *cli.Context) (context.Context, context.CancelFunc) {
	t := c.Duration("timeout")
	if t <= 0 {
		t = linkTimeout
	}
	return protocol.WithExactTimeout(c.Context, t)
}

// actionContext is runAction's context. An action with a timeoutMs of its
// own (wait_for) has --timeout as that very flag (reorderArgs moves a
// global --timeout behind the command, where the command's flag wins), so
// it times the wait, not the command: the command gets no deadline of its
// own and the pool's default for the action applies, its x-budgetMs on top
// of the wait (schema x-ladder). The wait then runs its whole time and its
// timeout error names it, rather than a wait cut short to leave the reply
// margin inside the same few seconds.
func actionContext(c *cli.Context, a protocol.Action) (context.Context, context.CancelFunc) {
	if a.TimeoutMs != nil {
		return context.WithCancel(c.Context)
	}
	return commandContext(c)
}

// runAction sends one action and prints its result: the raw result JSON
// with --json, else render's text. Errors print in the one shared form and
// exit with the contract's code.
func runAction(c *cli.Context, env *Env, a protocol.Action, render func(json.RawMessage) error) error {
	return runActionJSON(c, env, a, nil, render)
}

// runActionJSON is runAction whose --json output is shape(result) when
// shape is not nil.
func runActionJSON(c *cli.Context, env *Env, a protocol.Action, shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	return runActionAfter(c, env, a, nil, shape, render)
}

// runActionAfter is runActionJSON whose result first goes through after
// when after is not nil (--download moves the file it reports); an error
// from after fails the command.
func runActionAfter(c *cli.Context, env *Env, a protocol.Action, after func(json.RawMessage) (json.RawMessage, error), shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	if tab := c.Int("tab"); c.IsSet("tab") {
		a = a.OnTab(tab)
	}
	policy, err := dialogPolicy(c)
	if err != nil {
		return err
	}
	cl, err := connectToAct(c, env)
	if err != nil {
		return fail(c, env, err)
	}
	defer cl.Close()
	ctx, cancel := actionContext(c, a)
	defer cancel()
	res, berr := dialogs.Send(ctx, cl, a, policy, func(d dialogs.Answer) {
		if !c.Bool("quiet") {
			fmt.Fprintf(env.Stderr, "bua: %s %s %q (--dialogs %s)\n", d.How(), d.DialogType, d.Message, policy)
		}
	})
	if berr != nil && berr.Reason == protocol.ReasonRefused {
		printBridgeError(env, berr, c.Bool("json"))
		return exit(exitUsage) // the daemon refused it before sending
	}
	if berr != nil {
		return failWith(c, env, berr)
	}
	if after != nil {
		var err error
		if res, err = after(res); err != nil {
			return cli.Exit("bua: "+err.Error(), exitFailure)
		}
	}
	if c.Bool("json") {
		if shape != nil {
			return printJSON(env, shape(res))
		}
		return printJSON(env, res)
	}
	if render == nil {
		return nil
	}
	return render(res)
}

// fail prints any error the way its kind asks: bridge errors with their
// code and hint, usage errors as usage.
func fail(c *cli.Context, env *Env, err error) error {
	if be, ok := err.(*protocol.Error); ok {
		return failWith(c, env, be)
	}
	return err
}

// usageError is a command-line mistake: exit 2 with the message.
func usageError(msg string) error { return cli.Exit("bua: "+msg, exitUsage) }

// printJSON pretty-prints raw JSON (or any value) on stdout.
func printJSON(env *Env, v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		var anyv any
		if err := json.Unmarshal(raw, &anyv); err == nil {
			v = anyv
		}
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// dialogPolicy reads the global --dialogs (pkg/dialogs): leave (the
// default), accept or dismiss.
func dialogPolicy(c *cli.Context) (string, error) {
	p := c.String("dialogs")
	if err := dialogs.Check(p); err != nil {
		return "", usageError("--dialogs: " + err.Error())
	}
	return p, nil
}

// tabFlag is --tab on every action command.
func tabFlag() cli.Flag {
	return &cli.IntFlag{Name: "tab", Usage: "act on tab `ID` (see `bua tabs`); default: the most recently used tab in the BUA window"}
}
