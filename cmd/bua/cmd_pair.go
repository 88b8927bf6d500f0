package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

func init() { register(newPairCommand, "pair") }

func newPairCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:     "pair",
		Category: catSetup,
		Usage:    "pair your own Chrome: print the token (or a one-time code) to paste into the extension",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "rotate", Usage: "make a new token; the old one stops working"},
			&cli.BoolFlag{Name: "code", Usage: "print a one-time code (valid 5 minutes) instead of the token"},
		},
		Action: func(c *cli.Context) error {
			d, err := dirs(env)
			if err != nil {
				return err
			}
			if err := d.Ensure(); err != nil {
				return err
			}
			tok, err := bridge.EnsureToken(d.TokenFile(), c.Bool("rotate"))
			if errors.Is(err, bridge.ErrBadToken) {
				// It pairs nothing: a new one is what `bua doctor` asks for.
				fmt.Fprintf(env.Stderr, "bua: %v: made a new token; paste it into the bua extension's options\n", err)
				tok, err = bridge.EnsureToken(d.TokenFile(), true)
			}
			if err != nil {
				return err
			}
			url := daemonURL(env, d)
			if c.Bool("code") {
				g := readGlobals(c, env)
				ctx, cancel := g.linkContext()
				defer cancel()
				cl, cerr := g.connect()
				if cerr != nil {
					return g.fail(cerr)
				}
				defer cl.Close()
				pc, berr := cl.PairCode(ctx)
				if berr != nil {
					return g.failWith(berr)
				}
				if c.Bool("json") {
					return printJSON(env, map[string]any{"code": pc.Code, "expiresAt": pc.ExpiresAt, "url": pc.URL, "extensionId": extension.ID})
				}
				fmt.Fprintf(env.Stdout, "%s\n\nIn Chrome, open the bua extension's options, enter this code, and press Pair.\n"+
					"It works once and expires at %s.\n", pc.Code, pc.ExpiresAt.Local().Format("15:04:05"))
				return nil
			}
			if c.Bool("json") {
				return printJSON(env, map[string]string{"token": tok, "url": url, "extensionId": extension.ID})
			}
			if c.Bool("quiet") {
				fmt.Fprintln(env.Stdout, tok)
				return nil
			}
			fmt.Fprintf(env.Stdout, `%s

To pair your Chrome:
  1. Run `+"`bua extension path`"+`, open chrome://extensions, turn on Developer mode,
     click "Load unpacked" and pick that folder (once).
  2. Open the bua extension's options page.
  3. Paste the token above (daemon URL: %s) and press Save.
Or use a short one-time code instead: `+"`bua pair --code`"+`.
`, tok, url)
			return nil
		},
	}
}

// daemonURL is the extension's daemon URL: the running daemon's, else the
// one BUA_LISTEN (or the default) will give it.
func daemonURL(env *Env, d home.Dirs) string {
	if home.Locked(d.LockFile()) {
		if info, err := bridge.ReadInfo(d); err == nil {
			return info.URL
		}
	}
	return "ws://" + listenAddr(env) + "/ws/browser"
}

// listenAddr is the address a daemon started now listens on: BUA_LISTEN,
// else the extension's default.
func listenAddr(env *Env) string {
	if listen := env.Getenv("BUA_LISTEN"); listen != "" {
		return listen
	}
	return bridge.DefaultListen
}
