package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/runner"
)

func init() {
	register(func(env *Env) *cli.Command { return newLintCommand(env, nil) }, "lint")
}

// lintOptions is `bua lint`'s command line.
type lintOptions struct {
	globalOptions
	// Flows are FLOW... as given: files, globs and folders.
	Flows []string
	// Vars (--var NAME=VALUE) and Serve (--serve DIR) are what `bua run`
	// will be given: a flow that reads vars.base_url and has no serve: key
	// is valid only with --serve or --var base_url=URL, and each --var
	// must name a var of the flows.
	Vars  []string
	Serve string
}

// lintResult is one file's outcome for `bua lint --json`.
type lintResult struct {
	File        string            `json:"file"`
	OK          bool              `json:"ok"`
	Diagnostics []flow.Diagnostic `json:"diagnostics"`
}

func newLintCommand(env *Env, runF func(*lintOptions) error) *cli.Command {
	o := &lintOptions{}
	return &cli.Command{
		Name:      "lint",
		Category:  catFlows,
		Usage:     "validate flows without a browser: every problem, with file:line:col",
		ArgsUsage: "FLOW...",
		Description: "Loads each flow and its sub-flows as `bua run` would, compiles every\n" +
			"expression and checks every action against the protocol schema. Exit 0\n" +
			"when all are valid, 2 otherwise. Warnings (a repeat of over 10,000 passes)\n" +
			"are printed but leave a flow valid. --json prints the findings as JSON.\n" +
			"--serve and --var check the flows as `bua run` given them will run them\n" +
			"(a flow that reads vars.base_url and has no serve: key needs one of them).",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "var", Usage: "as bua run will be given: `NAME=VALUE` (repeatable)"},
			&cli.StringFlag{Name: "serve", Usage: "as bua run will be given: serve `DIR` and set vars.base_url"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Flows = c.Args().Slice()
			o.Vars, o.Serve = c.StringSlice("var"), c.String("serve")
			return runWith(o, runF, runLint)
		},
	}
}

func runLint(o *lintOptions) error {
	files, err := expandFlows(o.Flows)
	if err != nil {
		return usageError(err.Error())
	}
	vars, err := parseVars(o.Vars)
	if err != nil {
		return usageError(err.Error())
	}
	if err := checkVarNames(vars, files); err != nil {
		return err
	}
	r := &runner.Runner{Vars: vars, Serve: o.Serve}
	results := []lintResult{}
	code := exitOK
	for _, file := range files {
		res := lintResult{File: file, OK: true, Diagnostics: []flow.Diagnostic{}}
		f, err := r.Load(file)
		var le *flow.LoadError
		switch {
		case err == nil:
			res.Diagnostics = append(res.Diagnostics, f.Warnings...)
		case errors.As(err, &le):
			res.OK = false
			res.Diagnostics = le.All()
		default:
			res.OK = false
			res.Diagnostics = []flow.Diagnostic{{File: file, Line: 1, Col: 1, Msg: err.Error()}}
		}
		if !res.OK {
			code = exitUsage
		}
		results = append(results, res)
	}
	if o.JSON {
		if err := printJSON(o.env, results); err != nil {
			return err
		}
		return exit(code)
	}
	for _, res := range results {
		fmt.Fprint(o.env.Stdout, flow.Diagnostics(res.Diagnostics).String())
		if res.OK && !o.Quiet {
			fmt.Fprintf(o.env.Stdout, "ok %s\n", res.File)
		}
	}
	return exit(code)
}
