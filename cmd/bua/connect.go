package main

import (
	"context"
	"encoding/json"
	"errors"
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

// globalOptions are the global flags (globalFlags) as a command line set
// them, with the command's I/O and context: every command's options start
// with them, as cli/cli's options start with its IOStreams.
type globalOptions struct {
	env *Env
	// ctx is the command's context: main's, which Ctrl-C and SIGTERM
	// cancel.
	ctx context.Context

	JSON  bool
	Quiet bool
	// Timeout is --timeout: the global one, or the command's own where it
	// has one (wait-for's and wait-for-human's, which also bound the dial).
	Timeout time.Duration
	// Browser is --browser as typed: commands that dial read it
	// (bridge.ParseSelection), so a command that never dials ignores it.
	Browser string
	// Dialogs is --dialogs as typed: the commands that send actions check
	// it (checkDialogs).
	Dialogs string
	// TabHandle is --tab (or close's TAB) when it names a tab by handle
	// (t2): the dialled client sends it with every request, and the daemon
	// resolves it (bridge.ClientOptions.Tab); "" for none.
	TabHandle string
	// owner, when set, is the tab owner the dialled client acts for, and
	// ownWindow opens its tabs in a window of its own
	// (bridge.ClientOptions): a worker of `bua run --parallel` in the
	// person's Chrome.
	owner     string
	ownWindow bool
}

// readGlobals reads c's global flags.
func readGlobals(c *cli.Context, env *Env) globalOptions {
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return globalOptions{env: env, ctx: ctx, JSON: c.Bool("json"), Quiet: c.Bool("quiet"),
		Timeout: c.Duration("timeout"), Browser: c.String("browser"), Dialogs: c.String("dialogs")}
}

// checkDialogs checks --dialogs (pkg/dialogs): leave (the default),
// accept or dismiss.
func (g *globalOptions) checkDialogs() error {
	if err := dialogs.Check(g.Dialogs); err != nil {
		return usageError("--dialogs: " + err.Error())
	}
	return nil
}

// connect returns a client to the daemon, starting one when none runs.
// Failure is a *protocol.Error with CodeBridgeUnavailable.
func (g *globalOptions) connect() (*bridge.Client, error) {
	return g.dial(false)
}

// connectToAct is connect for a command about to send actions: a daemon it
// starts launches the managed browser at once where the launch policy
// allows (bridge.ClientOptions.Prelaunch), overlapping the dial.
func (g *globalOptions) connectToAct() (*bridge.Client, error) {
	return g.dial(true)
}

func (g *globalOptions) dial(prelaunch bool) (*bridge.Client, error) {
	o, err := g.clientOptions(prelaunch)
	if err != nil {
		return nil, err
	}
	// --timeout bounds the dial too, a daemon's start included.
	ctx, cancel := g.commandContext()
	defer cancel()
	cl, berr := g.env.connect(ctx, o)
	if berr != nil {
		return nil, berr
	}
	return cl, nil
}

// clientOptions are the options of g's link to the daemon: its browser
// (a name the daemon does not know is a usage error), owner and tab.
func (g *globalOptions) clientOptions(prelaunch bool) (bridge.ClientOptions, error) {
	d, err := dirs(g.env)
	if err != nil {
		return bridge.ClientOptions{}, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v", err)
	}
	sel, err := bridge.CheckBrowser(d, g.Browser)
	if err != nil {
		return bridge.ClientOptions{}, usageError(fmt.Sprintf("--browser %q: %v", g.Browser, err))
	}
	return bridge.ClientOptions{
		Dirs: d, AutoStart: g.env.AutoStart, Browser: sel, Env: os.Environ(), Prelaunch: prelaunch,
		Owner: g.owner, OwnWindow: g.ownWindow, Tab: g.TabHandle,
	}, nil
}

// requester is the one Requester a flow run (each of its workers) sends
// its actions through: it dials as connectToAct does, within --timeout,
// when the first action needs the daemon (so a suite of invalid flows, or
// one that only logs, never needs a browser), through env.Dial; a dial
// that fails fails every action with its error (Err). The runner builds
// each action through protocol.ActionFrom, which checks it: the link
// sends them as checked.
func (g *globalOptions) requester() *bridge.Requester {
	return bridge.NewRequester(bridge.RequesterOptions{Dial: func(context.Context) (bridge.Link, *protocol.Error) {
		o, err := g.clientOptions(true)
		if err != nil {
			if be, ok := err.(*protocol.Error); ok {
				return nil, be
			}
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v", err)
		}
		o.Checked = true
		return g.dialFor(o)
	}})
}

// actionRequester is a one-shot command's Requester, the same type flows
// and bua mcp send through. Its options are read first, so that a
// --browser the daemon does not know is a usage error before anything
// dials. The CLI builds its actions from typed flags
// (pkg/protocol/actions.go), not loose input, so the daemon's check is
// their one check: the link does not mark them checked.
func (g *globalOptions) actionRequester() (*bridge.Requester, error) {
	o, err := g.clientOptions(true)
	if err != nil {
		return nil, err
	}
	return bridge.NewRequester(bridge.RequesterOptions{Dial: func(context.Context) (bridge.Link, *protocol.Error) {
		return g.dialFor(o)
	}}), nil
}

// dialFor dials o's link within --timeout (a daemon's start included),
// through env.Dial when a test gave one.
func (g *globalOptions) dialFor(o bridge.ClientOptions) (bridge.Link, *protocol.Error) {
	ctx, cancel := g.commandContext()
	defer cancel()
	return g.env.dial(ctx, o)
}

// connect is every command's dial of the daemon (bridge.Dial): the one
// place cmd/bua opens the link.
func (e *Env) connect(ctx context.Context, o bridge.ClientOptions) (*bridge.Client, *protocol.Error) {
	return bridge.Dial(ctx, o)
}

// dial opens a Requester's link: through Dial when a test gave one, else
// connect.
func (e *Env) dial(ctx context.Context, o bridge.ClientOptions) (bridge.Link, *protocol.Error) {
	if e.Dial != nil {
		return e.Dial(ctx, o)
	}
	cl, err := e.connect(ctx, o)
	if err != nil {
		return nil, err
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
	return env.connect(ctx, bridge.ClientOptions{Dirs: d})
}

// daemonInDoubt reports whether err, from dialExisting, leaves it unknown
// whether a daemon runs: the link is not the user's alone (reason
// unsafe_socket), or a daemon took the connection and never opened the
// link (daemon_unresponsive: on Windows, a stuck daemon fails the dial
// itself). A command that would otherwise say "not running" fails with
// err instead.
func daemonInDoubt(err *protocol.Error) bool {
	return err != nil && (err.Reason == protocol.ReasonUnsafeSocket || err.Reason == protocol.ReasonDaemonUnresponsive)
}

// commandContext applies the global --timeout to c's context: the time
// the command's work may take (for an action, schema x-ladder level 1),
// all of it. protocol.WithTimeout puts the ladder's margins on top, so the
// command answers within --timeout plus protocol.LadderMargin.
func (g *globalOptions) commandContext() (context.Context, context.CancelFunc) {
	if t := g.Timeout; t > 0 {
		// protocol.WithTimeout keeps t, so errors state it.
		return protocol.WithTimeout(g.ctx, t)
	}
	return context.WithCancel(g.ctx)
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
func (g *globalOptions) linkContext() (context.Context, context.CancelFunc) {
	t := g.Timeout
	if t <= 0 {
		t = linkTimeout
	}
	return protocol.WithExactTimeout(g.ctx, t)
}

// actionContext is runAction's context. An action with a timeoutMs of its
// own (wait_for) has --timeout as that very flag (reorderArgs moves a
// global --timeout behind the command, where the command's flag wins), so
// it times the wait, not the command: the command gets no deadline of its
// own and the pool's default for the action applies, its x-budgetMs on top
// of the wait (schema x-ladder). The wait then runs its whole time and its
// timeout error names it, rather than a wait cut short to leave the reply
// margin inside the same few seconds.
func (g *globalOptions) actionContext(a protocol.Action) (context.Context, context.CancelFunc) {
	if a.TimeoutMs != nil {
		return context.WithCancel(g.ctx)
	}
	return g.commandContext()
}

// fail prints any error the way its kind asks: bridge errors with their
// code and hint, usage errors as usage.
func (g *globalOptions) fail(err error) error {
	if be, ok := err.(*protocol.Error); ok {
		return g.failWith(be)
	}
	return err
}

// failWith prints err in the command's output mode and returns the exit
// error for its code.
// A command interrupted by Ctrl-C or SIGTERM (main's signal context) exits
// exitInterrupted instead: its error only says the caller went away.
func (g *globalOptions) failWith(err *protocol.Error) error {
	if errors.Is(g.ctx.Err(), context.Canceled) {
		fmt.Fprintln(g.env.Stderr, "bua: interrupted: the browser stops the action this command started")
		return exit(exitInterrupted)
	}
	printBridgeError(g.env, err, g.JSON)
	return exit(exitForCode(err.Code))
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
