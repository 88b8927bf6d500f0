package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() { register(newBrowserCommand, "browser") }

func newBrowserCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:     "browser",
		Category: catSetup,
		Usage:    "start or stop the managed Chromium (bua's own browser, with the extension loaded)",
		Subcommands: []*cli.Command{
			{
				Name:  "start",
				Usage: "launch the managed browser and wait until its extension is connected",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "headless", Usage: "run without a window (CI)"},
					&cli.StringFlag{Name: "chrome", Usage: "browser executable `PATH` (default: $BUA_CHROME, then chromium, Chrome for Testing, chrome)"},
					&cli.StringFlag{Name: "profile", Usage: "profile `DIR` (default: under the state dir)"},
					&cli.StringSliceFlag{Name: "block", Usage: "seed the blocklist with `DOMAIN` and its subdomains; repeatable"},
				},
				Action: func(c *cli.Context) error {
					g := readGlobals(c, env)
					cl, err := g.connect()
					if err != nil {
						return g.fail(err)
					}
					defer cl.Close()
					ctx, cancel := g.commandContext()
					defer cancel()
					ms, berr := cl.BrowserStart(ctx, bridge.BrowserOptions{
						Headless: c.Bool("headless"), Chrome: c.String("chrome"),
						Profile: c.String("profile"), Block: c.StringSlice("block"),
					})
					if berr != nil {
						return g.failWith(berr)
					}
					if g.JSON {
						return printJSON(env, ms)
					}
					if !g.Quiet {
						fmt.Fprintf(env.Stdout, "managed browser running (pid %d), extension connected\n", ms.PID)
					}
					return nil
				},
			},
			{
				Name:  "stop",
				Usage: "stop the managed browser of this home, whoever started it",
				Description: "Asks the daemon to stop its managed browser. With no daemon running (it was\n" +
					"killed, say), stops the browser the last daemon recorded, if it still runs; an\n" +
					"unreadable record is moved aside and the browser found by its profile.",
				Action: func(c *cli.Context) error {
					g := readGlobals(c, env)
					ctx, cancel := g.linkContext()
					defer cancel()
					cl, berr := dialExisting(ctx, env)
					if berr != nil {
						return g.stopOrphan(ctx)
					}
					defer cl.Close()
					stopped, berr := cl.BrowserStop(ctx)
					if berr != nil {
						return g.failWith(berr)
					}
					if !g.Quiet {
						fmt.Fprintln(env.Stdout, yesNo(stopped, "managed browser stopped", "no managed browser was running"))
					}
					return nil
				},
			},
		},
	}
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
