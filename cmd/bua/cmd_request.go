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

func init() { register(newRequestCommand, "request") }

func newRequestCommand(env *Env) *cli.Command {
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
			raw := c.Args().First()
			if raw == "-" {
				b, err := io.ReadAll(env.Stdin)
				if err != nil {
					return err
				}
				raw = string(b)
			}
			action := json.RawMessage(strings.TrimSpace(raw))
			jsonFail := func(err *protocol.Error, code int) error {
				printBridgeError(env, err, true)
				fmt.Fprintf(env.Stderr, "hint: %s\n", render.CommandHint(err))
				return exit(code)
			}
			g := readGlobals(c, env)
			noValidate := c.Bool("no-validate")
			if !noValidate {
				if err := protocol.ValidateAction(action); err != nil {
					return jsonFail(err, exitUsage)
				}
			}
			cl, err := g.connectToAct()
			if err != nil {
				if be, ok := err.(*protocol.Error); ok {
					return jsonFail(be, exitForCode(be.Code))
				}
				return err
			}
			defer cl.Close()
			ctx, cancel := g.commandContext()
			defer cancel()
			// Checked above (or deliberately not): the daemon need not
			// check it again.
			res, berr := cl.RequestRaw(ctx, action, true)
			if berr != nil && berr.Reason == protocol.ReasonRefused {
				return jsonFail(berr, exitUsage) // the daemon refused it before sending, as runAction exits
			}
			if berr != nil {
				return jsonFail(berr, exitForCode(berr.Code))
			}
			return printJSON(env, res)
		},
	}
}
