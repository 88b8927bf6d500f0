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

func init() { register(newImportCommand, "import") }

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

func newImportCommand(env *Env) *cli.Command {
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
			file, out := c.Args().First(), c.String("output")
			if c.Bool("json") && out == "" {
				return usageError("--json prints the report on standard output: give the flow a file with -o FLOW.yaml")
			}
			rec, err := readRecording(env, file)
			if err != nil {
				return err
			}
			command := "bua import " + file
			if out != "" {
				command += " -o " + out
			}
			res, err := userflow.Convert(rec, userflow.Options{From: filepath.Base(file), Command: command, Name: c.String("name")})
			if err != nil {
				return cli.Exit("bua import: "+err.Error(), exitFailure)
			}
			if out == "" {
				if _, err := env.Stdout.Write(res.YAML); err != nil {
					return err
				}
			} else if err := (&flowwriter.Flow{YAML: res.YAML}).WriteFile(out); err != nil {
				return cli.Exit(fmt.Sprintf("bua import: writing the flow failed, nothing was written to %s: %v", out, err), exitFailure)
			}
			if c.Bool("json") {
				if err := printJSON(env, reportJSON(out, res)); err != nil {
					return err
				}
			} else {
				printImportReport(env, c.Bool("quiet"), cmp.Or(out, "standard output"), res)
			}
			if c.Bool("strict") && len(res.Report.Problems) > 0 {
				return exit(exitFailure)
			}
			return nil
		},
	}
}

// readRecording reads and parses the user flow in file ("-": stdin). A
// file that is not one exits 2, naming the line and column.
func readRecording(env *Env, file string) (*userflow.Recording, error) {
	var r io.Reader = env.Stdin
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

// printImportReport says on stderr where the flow went, how many steps
// replay as recorded, each problem and note, and the environment variables
// the flow reads.
func printImportReport(env *Env, quiet bool, where string, res *userflow.Result) {
	r := res.Report
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
