package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The dialog command (the extension's actions/dialog.js).

func init() {
	register(func(env *Env) *cli.Command { return newDialogCommand(env, nil) }, "dialog")
}

// dialogOptions is `bua dialog`'s command line.
type dialogOptions struct {
	actionOptions
	Accept bool
	// PromptText is --prompt-text; nil without it.
	PromptText *string
}

func newDialogCommand(env *Env, runF func(*dialogOptions) error) *cli.Command {
	o := &dialogOptions{}
	cmd := actionCommand("dialog", "answer the alert, confirm, prompt or beforeunload dialog open on the tab", "accept|dismiss",
		[]cli.Flag{&cli.StringFlag{Name: "prompt-text", Usage: "answer a prompt with `TEXT` (with accept)"}},
		func(c *cli.Context) error {
			switch c.Args().First() {
			case "accept":
				o.Accept = true
			case "dismiss":
			default:
				return usageError("dialog takes accept or dismiss")
			}
			if c.NArg() != 1 {
				return usageError("dialog takes one word: accept or dismiss")
			}
			if c.IsSet("prompt-text") {
				if !o.Accept {
					return usageError("--prompt-text answers a prompt you accept: use dialog accept --prompt-text TEXT")
				}
				s := c.String("prompt-text")
				o.PromptText = &s
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runDialog)
		})
	cmd.Description = "A page's dialogs are left open (the action that meets one fails, naming it):\n" +
		"this answers the one open on the tab. A flow can answer them as they open with\n" +
		"dialogs: accept or dismiss."
	return cmd
}

func runDialog(o *dialogOptions) error {
	return o.runAction(protocol.HandleDialog(o.Accept, o.PromptText), func(res json.RawMessage) error {
		if o.Quiet {
			return nil
		}
		var r protocol.HandleDialogResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		how := "dismissed"
		if r.Accepted {
			how = "accepted"
		}
		fmt.Fprintf(o.env.Stdout, "%s %s %q\n", how, r.DialogType, r.Message)
		return nil
	})
}
