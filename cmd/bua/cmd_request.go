package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() {
	register(func(env *Env) *cli.Command { return newRequestCommand(env, nil) }, "request")
}

// requestOptions is `bua request`'s command line.
type requestOptions struct {
	globalOptions
	// Action is the action as JSON, the argument or stdin's (-).
	Action json.RawMessage
	// NoValidate is --no-validate: the extension's own check answers.
	NoValidate bool
}

func newRequestCommand(env *Env, runF func(*requestOptions) error) *cli.Command {
	o := &requestOptions{}
	return &cli.Command{
		Name:      "request",
		Category:  catActions,
		Usage:     "send one raw protocol action as JSON, for scripts and tests",
		ArgsUsage: "'<action json>' | -",
		Description: "Prints the response's result as JSON and exits 0; on an error prints\n" +
			`{"error": {"code", "message", "hint"}} on stdout, the hint on stderr, and exits` + "\n" +
			"with the code from `bua help exit-codes`. Example:\n" +
			`  bua request '{"type":"navigate","url":"https://example.com"}'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-validate", Usage: "send the action unchecked, so the extension's own validation answers"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("request takes one argument: the action as JSON, or - for stdin")
			}
			o.globalOptions = readGlobals(c, env)
			raw := c.Args().First()
			if raw == "-" {
				b, err := io.ReadAll(env.Stdin)
				if err != nil {
					return err
				}
				raw = string(b)
			}
			o.Action, o.NoValidate = json.RawMessage(strings.TrimSpace(raw)), c.Bool("no-validate")
			return runWith(o, runF, runRequest)
		},
	}
}

func runRequest(o *requestOptions) error {
	env := o.env
	jsonFail := func(err *protocol.Error, code int) error {
		printBridgeError(env, err, true)
		fmt.Fprintf(env.Stderr, "hint: %s\n", render.CommandHint(err))
		return exit(code)
	}
	if !o.NoValidate {
		if err := protocol.ValidateAction(o.Action); err != nil {
			return jsonFail(err, exitUsage)
		}
	}
	cl, err := o.connectToAct()
	if err != nil {
		if be, ok := err.(*protocol.Error); ok {
			return jsonFail(be, exitForCode(be.Code))
		}
		return err
	}
	defer cl.Close()
	ctx, cancel := o.commandContext()
	defer cancel()
	// Checked above (or deliberately not): the daemon need not check it
	// again.
	res, berr := cl.RequestRaw(ctx, o.Action, true)
	if berr != nil && berr.Reason == protocol.ReasonRefused {
		return jsonFail(berr, exitUsage) // the daemon refused it before sending, as runAction exits
	}
	if berr != nil {
		return jsonFail(berr, exitForCode(berr.Code))
	}
	return printJSON(env, res)
}
