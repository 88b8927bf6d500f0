package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

func init() {
	register(func(env *Env) *cli.Command { return newPairCommand(env, nil) }, "pair")
}

// pairOptions is `bua pair`'s command line.
type pairOptions struct {
	globalOptions
	// Name is the pairing: --name, checked, or user without it.
	Name string
	// Rotate is --rotate: a new token replaces the old one.
	Rotate bool
	// Code is --code: a one-time code instead of the token.
	Code bool
}

func newPairCommand(env *Env, runF func(*pairOptions) error) *cli.Command {
	o := &pairOptions{}
	return &cli.Command{
		Name:     "pair",
		Category: catSetup,
		Usage:    "pair your own Chrome: print the token (or a one-time code) to paste into the extension",
		Description: "A Chrome paired with `bua pair` is the browser `user` (--browser user). Another\n" +
			"Chrome, or another profile, pairs under a name of its own with `bua pair --name\n" +
			"NAME` and its own token: requests reach it with --browser NAME. A name is 1 to 32\n" +
			"lowercase letters, digits and '-', starting with a letter; auto, user, managed,\n" +
			"extension and managed-N are taken.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "rotate", Usage: "make a new token; the old one stops working"},
			&cli.BoolFlag{Name: "code", Usage: "print a one-time code (valid 5 minutes) instead of the token"},
			&cli.StringFlag{Name: "name", Usage: "pair a Chrome under `NAME`, with a token of its own (--browser NAME reaches it)"},
		},
		Action: func(c *cli.Context) error {
			o.Name = c.String("name")
			if c.IsSet("name") {
				if err := bridge.CheckPairingName(o.Name); err != nil {
					return usageError("--name: " + err.Error())
				}
			} else {
				o.Name = string(bridge.SelectUser)
			}
			o.globalOptions = readGlobals(c, env)
			o.Rotate, o.Code = c.Bool("rotate"), c.Bool("code")
			return runWith(o, runF, runPair)
		},
	}
}

func runPair(o *pairOptions) error {
	env := o.env
	d, err := dirs(env)
	if err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	file := bridge.PairingTokenFile(d, o.Name)
	tok, err := bridge.EnsureToken(file, o.Rotate)
	if errors.Is(err, bridge.ErrBadToken) {
		// It pairs nothing: a new one is what `bua doctor` asks for.
		fmt.Fprintf(env.Stderr, "bua: %v: made a new token; paste it into the bua extension's options\n", err)
		tok, err = bridge.EnsureToken(file, true)
	}
	if err != nil {
		return err
	}
	if o.Code {
		return o.printCode()
	}
	url := daemonURL(env, d)
	if o.JSON {
		return printJSON(env, map[string]string{"name": o.Name, "token": tok, "url": url, "extensionId": extension.ID})
	}
	if o.Quiet {
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
%s`, tok, url, pairedAs(o.Name))
	return nil
}

// printCode asks the daemon for a one-time code for o's pairing and
// prints it.
func (o *pairOptions) printCode() error {
	env := o.env
	ctx, cancel := o.linkContext()
	defer cancel()
	cl, cerr := o.connect()
	if cerr != nil {
		return o.fail(cerr)
	}
	defer cl.Close()
	pc, berr := cl.PairCode(ctx, o.Name)
	if berr != nil {
		return o.failWith(berr)
	}
	if o.JSON {
		return printJSON(env, map[string]any{"code": pc.Code, "expiresAt": pc.ExpiresAt, "url": pc.URL, "extensionId": extension.ID})
	}
	fmt.Fprintf(env.Stdout, "%s\n\nIn Chrome, open the bua extension's options, enter this code, and press Pair.\n"+
		"It works once and expires at %s.\n", pc.Code, pc.ExpiresAt.Local().Format("15:04:05"))
	return nil
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

// pairedAs is the last line of `bua pair`'s text for a named pairing: how
// requests reach it.
func pairedAs(name string) string {
	if name == string(bridge.SelectUser) {
		return ""
	}
	return fmt.Sprintf("This Chrome is the browser %q: reach it with --browser %s.\n", name, name)
}
