package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() { register(newBrowserCommand) }

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
					cl, err := connect(c, env)
					if err != nil {
						return fail(c, env, err)
					}
					defer cl.Close()
					ctx, cancel := commandContext(c)
					defer cancel()
					ms, berr := cl.BrowserStart(ctx, bridge.BrowserOptions{
						Headless: c.Bool("headless"), Chrome: c.String("chrome"),
						Profile: c.String("profile"), Block: c.StringSlice("block"),
					})
					if berr != nil {
						return failWith(c, env, berr)
					}
					if c.Bool("json") {
						return printJSON(env, ms)
					}
					if !c.Bool("quiet") {
						fmt.Fprintf(env.Stdout, "managed browser running (pid %d), extension connected\n", ms.PID)
					}
					return nil
				},
			},
			{
				Name:  "stop",
				Usage: "stop the managed browser of this home, whoever started it",
				Description: "Asks the daemon to stop its managed browser. With no daemon running (it was\n" +
					"killed, say), stops the browser the last daemon recorded, if it still runs.",
				Action: func(c *cli.Context) error {
					cl, berr := dialExisting(c, env)
					if berr != nil {
						return stopOrphan(c, env)
					}
					defer cl.Close()
					stopped, berr := cl.BrowserStop(c.Context)
					if berr != nil {
						return failWith(c, env, berr)
					}
					if !c.Bool("quiet") {
						fmt.Fprintln(env.Stdout, yesNo(stopped, "managed browser stopped", "no managed browser was running"))
					}
					return nil
				},
			},
		},
	}
}

// stopOrphan stops the managed browser recorded in the home when no daemon
// runs: one left by a daemon that was killed before it could stop it.
func stopOrphan(c *cli.Context, env *Env) error {
	d, err := dirs(env)
	if err != nil {
		return err
	}
	r, stopped, err := browser.StopRecorded(c.Context, d.BrowserRecord())
	if err != nil {
		return failWith(c, env, protocol.Errorf(protocol.CodeInternalError, "the managed browser (pid %d) did not stop: %v: kill its process group (`kill -KILL -- -%d`)", r.PID, err, r.PID))
	}
	if !c.Bool("quiet") {
		fmt.Fprintln(env.Stdout, yesNo(stopped,
			fmt.Sprintf("managed browser stopped (pid %d, left running by a daemon that is gone)", r.PID),
			"no managed browser (the daemon is not running)"))
	}
	return nil
}
