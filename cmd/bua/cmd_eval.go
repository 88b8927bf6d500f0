package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// The eval command (the extension's actions/evaluate.js).

func init() {
	register(func(env *Env) *cli.Command { return newEvalCommand(env, nil) }, "eval", "evaluate")
}

// evalOptions is `bua eval`'s command line.
type evalOptions struct {
	actionOptions
	// Expression is the function body to run; with FromStdin, standard
	// input is read instead when the command runs.
	Expression string
	FromStdin  bool
}

func newEvalCommand(env *Env, runF func(*evalOptions) error) *cli.Command {
	o := &evalOptions{}
	cmd := actionCommand("eval", "run JavaScript in the page (a function body: use return)", "EXPRESSION|-", nil,
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(`eval takes one EXPRESSION, e.g. 'return document.title', or - for stdin`)
			}
			o.Expression = c.Args().First()
			o.FromStdin = o.Expression == "-"
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runEval)
		})
	// evaluate is the flow step's name (and the protocol action's).
	cmd.Aliases = []string{"evaluate"}
	cmd.Description = "EXPRESSION is wrapped as (() => { EXPRESSION })() and awaited, so write a\n" +
		"function body and use return: `bua eval 'return document.title'`. A body\n" +
		"that uses await is wrapped as (async () => { EXPRESSION })():\n" +
		"`bua eval 'const r = await fetch(\"/api\"); return r.status'`. A bare\n" +
		"expression without return yields undefined. A thrown error is invalid_action."
	return cmd
}

func runEval(o *evalOptions) error {
	expr := o.Expression
	if o.FromStdin {
		b, err := io.ReadAll(o.env.Stdin)
		if err != nil {
			return err
		}
		expr = string(b)
	}
	return o.runAction(protocol.Evaluate(expr), func(res json.RawMessage) error { return printEvalResult(o.env, res) })
}

// printEvalResult prints an evaluate result as `bua eval` shows it: a
// string as it is, any other value as JSON, a described or truncated value
// by its description or preview (docs/protocol.md#evaluate).
func printEvalResult(env *Env, res json.RawMessage) error {
	var r protocol.EvaluateResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, render.Eval(r))
	return nil
}
