package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/internal/safewrite"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/iostreams"
	"github.com/bua-dev/bua/pkg/render"
	"github.com/bua-dev/bua/pkg/runner"
	"github.com/bua-dev/bua/pkg/runner/htmlreport"
	"github.com/bua-dev/bua/pkg/runner/progress"
	"github.com/bua-dev/bua/pkg/runner/report"
)

func init() {
	register(func(env *Env) *cli.Command { return newRunCommand(env, nil) }, "run")
}

// runOptions is `bua run`'s command line, as typed: the run checks it in
// order (the flows, their selection, --retries, --var, --report,
// --dialogs), so the first mistake is the one reported.
type runOptions struct {
	globalOptions
	// Flows are FLOW... as given: files, globs and folders.
	Flows       []string
	Vars        []string // --var NAME=VALUE
	Reports     []string // --report KIND=FILE
	Artifacts   string
	Shard       string // --shard I/N
	FailFast    bool
	DryRun      bool
	Serve       string
	Retries     int
	FailOnFlaky bool
	Tags        []string
	ExcludeTags []string
	List        bool
	// Parallel is --parallel N (--workers N): the workers that run the
	// flows at once, each with a browser of its own; 0 or 1 runs them one
	// after another.
	Parallel int
	// KeepBrowsers is --keep-browsers: leave running the workers' managed
	// browsers the run launched (stopLaunchedBrowsers).
	KeepBrowsers bool
	// DialogsSet says --dialogs was given: it is then the policy of flows
	// without a dialogs key.
	DialogsSet bool
}

func newRunCommand(env *Env, runF func(*runOptions) error) *cli.Command {
	o := &runOptions{}
	return &cli.Command{
		Name:      "run",
		Category:  catFlows,
		Usage:     "run flows (YAML files, globs or folders) as a suite, with reports",
		ArgsUsage: "FLOW...",
		Description: "Runs each flow in order and prints a line per step, then a summary table.\n" +
			"Exit codes: 0 all passed; 1 a failure; 2 an invalid flow, usage, or a report\n" +
			"or evidence file not written; 3 blocked (domain_blocked or an obstacle);\n" +
			"4 no bridge; 130 interrupted (Ctrl-C, SIGTERM: the reports are still written).\n" +
			"The worst wins, in the order 130 > 2 > 4 > 3 > 1. --retries N runs a failed\n" +
			"flow again; one that then passes (or passes through a step's retry) is flaky,\n" +
			"and --fail-on-flaky counts it as failed. See docs/flows.md in bua's repository\n" +
			"for the format.\n" +
			"--parallel N runs the flows on N workers at once, taken in sorted order, each\n" +
			"worker with a browser of its own for the whole run: a managed one (managed,\n" +
			"managed-1, …: profiles apart, so cookies and storage too), or with --browser\n" +
			"user a window each in your Chrome, whose cookies all share: full isolation\n" +
			"needs managed browsers. Flows read their worker's index (0 … N-1) as\n" +
			"env.BUA_WORKER_INDEX. When the run ends (passed, failed or interrupted) it\n" +
			"stops the managed browsers it launched for its workers, unless --keep-browsers.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "var", Usage: "override a flow var: `NAME=VALUE` (repeatable)"},
			&cli.StringSliceFlag{Name: "report", Usage: "write a report: `junit=FILE`, json=FILE or html=FILE (repeatable)"},
			&cli.StringFlag{Name: "artifacts", Usage: "save a failed step's evidence bundle (screenshot, extract, trace, step log, values) in `DIR`/<flow file>/<step>/"},
			&cli.StringFlag{Name: "shard", Usage: "run shard `I/N` of the sorted files (index % N == I-1)"},
			&cli.BoolFlag{Name: "fail-fast", Usage: "stop at the first flow that does not pass"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan without a browser; values from results stay unevaluated"},
			&cli.StringFlag{Name: "serve", Usage: "serve `DIR` on a loopback port and set vars.base_url"},
			&cli.IntFlag{Name: "retries", Usage: "run a failed flow again up to `N` times; one that then passes is flaky"},
			&cli.BoolFlag{Name: "fail-on-flaky", Usage: "count a flaky flow (passed after a failed run or a retried step) as failed"},
			&cli.StringSliceFlag{Name: "tag", Usage: "run only flows with any of these tags: `TAG` (repeatable, or comma-separated)"},
			&cli.StringSliceFlag{Name: "exclude-tag", Usage: "skip flows with any of these tags: `TAG` (repeatable, or comma-separated)"},
			&cli.BoolFlag{Name: "list", Usage: "print the flows that would run (after --tag and --shard) without a browser"},
			&cli.IntFlag{Name: "parallel", Aliases: []string{"workers"}, Usage: "run the flows on `N` workers at once, each with a browser of its own (managed: managed, managed-1, …; your Chrome: a window each, cookies shared)"},
			&cli.BoolFlag{Name: "keep-browsers", Usage: "with --parallel, leave running the workers' managed browsers the run launched (by default it stops them when it ends)"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Flows = c.Args().Slice()
			o.Vars, o.Reports = c.StringSlice("var"), c.StringSlice("report")
			o.Artifacts, o.Shard, o.Serve = c.String("artifacts"), c.String("shard"), c.String("serve")
			o.FailFast, o.DryRun, o.List = c.Bool("fail-fast"), c.Bool("dry-run"), c.Bool("list")
			o.Retries, o.FailOnFlaky = c.Int("retries"), c.Bool("fail-on-flaky")
			o.Tags, o.ExcludeTags = c.StringSlice("tag"), c.StringSlice("exclude-tag")
			o.DialogsSet = c.IsSet("dialogs")
			o.Parallel, o.KeepBrowsers = c.Int("parallel"), c.Bool("keep-browsers")
			return runWith(o, runF, runRun)
		},
	}
}

func runRun(o *runOptions) error {
	files, infos, err := o.checkFlows()
	if err != nil {
		return err
	}
	if o.List {
		return o.listFlows(infos)
	}
	files = files[:0]
	for _, info := range infos {
		files = append(files, info.File)
	}
	r, reports, err := o.newRunner(files)
	if err != nil {
		return err
	}
	if o.DryRun {
		return dryRun(o.env, r, files)
	}
	ios := o.streams()
	out, tty, color := ios.Out, ios.IsTerminal(), ios.ColorEnabled()
	if o.JSON {
		out, tty, color = ios.ErrOut, ios.IsErrTerminal(), ios.ErrColorEnabled() // stdout carries the JSON report
	}
	var progressOut io.Writer // where the workers' line goes: nowhere under --quiet
	if !ios.Quiet {
		r.Events, progressOut = progress.New(out, tty, color), out
	}
	ctx, cancel := o.commandContext()
	defer cancel()
	suite, links, done, err := o.runFlows(ctx, r, files, progressOut)
	if err != nil {
		return err
	}
	defer done()
	return o.report(ios, suite, reports, links, out)
}

// checkFlows expands FLOW... and selects the flows to run (--tag,
// --shard), after checking --retries and --parallel.
func (o *runOptions) checkFlows() ([]string, []flow.FlowInfo, error) {
	files, err := expandFlows(o.Flows)
	if err != nil {
		return nil, nil, usageError(err.Error())
	}
	infos, err := o.selectFlows(files)
	if err != nil {
		return nil, nil, usageError(err.Error())
	}
	if o.Retries < 0 {
		return nil, nil, usageError(fmt.Sprintf("--retries %d: want 0 or more reruns of a failed flow", o.Retries))
	}
	if o.Parallel < 0 || o.Parallel > bridge.MaxManaged {
		return nil, nil, usageError(fmt.Sprintf("--parallel %d: want 1 to %d workers", o.Parallel, bridge.MaxManaged))
	}
	return files, infos, nil
}

// newRunner is the runner of files under o's vars, reports and dialog
// policy, and the reports to write (--report).
func (o *runOptions) newRunner(files []string) (*runner.Runner, [][2]string, error) {
	env := o.env
	vars, err := parseVars(o.Vars)
	if err != nil {
		return nil, nil, usageError(err.Error())
	}
	if err := checkVarNames(vars, files); err != nil {
		return nil, nil, err
	}
	reports, err := parseReports(o.Reports)
	if err != nil {
		return nil, nil, usageError(err.Error())
	}
	r := &runner.Runner{Vars: vars, Getenv: env.Getenv, Serve: o.Serve, Artifacts: o.Artifacts,
		FailFast: o.FailFast, Now: env.Now, ExitCode: exitForStatus, HandoffGate: o.handoffGate(),
		Retries: o.Retries, FailOnFlaky: o.FailOnFlaky, Hint: render.CommandHint}
	for _, rep := range reports {
		r.Evidence = r.Evidence || rep[0] == "html" // the page shows each failure's evidence
	}
	if o.DialogsSet { // the policy of flows without a dialogs key
		if err := o.checkDialogs(); err != nil {
			return nil, nil, err
		}
		r.Dialogs = o.Dialogs
	}
	return r, reports, nil
}

// runFlows runs files on one Requester, or on --parallel's workers, each
// with its own, saying which on out when it is not nil. done, which the
// caller defers, closes the links and stops the managed browsers the
// workers launched (unless --keep-browsers).
func (o *runOptions) runFlows(ctx context.Context, r *runner.Runner, files []string, out io.Writer) (*report.SuiteReport, []*bridge.Requester, func(), error) {
	if o.Parallel <= 1 {
		link := o.requester()
		r.Requester = link
		return r.RunSuite(ctx, files), []*bridge.Requester{link}, link.Close, nil
	}
	workers, err := o.workers()
	if err != nil {
		return nil, nil, nil, err
	}
	var links []*bridge.Requester
	for _, w := range workers {
		links = append(links, w.Requester.(*workerLink).Requester)
	}
	if out != nil {
		fmt.Fprintf(out, "%d flows on %d workers: %s\n", len(files), len(workers), workerBrowsers(workers))
	}
	stop := func() {}
	if !o.KeepBrowsers {
		stop = o.stopLaunchedBrowsers(workers)
	}
	done := func() {
		closeAll(links)
		stop() // once the workers' connections are closed
	}
	return r.RunParallel(ctx, files, workers), links, done, nil
}

// report writes the reports and the summary (on out, through ios, or the
// JSON report on stdout), and exits with the suite's code. A dial that failed is
// printed once, under the summary.
func (o *runOptions) report(ios *iostreams.IOStreams, suite *report.SuiteReport, reports [][2]string, links []*bridge.Requester, out io.Writer) error {
	env := o.env
	suite.Bua, suite.Host = version, hostname()
	if i, n, err := parseShard(o.Shard); err == nil {
		suite.Shard = fmt.Sprintf("%d/%d", i, n)
	}
	// The files first, so the summary's exit code counts one that
	// could not be written; an interrupted run writes them too,
	// with the flows so far.
	for _, rep := range reports {
		if err := writeReport(rep[0], rep[1], suite); err != nil {
			suite.Problems = append(suite.Problems, err.Error())
		}
	}
	for _, p := range suite.Problems {
		fmt.Fprintf(env.Stderr, "bua: could not write %s\n", p)
	}
	code := suite.Exit()
	if o.JSON {
		if err := suite.WriteJSON(env.Stdout); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out)
		if err := writeSummary(ios, suite, code); err != nil {
			return err
		}
		if ios.Quiet {
			// No progress lines said why: give each failure in full.
			writeFailures(ios.ErrOut, suite)
		}
	}
	if suite.Interrupted {
		fmt.Fprintln(env.Stderr, "bua: interrupted: the run stopped, and the browser stops the action it had started; reports hold the flows so far")
		return exit(code)
	}
	printed := map[string]bool{}
	for _, l := range links { // each worker's, once
		if err := l.Err(); err != nil && !printed[err.Message] {
			printed[err.Message] = true
			printBridgeError(env, err, false)
		}
	}
	return exit(code)
}

// expandFlows turns args into flow files: globs are expanded, a folder
// stands for its *.yaml and *.yml files. Order is kept, duplicates dropped.
func expandFlows(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no flow given (usage: bua run FLOW... ; FLOW is a file, a glob or a folder)")
	}
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			var found []string
			for _, pat := range []string{"*.yaml", "*.yml"} {
				m, _ := filepath.Glob(filepath.Join(a, pat))
				found = append(found, m...)
			}
			if len(found) == 0 {
				return nil, fmt.Errorf("folder %s holds no .yaml flow", a)
			}
			sort.Strings(found)
			for _, f := range found {
				add(f)
			}
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("bad glob %q: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("no flow matches %q", a)
			}
			for _, f := range m {
				add(f)
			}
			continue
		}
		add(a) // a missing file is reported by the loader, with the others
	}
	return files, nil
}

func parseShard(s string) (int, int, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return i, n, nil
}

func parseVars(kvs []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--var %q: want NAME=VALUE", kv)
		}
		vars[k] = v
	}
	return vars, nil
}

func parseReports(specs []string) ([][2]string, error) {
	var out [][2]string
	for _, s := range specs {
		kind, file, ok := strings.Cut(s, "=")
		if !ok || file == "" || (kind != "junit" && kind != "json" && kind != "html") {
			return nil, fmt.Errorf("--report %q: want junit=FILE, json=FILE or html=FILE", s)
		}
		out = append(out, [2]string{kind, file})
	}
	return out, nil
}

// writeReport writes one --report file; a write that fails leaves no
// partial file, and its error names the file and the OS's reason.
func writeReport(kind, file string, suite *report.SuiteReport) error {
	err := os.MkdirAll(filepath.Dir(file), 0o755)
	if err == nil {
		err = safewrite.File(file, 0o644, func(w io.Writer) error {
			switch kind {
			case "junit":
				return suite.WriteJUnit(w)
			case "html":
				return htmlreport.Write(w, suite)
			}
			s := *suite
			s.WorkDir = workDirFrom(file)
			return s.WriteJSON(w)
		})
	}
	if err != nil {
		return fmt.Errorf("%s report %s: %s", kind, file, safewrite.Cause(file, err))
	}
	return nil
}

// workDirFrom is the current directory as seen from the folder of the
// report file, slash-separated ("." or ".."): a JSON report records it
// (report.SuiteReport.WorkDir) so relative artifact paths resolve beside
// it on the machine that merges it. "" when it cannot be worked out.
func workDirFrom(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(dir, wd)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// dryRun prints every flow's plan; invalid flows print their diagnostics
// and make the exit 2.
func dryRun(env *Env, r *runner.Runner, files []string) error {
	code := exitOK
	for _, file := range files {
		f, err := r.Load(file)
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			code = exitUsage
			continue
		}
		if err := r.Plan(env.Stdout, f); err != nil {
			fmt.Fprintf(env.Stderr, "bua: %s: %v\n", file, err)
			code = exitUsage
		}
	}
	return exit(code)
}

// writeSummary prints the run's table and last line through the output
// layer: fitted to a terminal, tab-separated when piped.
func writeSummary(ios *iostreams.IOStreams, suite *report.SuiteReport, code int) error {
	tb := ios.NewTable(report.SummaryHeader...)
	for _, row := range suite.SummaryRows() {
		tb.AddRow(row...)
	}
	if err := tb.Render(); err != nil {
		return err
	}
	line := fmt.Sprintf("%s (exit %d)", suite.SummaryLine(), code)
	paint := iostreams.Green
	if code != exitOK {
		paint = iostreams.Red
	}
	line = iostreams.Color(ios.ColorEnabled(), paint, line)
	_, err := fmt.Fprintln(ios.Out, line)
	return err
}

// writeFailures prints each flow that did not pass with its whole error
// and hint, one flow a paragraph: what --quiet keeps of the progress.
func writeFailures(w io.Writer, suite *report.SuiteReport) {
	label := suite.FlowLabels()
	for _, f := range suite.Flows {
		if f.Error == "" {
			continue
		}
		fmt.Fprintf(w, "%s %s: %s\n", f.Status, label(f), strings.ReplaceAll(f.Error, "\n", "\n  "))
		if f.Hint != "" {
			fmt.Fprintf(w, "  hint: %s\n", f.Hint)
		}
	}
}
