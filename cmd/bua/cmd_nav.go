package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// The navigation commands: navigate, reload, back and forward (the
// extension's actions/nav.js).

func init() {
	register(func(env *Env) *cli.Command { return newNavigateCommand(env, nil) }, "navigate")
	register(func(env *Env) *cli.Command { return newReloadCommand(env, nil) }, "reload")
	register(func(env *Env) *cli.Command { return newBackCommand(env, nil) }, "back")
	register(func(env *Env) *cli.Command { return newForwardCommand(env, nil) }, "forward")
}

// loadOptions is the command line of a command that loads a page:
// navigate, reload, back, forward (and open, cmd_tabs.go).
type loadOptions struct {
	actionOptions
	// WaitUntil is --wait-until (the schema's waitUntil); "" leaves the
	// action's default, load.
	WaitUntil string
}

// waitUntilFlag is --wait-until on the commands that load a page (the
// schema's waitUntil).
func waitUntilFlag() cli.Flag {
	return &cli.StringFlag{Name: "wait-until", Usage: "answer once the page has reached `POINT`: commit (its response arrived), domcontentloaded, load (the default: every image, script and frame loaded) or networkidle (load, then no network connection for 500 ms)"}
}

// read reads --wait-until, then the action options.
func (o *loadOptions) read(c *cli.Context, env *Env) error {
	if c.IsSet("wait-until") {
		o.WaitUntil = c.String("wait-until")
		if !slices.Contains(protocol.WaitUntilValues, o.WaitUntil) {
			return usageError(fmt.Sprintf("--wait-until %q: expected %s", o.WaitUntil, strings.Join(protocol.WaitUntilValues, ", ")))
		}
	}
	return o.actionOptions.read(c, env)
}

// load sends a page-loading action with --wait-until applied.
func (o *loadOptions) load(a protocol.Action, render func(json.RawMessage) error) error {
	if o.WaitUntil != "" {
		a.WaitUntil = o.WaitUntil
	}
	return o.runAction(a, render)
}

// navigateOptions is `bua navigate`'s command line.
type navigateOptions struct {
	loadOptions
	URL string
}

func newNavigateCommand(env *Env, runF func(*navigateOptions) error) *cli.Command {
	o := &navigateOptions{}
	cmd := actionCommand("navigate", "load URL in the current tab (opens one in the BUA window if none)", "URL", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("navigate takes one URL (http, https or about:blank)")
			}
			o.URL = c.Args().First()
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runNavigate)
		})
	cmd.Description = "By default navigate answers at the page's load event, once its images, scripts\n" +
		"and frames have loaded. --wait-until commit answers once the server's response\n" +
		"arrived, domcontentloaded once the HTML is parsed (its text is there; slow ads\n" +
		"and trackers may still load), networkidle once the page has also had no\n" +
		"network connection for 500 ms (data it fetches after load has arrived)."
	return cmd
}

func runNavigate(o *navigateOptions) error {
	return o.load(protocol.Navigate(o.URL), o.printOK("ok"))
}

func newReloadCommand(env *Env, runF func(*loadOptions) error) *cli.Command {
	return historyCommand(env, runF, runReload, "reload", "reload the current tab and wait for it to load (uids from an earlier extract go stale)")
}

func runReload(o *loadOptions) error {
	return o.load(protocol.Action{Type: protocol.ActionReload}, o.printOK("ok"))
}

func newBackCommand(env *Env, runF func(*loadOptions) error) *cli.Command {
	return historyCommand(env, runF, runBack, "back", "go back one page in the tab's history and wait for it (uids go stale)")
}

func runBack(o *loadOptions) error {
	return o.load(protocol.GoBack(), o.printMoved("earlier"))
}

func newForwardCommand(env *Env, runF func(*loadOptions) error) *cli.Command {
	return historyCommand(env, runF, runForward, "forward", "go forward one page in the tab's history and wait for it (uids go stale)")
}

func runForward(o *loadOptions) error {
	return o.load(protocol.GoForward(), o.printMoved("later"))
}

// historyCommand is reload, back or forward: a command of the current
// tab's page that takes no argument, only --wait-until and --tab.
func historyCommand(env *Env, runF, run func(*loadOptions) error, name, usage string) *cli.Command {
	o := &loadOptions{}
	return actionCommand(name, usage, "", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(name + " takes no arguments (pass --tab TAB to pick the tab)")
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, run)
		})
}

// printMoved prints go_back's and go_forward's result: the URL the tab
// went to, or that its history had no page that way (not an error, as
// Playwright's goBack returns null).
func (o *actionOptions) printMoved(which string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		if o.Quiet {
			return nil
		}
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		fmt.Fprintln(o.env.Stdout, render.OK("ok", r, which))
		return nil
	}
}
