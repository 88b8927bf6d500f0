package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/runner/report"
)

func init() {
	register(func(env *Env) *cli.Command { return newReportCommand(env, nil) }, "report")
}

// reportMergeOptions is `bua report merge`'s command line.
type reportMergeOptions struct {
	globalOptions
	// Inputs are REPORT.json... as given: files and globs.
	Inputs []string
	// Reports are --report KIND=FILE as typed.
	Reports []string
	// AllowDuplicates is --allow-duplicates.
	AllowDuplicates bool
}

// newReportCommand is `bua report`, whose merge's seam is runF.
func newReportCommand(env *Env, runF func(*reportMergeOptions) error) *cli.Command {
	o := &reportMergeOptions{}
	return &cli.Command{
		Name:     "report",
		Category: catFlows,
		Usage:    "work with the reports of bua run: merge the JSON reports of shards",
		Subcommands: []*cli.Command{{
			Name:      "merge",
			Usage:     "merge the JSON reports of several shards (bua run --shard I/N) into one JSON, JUnit and HTML report",
			ArgsUsage: "REPORT.json...",
			Description: "Reads the JSON report each shard wrote (bua run --shard I/N --report json=FILE),\n" +
				"and writes one report of every flow, sorted by file, as --report junit=FILE,\n" +
				"json=FILE and html=FILE do for bua run; without --report it prints the summary.\n" +
				"Each report's artifacts (--artifacts) are found where they were beside it, so\n" +
				"upload a shard's report and its artifacts folder together (docs/ci.md): the\n" +
				"merged HTML then shows each failed step's screenshot.\n" +
				"Exit codes: those of bua run for the merged suite (0 all passed, 1 a failure,\n" +
				"2 an invalid flow, 3 blocked, 4 no bridge, 130 interrupted); 2 also for an input\n" +
				"that is not a bua JSON report, a flow in two shards, a shard of I/N that no\n" +
				"input holds, or a report not written.",
			Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "report", Aliases: []string{"o"}, Usage: "write the merged report: `junit=FILE`, json=FILE or html=FILE (repeatable)"},
				&cli.BoolFlag{Name: "allow-duplicates", Usage: "keep a flow that several inputs ran (each run as its own entry) instead of failing"},
			},
			Action: func(c *cli.Context) error {
				o.globalOptions = readGlobals(c, env)
				o.Inputs, o.Reports, o.AllowDuplicates = c.Args().Slice(), c.StringSlice("report"), c.Bool("allow-duplicates")
				return runWith(o, runF, mergeReports)
			},
		}},
	}
}

// mergeReports is `bua report merge`: read every input (each bad one is
// reported, then exit 2), merge, write the --report files, print the
// summary, and exit as the merged suite does.
func mergeReports(o *reportMergeOptions) error {
	env := o.env
	files, err := expandReports(o.Inputs)
	if err != nil {
		return usageError(err.Error())
	}
	reports, err := parseReports(o.Reports)
	if err != nil {
		return usageError(err.Error())
	}
	var inputs []*report.SuiteReport
	var warnings []string
	bad := false
	for _, f := range files {
		s, w, err := report.ReadJSONFile(f)
		if err != nil {
			printReportError(env, err)
			bad = true
			continue
		}
		inputs = append(inputs, s)
		warnings = append(warnings, w...)
	}
	if bad {
		return exit(exitUsage)
	}
	merged, w, err := report.Merge(inputs, report.MergeOptions{AllowDuplicates: o.AllowDuplicates})
	if err != nil {
		printReportError(env, err)
		return exit(exitUsage)
	}
	for _, w := range append(warnings, w...) {
		fmt.Fprintf(env.Stderr, "bua: warning: %s\n", w)
	}
	for _, p := range merged.Problems {
		fmt.Fprintf(env.Stderr, "bua: a shard could not write %s\n", p)
	}
	for _, sh := range merged.MissingShards {
		fmt.Fprintf(env.Stderr, "bua: shard %s: no report among the inputs, so its flows are not in the merged report (did its job stop before it uploaded the report?)\n", sh)
	}
	merged.ExitCode, merged.Bua, merged.Host = exitForStatus, version, hostname()
	for _, rep := range reports {
		if err := writeReport(rep[0], rep[1], merged); err != nil {
			merged.Problems = append(merged.Problems, err.Error())
			fmt.Fprintf(env.Stderr, "bua: could not write %s\n", err)
		}
	}
	code := merged.Exit()
	if o.JSON {
		if err := merged.WriteJSON(env.Stdout); err != nil {
			return err
		}
		return exit(code)
	}
	ios := o.streams()
	if !ios.Quiet {
		fmt.Fprintf(ios.Out, "merged %s (%s)\n", plural(len(files), "report"), shardList(merged.Shards))
	}
	if err := writeSummary(ios, merged, code); err != nil {
		return err
	}
	if ios.Quiet {
		writeFailures(ios.ErrOut, merged)
	}
	return exit(code)
}

// expandReports turns args into report files: globs are expanded (for
// shells that leave them as they are), order is kept and a file given
// twice counts once, as bua run does with flows.
func expandReports(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no report given (usage: bua report merge [--report KIND=FILE]... REPORT.json...; each REPORT is the file of bua run --report json=FILE)")
	}
	var files []string
	seen := map[string]bool{}
	for _, a := range args {
		matches := []string{a} // a missing file is reported with the others
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("bad glob %q: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("no report matches %q (in CI, did the shards' jobs upload their reports, and this job download them?)", a)
			}
			matches = m
		}
		for _, f := range matches {
			if fi, err := os.Stat(f); err == nil && fi.IsDir() {
				return nil, fmt.Errorf("%s is a folder: give the report files in it (%s)", f, filepath.Join(f, "*.json"))
			}
			if key := filepath.Clean(f); !seen[key] {
				seen[key] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// printReportError prints a report that could not be read or merged, and
// its hint, on stderr.
func printReportError(env *Env, err error) {
	fmt.Fprintf(env.Stderr, "bua: %v\n", err)
	var re *report.ReportError
	if errors.As(err, &re) && re.Hint != "" {
		fmt.Fprintf(env.Stderr, "hint: %s\n", re.Hint)
	}
}

// shardList names a merged report's inputs: "shards 1/3, 2/3, 3/3", or the
// number of runs without --shard.
func shardList(shards []report.ShardInfo) string {
	var named []string
	other := 0
	for _, sh := range shards {
		if sh.Shard == "" {
			other++
			continue
		}
		named = append(named, sh.Shard)
	}
	var parts []string
	if len(named) > 0 {
		parts = append(parts, "shards "+strings.Join(named, ", "))
	}
	if other > 0 {
		parts = append(parts, plural(other, "run")+" without --shard")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// hostname is the machine's name for a report, "" when unknown.
func hostname() string {
	h, _ := os.Hostname()
	return h
}
