package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() {
	register(func(env *Env) *cli.Command { return newExitCodesCommand(env, nil) }, "exit-codes")
}

// exitCodesOptions is `bua exit-codes`'s command line: the global flags
// alone.
type exitCodesOptions struct {
	globalOptions
}

// exitCodesText documents the stable exit codes; docs/commands.md#exit-codes repeats it.
const exitCodesText = `Exit codes:
  0  success
  1  an action error (element_not_found, element_stale, ...) or a failed flow
  2  usage or invalid input: a bad flag, an action refused before it is sent, an invalid flow; for run, also a report or evidence file it could not write
  3  blocked: domain_blocked, or an obstacle that policy says stops
  4  bridge unavailable: no daemon, or no browser connected in time
  5  timeout (one-shot commands)
  130  interrupted (Ctrl-C, SIGTERM): the browser stops the action the command started
`

func newExitCodesCommand(env *Env, runF func(*exitCodesOptions) error) *cli.Command {
	o := &exitCodesOptions{}
	return &cli.Command{
		Name:     "exit-codes",
		Category: catSetup,
		Usage:    "explain bua's exit codes and each error code's hint (also: bua help exit-codes)",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, runExitCodes)
		},
	}
}

func runExitCodes(o *exitCodesOptions) error {
	env := o.env
	fmt.Fprint(env.Stdout, exitCodesText)
	fmt.Fprintln(env.Stdout, "\nError codes (exit code, what to do next):")
	for _, code := range append(protocol.Codes, protocol.CodeBridgeUnavailable) {
		fmt.Fprintf(env.Stdout, "  %-23s %d  %s\n", code, exitForCode(code), render.CommandCodeHints[code])
	}
	return nil
}
