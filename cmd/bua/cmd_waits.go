package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The wait command: wait-for (the extension's actions/wait.js).

func init() {
	register(func(env *Env) *cli.Command { return newWaitForCommand(env, nil) }, "wait-for")
}

// waitForOptions is `bua wait-for`'s command line.
type waitForOptions struct {
	actionOptions
	// Target is TARGET or --role; empty when the wait is for --text or
	// --url alone.
	Target protocol.Target
	Wait   protocol.Wait
	// WaitTimeout is the command's own --timeout (the wait's timeoutMs).
	WaitTimeout time.Duration
}

func newWaitForCommand(env *Env, runF func(*waitForOptions) error) *cli.Command {
	o := &waitForOptions{}
	flags := append(targetFlags(),
		&cli.DurationFlag{Name: "timeout", Value: protocol.DefaultWaitForTimeout, Usage: "how long to wait (at most 60s)"},
		&cli.StringFlag{Name: "text", Usage: "wait for `TEXT` shown in the page (or in TARGET): a substring, or /regex/flags"},
		&cli.StringFlag{Name: "state", Usage: "wait until TARGET (or --text) is `STATE`: attached, visible (default), hidden or detached"},
		&cli.StringFlag{Name: "url", Usage: "wait until the tab's URL matches `PATTERN`: a glob (**/done, *.html) or /regex/flags"},
	)
	cmd := actionCommand("wait-for", "wait until an element is visible (or attached, hidden, detached), text shows, or the URL matches", "[TARGET|--role ROLE]", flags,
		func(c *cli.Context) error {
			o.Wait = protocol.Wait{Text: c.String("text"), State: c.String("state"), URL: c.String("url")}
			if c.IsSet("text") && o.Wait.Text == "" {
				return usageError("--text needs the text to wait for")
			}
			if c.NArg() > 0 || c.IsSet("role") || (o.Wait.Text == "" && o.Wait.URL == "") {
				t, rest, err := target(c)
				if err != nil {
					return err
				}
				if len(rest) > 0 {
					return usageError(fmt.Sprintf("wait-for takes one TARGET (or --role ROLE [--name NAME]); quote a selector with spaces, got extra %q", rest[0]))
				}
				o.Target = t
			}
			o.WaitTimeout = c.Duration("timeout")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runWaitFor)
		})
	cmd.Description = "With TARGET alone, waits until it is visible. --state attached|visible|hidden|detached\n" +
		"changes that (detached: until no element matches, e.g. a spinner). --text waits\n" +
		"for text shown in the page, or inside TARGET; with --state hidden or detached, for\n" +
		"it to go. --url waits for the tab's URL alone: a glob over the whole URL (** any\n" +
		"characters, * any but /, {a,b} either) or /regex/flags."
	return cmd
}

func runWaitFor(o *waitForOptions) error {
	verb := "found"
	if o.Wait.URL != "" || o.Wait.State == protocol.WaitHidden || o.Wait.State == protocol.WaitDetached {
		verb = "ok"
	}
	return o.runAction(protocol.WaitUntil(o.Target, o.Wait, o.WaitTimeout), o.printOK(verb))
}
