package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/userflow"
)

func init() {
	register(func(env *Env) *cli.Command { return newImportCommand(env, nil) }, "import")
}

// importOptions is `bua import`'s command line.
type importOptions struct {
	globalOptions
	// File is FILE.json, or "-" for standard input.
	File string
	// Output is --output, the flow file to write; "" writes the flow to
	// standard output.
	Output string
	Strict bool
	// Name is --name, the flow's name; "" keeps the recording's title.
	Name string
}

// importReport is `bua import --json`'s answer: how the recording
// converted (userflow.Report).
type importReport struct {
	Output   string          `json:"output"`
	Steps    int             `json:"steps"`
	Mapped   int             `json:"mapped"`
	Problems []importFinding `json:"problems"`
	Notes    []string        `json:"notes"`
	Env      []string        `json:"env"`
}

type importFinding struct {
	Step    int    `json:"step"` // 1-based, as the messages count
	Type    string `json:"type"`
	Message string `json:"message"`
}

func newImportCommand(env *Env, runF func(*importOptions) error) *cli.Command {
	o := &importOptions{}
	return &cli.Command{
		Name:      "import",
		Category:  catFlows,
		Usage:     "convert a Chrome DevTools Recorder user flow (JSON) into a bua flow",
		ArgsUsage: "FILE.json|-",
		Description: "Reads a user flow exported from Chrome DevTools' Recorder panel (the JSON that\n" +
			"@puppeteer/replay replays) and writes a flow that `bua run` replays. A step\n" +
			"the flow cannot replay as recorded is still written where it can be, with a\n" +
			"\"bua: edit this\" comment, and listed on stderr; the exit code is 0 unless\n" +
			"--strict. docs/record.md, \"Importing a Chrome DevTools Recorder flow\", has\n" +
			"the mapping of each step type.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the flow to `FLOW.yaml` (default: standard output)"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when a step does not replay as recorded (the flow is still written)"},
			&cli.StringFlag{Name: "name", Usage: "the flow's `NAME` (default: the recording's title)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("import takes one FILE.json (or - for standard input)")
			}
			o.globalOptions = readGlobals(c, env)
			o.File, o.Output = c.Args().First(), c.String("output")
			if o.JSON && o.Output == "" {
				return usageError("--json prints the report on standard output: give the flow a file with -o FLOW.yaml")
			}
			o.Strict, o.Name = c.Bool("strict"), c.String("name")
			return runWith(o, runF, runImport)
		},
	}
}

func runImport(o *importOptions) error {
	rec, err := o.readRecording()
	if err != nil {
		return err
	}
	command := "bua import " + shellWord(o.File)
	if o.Output != "" {
		command += " -o " + shellWord(o.Output)
	}
	res, err := userflow.Convert(rec, userflow.Options{From: filepath.Base(o.File), Command: command, Name: o.Name})
	if err != nil {
		return cli.Exit("bua import: "+err.Error(), exitFailure)
	}
	if o.Output == "" {
		if _, err := o.env.Stdout.Write(res.YAML); err != nil {
			return err
		}
	} else if err := (&flowwriter.Flow{YAML: res.YAML}).WriteFile(o.Output); err != nil {
		return cli.Exit(fmt.Sprintf("bua import: writing the flow failed, nothing was written to %s: %v", o.Output, err), exitFailure)
	}
	if o.JSON {
		if err := printJSON(o.env, reportJSON(o.Output, res)); err != nil {
			return err
		}
	} else {
		o.printReport(cmp.Or(o.Output, "standard output"), res)
	}
	if o.Strict && len(res.Report.Problems) > 0 {
		return exit(exitFailure)
	}
	return nil
}

// readRecording reads and parses the user flow in o.File ("-": stdin). A
// file that is not one exits 2, naming the line and column.
func (o *importOptions) readRecording() (*userflow.Recording, error) {
	file := o.File
	var r io.Reader = o.env.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usageError(fmt.Sprintf("cannot read the recording: %v", err))
		}
		defer f.Close()
		r = f
	}
	rec, err := userflow.Parse(r)
	var pe *userflow.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, usageError(fmt.Sprintf("%s:%s (export the flow again from the Recorder panel: Export, then JSON)", file, strings.TrimPrefix(":"+pe.Error(), ":")))
	case err != nil:
		return nil, usageError(fmt.Sprintf("cannot read the recording %s: %v", file, err))
	}
	return rec, nil
}

// printReport says on stderr where the flow went, how many steps replay
// as recorded, each problem and note, and the environment variables the
// flow reads; with --quiet, the first line and the problems, or nothing
// when there are none.
func (o *importOptions) printReport(where string, res *userflow.Result) {
	r, env, quiet := res.Report, o.env, o.Quiet
	if quiet && len(r.Problems) == 0 {
		return
	}
	fmt.Fprintf(env.Stderr, "bua import: wrote %s: %d of %d steps replay as recorded\n", where, r.Mapped(), r.Steps)
	for _, p := range r.Problems {
		fmt.Fprintf(env.Stderr, "  not as recorded: %s\n", p)
	}
	if quiet {
		return
	}
	for _, n := range r.Notes {
		fmt.Fprintf(env.Stderr, "  note: %s\n", n)
	}
	for _, v := range res.Env {
		fmt.Fprintf(env.Stderr, "  the flow reads %s from the environment: the text typed into the password field (set it before bua run)\n", v.Name)
	}
}

func reportJSON(out string, res *userflow.Result) importReport {
	r := res.Report
	rep := importReport{Output: out, Steps: r.Steps, Mapped: r.Mapped(), Problems: []importFinding{}, Notes: []string{}, Env: []string{}}
	for _, p := range r.Problems {
		rep.Problems = append(rep.Problems, importFinding{Step: p.Step + 1, Type: p.Type, Message: p.Msg})
	}
	for _, n := range r.Notes {
		rep.Notes = append(rep.Notes, n.String())
	}
	for _, v := range res.Env {
		rep.Env = append(rep.Env, v.Name)
	}
	return rep
}
