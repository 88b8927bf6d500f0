package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(func(env *Env) *cli.Command { return newBrowserCommand(env, nil, nil) }, "browser")
}

// browserStartOptions is `bua browser start`'s command line.
type browserStartOptions struct {
	globalOptions
	// Names are the managed browsers to start (startNames: --browser's,
	// or --count's).
	Names []string
	// Options are the launch options: --headless, --chrome, --profile,
	// --block.
	Options bridge.BrowserOptions
}

// browserStopOptions is `bua browser stop`'s command line.
type browserStopOptions struct {
	globalOptions
	// Name is the managed browser --browser names, or "" for every one.
	Name string
}

// newBrowserCommand is `bua browser`, with its start and stop, whose
// seams are startF and stopF.
func newBrowserCommand(env *Env, startF func(*browserStartOptions) error, stopF func(*browserStopOptions) error) *cli.Command {
	return &cli.Command{
		Name:        "browser",
		Category:    catSetup,
		Usage:       "start or stop the managed Chromium (bua's own browser, with the extension loaded)",
		Subcommands: []*cli.Command{newBrowserStartCommand(env, startF), newBrowserStopCommand(env, stopF)},
	}
}

func newBrowserStartCommand(env *Env, runF func(*browserStartOptions) error) *cli.Command {
	o := &browserStartOptions{}
	return &cli.Command{
		Name:  "start",
		Usage: "launch the managed browser (or --count N of them) and wait until each one's extension is connected",
		Description: "Launches managed, and with --count N also managed-1 … managed-(N-1): each a\n" +
			"browser of its own, with its own profile (cookies, storage), extension copy and\n" +
			"pairing, for `bua run --parallel N` and for agents (`bua mcp --browser managed-1`).\n" +
			"--browser NAME starts that one managed browser alone. A browser already running\n" +
			"is left as it is.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "headless", Usage: "run without a window (CI)"},
			&cli.StringFlag{Name: "chrome", Usage: "browser executable `PATH` (default: $BUA_CHROME, then chromium, Chrome for Testing, chrome)"},
			&cli.StringFlag{Name: "profile", Usage: "profile `DIR` (default: under the state dir); one browser only"},
			&cli.StringSliceFlag{Name: "block", Usage: "seed the blocklist with `DOMAIN` and its subdomains; repeatable"},
			&cli.IntFlag{Name: "count", Value: 1, Usage: "start `N` managed browsers: managed, managed-1, …"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			names, err := startNames(o.Browser, c.Int("count"), c.String("profile"))
			if err != nil {
				return err
			}
			o.Browser = "" // the dial's selection: names are per browser below
			o.Names = names
			o.Options = bridge.BrowserOptions{
				Headless: c.Bool("headless"), Chrome: c.String("chrome"),
				Profile: c.String("profile"), Block: c.StringSlice("block"),
			}
			return runWith(o, runF, runBrowserStart)
		},
	}
}

func runBrowserStart(o *browserStartOptions) error {
	env := o.env
	cl, err := o.connect()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	ctx, cancel := o.commandContext()
	defer cancel()
	started := make([]bridge.ManagedStatus, len(o.Names))
	errs := make([]*protocol.Error, len(o.Names))
	var wg sync.WaitGroup
	for i, name := range o.Names {
		wg.Go(func() { started[i], errs[i] = cl.BrowserStart(ctx, name, o.Options) })
	}
	wg.Wait()
	for _, berr := range errs {
		if berr != nil {
			return o.failWith(berr)
		}
	}
	if o.JSON {
		if len(started) == 1 {
			return printJSON(env, started[0])
		}
		return printJSON(env, started)
	}
	if !o.Quiet {
		for _, ms := range started {
			fmt.Fprintf(env.Stdout, "managed browser %s running (pid %d), extension connected\n", ms.Name, ms.PID)
		}
	}
	return nil
}

func newBrowserStopCommand(env *Env, runF func(*browserStopOptions) error) *cli.Command {
	o := &browserStopOptions{}
	return &cli.Command{
		Name:  "stop",
		Usage: "stop the managed browsers of this home (or --browser NAME's), whoever started them",
		Description: "Asks the daemon to stop its managed browsers (managed, managed-1, …), or with\n" +
			"--browser NAME that one. With no daemon running (it was killed, say), stops the\n" +
			"browsers the last daemon recorded, if they still run; an unreadable record is\n" +
			"moved aside and the browser found by its profile.",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Name = ""
			if o.Browser != "" && o.Browser != string(bridge.SelectAuto) {
				if !bridge.IsManaged(o.Browser) {
					return usageError(fmt.Sprintf("browser stop --browser %q: bua stops its managed browsers only (managed, managed-1 … managed-%d)", o.Browser, bridge.MaxManaged-1))
				}
				o.Name = o.Browser
			}
			return runWith(o, runF, runBrowserStop)
		},
	}
}

func runBrowserStop(o *browserStopOptions) error {
	env := o.env
	ctx, cancel := o.linkContext()
	defer cancel()
	cl, berr := dialExisting(ctx, env)
	if daemonInDoubt(berr) {
		return o.failWith(berr) // whether a daemon runs, and owns the browser, is unknown
	}
	if berr != nil {
		return o.stopOrphan(ctx)
	}
	defer cl.Close()
	stopped, berr := cl.BrowserStop(ctx, o.Name)
	if berr != nil {
		return o.failWith(berr)
	}
	if !o.Quiet {
		fmt.Fprintln(env.Stdout, yesNo(stopped, "managed browser stopped", "no managed browser was running"))
	}
	return nil
}

// startNames are the managed browsers `bua browser start` starts: the one
// --browser names, or managed and managed-1 … managed-(count-1).
func startNames(browserFlag string, count int, profile string) ([]string, error) {
	switch {
	case count < 1 || count > bridge.MaxManaged:
		return nil, usageError(fmt.Sprintf("--count %d: want 1 to %d managed browsers", count, bridge.MaxManaged))
	case count > 1 && profile != "":
		return nil, usageError("--profile names one profile, and each of --count's browsers needs its own: leave --profile out (each gets one under the state dir)")
	case browserFlag != "" && browserFlag != string(bridge.SelectAuto):
		if !bridge.IsManaged(browserFlag) {
			return nil, usageError(fmt.Sprintf("browser start --browser %q: bua starts managed browsers only (managed, managed-1 … managed-%d); open your own Chrome yourself", browserFlag, bridge.MaxManaged-1))
		}
		if count > 1 {
			return nil, usageError("--count starts managed, managed-1, …: give it without --browser")
		}
		return []string{browserFlag}, nil
	}
	names := make([]string, count)
	for i := range names {
		names[i] = bridge.ManagedName(i)
	}
	return names, nil
}

// stopOrphan stops the managed browser of the home when no daemon runs:
// one left by a daemon that was killed before it could stop it
// (bridge.StopOrphan). An unreadable record costs one line on stderr.
func (g *globalOptions) stopOrphan(ctx context.Context) error {
	env := g.env
	d, err := dirs(env)
	if err != nil {
		return err
	}
	s, err := bridge.StopOrphan(ctx, d)
	if s.Corrupt != nil {
		fmt.Fprintf(env.Stderr, "bua: %v: moved it to %s, and looked for the browser by its profile instead\n", s.Corrupt, s.MovedTo)
	}
	if err != nil {
		msg := "%v: run `bua browser stop` again"
		if errors.Is(err, browser.ErrRefusedSignal) {
			msg = "%v: bua signals no other process; run `bua browser stop` from a shell outside that process group"
		}
		return g.failWith(protocol.Errorf(protocol.CodeInternalError, msg, err))
	}
	if g.Quiet {
		return nil
	}
	if len(s.Browsers) == 0 {
		fmt.Fprintln(env.Stdout, "no managed browser (the daemon is not running)")
	}
	for _, r := range s.Browsers {
		how := "left running by a daemon that is gone"
		if s.Corrupt != nil {
			how = "found by its profile " + r.ProfileDir
		}
		fmt.Fprintf(env.Stdout, "managed browser stopped (pid %d, %s)\n", r.PID, how)
	}
	return nil
}
