package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
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
				Usage: "stop the managed browser",
				Action: func(c *cli.Context) error {
					cl, berr := dialExisting(c, env)
					if berr != nil {
						if !c.Bool("quiet") {
							fmt.Fprintln(env.Stdout, "no managed browser (the daemon is not running)")
						}
						return nil
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
