package runner

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
)

// ErrorInfo is an error as reports show it: a protocol code when there is
// one (else "assertion", "fail", "obstacle" or "error"), the message and
// the hint (Runner.hint).
type ErrorInfo struct {
	Code    protocol.ErrorCode `json:"code"`
	Message string             `json:"message"`
	Hint    string             `json:"hint,omitempty"`
}

// hint is the next step for a protocol error: Runner.Hint's when set (the
// CLI's, by code and reason), else the error contract's for the code.
func (r *Runner) hint(be *protocol.Error) string {
	if r.Hint != nil {
		return r.Hint(be)
	}
	if c, ok := protocol.Lookup(be.Code); ok {
		return c.Next
	}
	return ""
}

func (r *Runner) errorInfo(err error) *ErrorInfo {
	var be *protocol.Error
	var ae *AssertionError
	var fe *FailError
	var oe *ObstacleError
	switch {
	case errors.As(err, &be):
		return &ErrorInfo{Code: be.Code, Message: be.Message, Hint: r.hint(be)}
	case errors.As(err, &ae):
		return &ErrorInfo{Code: "assertion", Message: strings.TrimPrefix(ae.Error(), "assertion failed: ")}
	case errors.As(err, &fe):
		return &ErrorInfo{Code: "fail", Message: fe.Message}
	case errors.As(err, &oe):
		return &ErrorInfo{Code: "obstacle", Message: oe.Error()}
	}
	return &ErrorInfo{Code: "error", Message: err.Error()}
}

// StepReport is one executed (or skipped) step. Path numbers it within its
// flow ("3", "3.then.1", "4.run.2", "finally.1"); Depth is its nesting.
type StepReport struct {
	Path     string        `json:"path"`
	Name     string        `json:"name,omitempty"`
	Kind     string        `json:"kind"`
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Depth    int           `json:"depth,omitempty"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"-"`
	// Params are the action's params after interpolation.
	Params   map[string]any `json:"params,omitempty"`
	Result   any            `json:"result,omitempty"`
	Error    *ErrorInfo     `json:"error,omitempty"`
	Note     string         `json:"note,omitempty"`
	Attempts int            `json:"attempts,omitempty"`
	// Handoff is set when the step's page was handed to a person (the
	// handoff obstacle policy): the outcome and how long they took.
	Handoff *HandoffReport `json:"handoff,omitempty"`
	// Dialogs are the page dialogs the flow's dialogs policy answered
	// while the step ran, in order.
	Dialogs []DialogReport `json:"dialogs,omitempty"`
	// Artifacts are the files of this step's evidence bundle (bundle.go),
	// when it failed the flow and --artifacts was given, in the OS's form;
	// reports write them slash-separated (ReportPath).
	Artifacts []string `json:"artifacts,omitempty"`
	// FailedAttempts are the attempts its retry policy sent again, each
	// with its error; Flaky is set when one was followed by a pass (see
	// flaky.go).
	FailedAttempts []AttemptError `json:"failedAttempts,omitempty"`
	Flaky          bool           `json:"flaky,omitempty"`
	// Evidence is what was gathered when this step failed the flow (nil
	// otherwise, or when neither Artifacts nor Runner.Evidence asked).
	Evidence *Evidence `json:"-"`
}

func (r *StepReport) label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Kind
}

// FlowReport is one flow's outcome.
type FlowReport struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Status   Status        `json:"status"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"-"`
	Error    string        `json:"error,omitempty"`
	// Reason is the cause alone, without the step's location.
	Reason string `json:"reason,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// FailedStep and FailedLine name the step that failed the flow.
	FailedStep  string           `json:"failedStep,omitempty"`
	FailedLine  int              `json:"failedLine,omitempty"`
	Obstacle    *ObstacleError   `json:"obstacle,omitempty"`
	Advisories  []string         `json:"advisories,omitempty"`
	HookErrors  []string         `json:"hookErrors,omitempty"`
	Diagnostics flow.Diagnostics `json:"diagnostics,omitempty"`
	Steps       []*StepReport    `json:"steps"`
	// Attempts counts the runs of the flow (1 + its reruns under
	// Runner.Retries); FailedAttempts are the runs before the last one,
	// which all failed. Flaky: the flow passed after a failed run or a
	// flaky step (flaky.go).
	Attempts int `json:"attempts,omitempty"`
	// Tags are the flow's `tags`.
	Tags []string `json:"tags,omitempty"`
	// Shard is the --shard I/N of the run that ran the flow, set by Merge
	// (merge.go) in a merged report; "" otherwise.
	Shard string `json:"shard,omitempty"`
	// Worker is the index of the worker that ran the flow in a parallel
	// run (RunParallel), nil in a serial one.
	Worker         *int          `json:"worker,omitempty"`
	FailedAttempts []*FlowReport `json:"-"`
	Flaky          bool          `json:"-"`

	masker *Masker
	// stoppedBy is the reason when the person stopped the flow from the
	// extension's popup (stoppedByPerson), else "".
	stoppedBy string
	// writeErrors are the evidence files it could not write (RunSuite
	// gathers them into SuiteReport.Problems).
	writeErrors []string
}

// SuiteReport is one `bua run`: every flow in order.
type SuiteReport struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"-"`
	Flows    []*FlowReport `json:"flows"`
	// Interrupted is set when the run's caller stopped it (the context
	// RunSuite was given was cancelled: Ctrl-C, SIGTERM). The flow that
	// was running is StatusInterrupted, the ones after it skipped.
	Interrupted bool `json:"-"`
	// Problems are the files the run could not write, each naming the path
	// and the OS error: evidence bundles (--artifacts), then what the
	// caller adds (the CLI's --report files); in a merged report, the
	// inputs' too. Any makes Exit fail.
	Problems []string `json:"-"`
	// MissingShards are the shards ("3/4") of a merged report's I/N
	// splits that none of its inputs ran (Merge): their flows are not in
	// it, so Exit fails as for an invalid flow.
	MissingShards []string `json:"-"`
	// ExitCode is Runner.ExitCode: when set, WriteJSON adds each flow's
	// and the suite's exit code (Exit). nil leaves exitCode out.
	ExitCode func(Status) int `json:"-"`

	// Bua, Host and Shard say which run wrote the report, so that the
	// reports of several shards can be merged (merge.go): the bua version,
	// the machine's host name and --shard's "I/N" ("" when not sharded).
	// The CLI sets them; the runner does not know them.
	Bua, Host, Shard string `json:"-"`
	// WorkDir is the run's working directory relative to the directory of
	// the JSON report being written, slash-separated ("." or ".."):
	// relative artifact paths start there, so a merge on another machine
	// finds them beside the report (ReadJSONFile). The CLI sets it for each
	// JSON file it writes; "" (stdout) means the report's own directory.
	WorkDir string `json:"-"`
	// Shards are a merged report's inputs (Merge); nil for a run.
	Shards []ShardInfo `json:"-"`
	// Source is the JSON file the report was read from (ReadJSONFile), for
	// messages; "" for a run.
	Source string `json:"-"`
}

// Exit is the run's exit code on ExitCode's scale (0 when ExitCode is
// nil): its Status's, raised to an invalid flow's when a file could not
// be written (Problems) or a shard is missing (MissingShards), so CI
// never takes a missing report for a pass.
func (s *SuiteReport) Exit() int {
	if s.ExitCode == nil {
		return 0
	}
	code := s.ExitCode(s.Status())
	if len(s.Problems) > 0 || len(s.MissingShards) > 0 {
		code = max(code, s.ExitCode(StatusInvalid))
	}
	return code
}

// Counts returns how many flows passed, failed (any other status) and were
// skipped.
func (s *SuiteReport) Counts() (passed, failed, skipped int) {
	for _, f := range s.Flows {
		switch f.Status {
		case StatusPassed:
			passed++
		case StatusSkipped:
			skipped++
		default:
			failed++
		}
	}
	return
}

// elideOver is the size above which a result string is replaced by its size.
const elideOver = 2048

var dataURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^data:image/(\w+);base64,`) })

// elide returns v with large strings replaced by "<KIND N bytes>": a
// screenshot's dataUrl by its decoded JPEG size, other long strings by
// their length.
func elide(v any) any {
	switch x := v.(type) {
	case string:
		if m := dataURL().FindStringSubmatch(x); m != nil {
			b64 := x[len(m[0]):]
			n := len(b64)/4*3 - (len(b64) - len(strings.TrimRight(b64, "=")))
			return fmt.Sprintf("<%s %d bytes>", m[1], n)
		}
		if len(x) > elideOver {
			return fmt.Sprintf("<text %d bytes>", len(x))
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = elide(e)
		}
		return out
	case []any:
		if len(x) > 50 {
			return fmt.Sprintf("<%d items>", len(x))
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = elide(e)
		}
		return out
	}
	return v
}

// jsonStep is StepReport's JSON form: duration in ms, values masked.
type jsonStep struct {
	*StepReport
	DurationMs int64 `json:"durationMs"`
}

// jsonFlow is FlowReport's JSON form: its leading fields are repeated here
// so exitCode keeps its place after status.
type jsonFlow struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Status   Status `json:"status"`
	ExitCode *int   `json:"exitCode,omitempty"`
	*FlowReport
	DurationMs     int64      `json:"durationMs"`
	Flaky          bool       `json:"flaky"`
	Steps          []jsonStep `json:"steps"`
	FailedAttempts []jsonFlow `json:"failedAttempts,omitempty"`
}

// ReportPath is flow.ReportPath (every path a report holds is
// slash-separated), through toSlash.
func ReportPath(path string) string { return toSlash(path) }

// toSlash is flow.ReportPath; a test swaps it for one that turns \ into
// / (slashesAsOnWindows), so that a writer that leaves out ReportPath
// shows it on Linux too.
var toSlash = flow.ReportPath

// reportForm is ds as a report writes them, each file slash-separated
// (ReportPath), in a new slice; nil for none.
func reportForm(ds flow.Diagnostics) flow.Diagnostics {
	if ds == nil {
		return nil
	}
	out := make(flow.Diagnostics, len(ds))
	for i, d := range ds {
		d.File = ReportPath(d.File)
		out[i] = d
	}
	return out
}

// nativeForm is ds read back from a report, each file in the OS's form
// (filepath.FromSlash), in place.
func nativeForm(ds flow.Diagnostics) {
	for i := range ds {
		ds[i].File = filepath.FromSlash(ds[i].File)
	}
}

// reportPaths is ReportPath of each of paths, in a new slice (nil for
// none): the report's copy, never the runner's own.
func reportPaths(paths []string) []string {
	if paths == nil {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ReportPath(p)
	}
	return out
}

// maskedStep is st as the JSON report and the bundle's step log show it:
// params, result, error and note masked, large result fields elided, its
// file and artifacts slash-separated (ReportPath).
func (f *FlowReport) maskedStep(st *StepReport) jsonStep {
	c := *st
	c.File, c.Artifacts = ReportPath(st.File), reportPaths(st.Artifacts)
	c.Params, _ = f.masker.MaskValue(st.Params).(map[string]any)
	c.Result = f.masker.MaskValue(elide(st.Result))
	if st.Error != nil {
		e := *st.Error
		e.Message = f.masker.Mask(e.Message)
		c.Error = &e
	}
	c.Note = f.masker.Mask(c.Note)
	return jsonStep{StepReport: &c, DurationMs: st.Duration.Milliseconds()}
}

// Mask returns s with the flow's secrets replaced by Mask, for a report
// written outside this package (the HTML report).
func (f *FlowReport) Mask(s string) string { return f.masker.Mask(s) }

// MaskValue returns a copy of a JSON-shaped v with the flow's secrets
// masked in every string.
func (f *FlowReport) MaskValue(v any) any { return f.masker.MaskValue(v) }

// exitCode is s.ExitCode(st), or nil when no mapping was given.
func (s *SuiteReport) exitCode(st Status) *int {
	if s.ExitCode == nil {
		return nil
	}
	c := s.ExitCode(st)
	return &c
}

// jsonFlow is f's JSON form, its failed attempts included, its paths
// slash-separated (ReportPath).
func (s *SuiteReport) jsonFlow(f *FlowReport) jsonFlow {
	fc := *f // the report's copy: the diagnostics' files change, f's do not
	fc.Diagnostics = reportForm(f.Diagnostics)
	jf := jsonFlow{Name: f.Name, File: ReportPath(f.File), Status: f.Status, ExitCode: s.exitCode(f.Status), Flaky: f.Flaky,
		FlowReport: &fc, DurationMs: f.Duration.Milliseconds(), Steps: []jsonStep{}}
	for _, st := range f.Steps {
		js := f.maskedStep(st)
		js.FailedAttempts = maskAttempts(f.masker, st.FailedAttempts)
		jf.Steps = append(jf.Steps, js)
	}
	jf.Steps = jf.Steps[:len(jf.Steps):len(jf.Steps)]
	for _, a := range f.FailedAttempts {
		jf.FailedAttempts = append(jf.FailedAttempts, s.jsonFlow(a))
	}
	return jf
}

// jsonSuite is SuiteReport's JSON form, written by WriteJSON and read by
// ReadJSON: the one definition of the format (ReportVersion).
type jsonSuite struct {
	ReportVersion int         `json:"reportVersion"`
	Status        Status      `json:"status"`
	Bua           string      `json:"bua,omitempty"`
	Host          string      `json:"host,omitempty"`
	Shard         string      `json:"shard,omitempty"`
	Started       time.Time   `json:"started"`
	DurationMs    int64       `json:"durationMs"`
	ExitCode      *int        `json:"exitCode,omitempty"`
	Interrupted   bool        `json:"interrupted,omitempty"`
	Problems      []string    `json:"problems,omitempty"`
	MissingShards []string    `json:"missingShards,omitempty"`
	WorkDir       string      `json:"workDir,omitempty"`
	Shards        []ShardInfo `json:"shards,omitempty"`
	Flows         []jsonFlow  `json:"flows"`
}

// WriteJSON writes the suite with every step: params after interpolation,
// results with large fields elided, errors and durations (ms), each flow's
// status and, when ExitCode is set, the suite's and each flow's exit code.
// Secrets are masked; paths (files, artifacts, workDir, the shards'
// reports) are slash-separated (ReportPath). reportVersion, bua, host,
// shard and workDir let ReadJSON and Merge read it back, on another
// machine, of another OS, too.
func (s *SuiteReport) WriteJSON(w io.Writer) error {
	out := jsonSuite{ReportVersion: ReportVersion, Bua: s.Bua, Host: s.Host, Shard: s.Shard,
		Started: s.Started, DurationMs: s.Duration.Milliseconds(), Status: s.Status(),
		Interrupted: s.Interrupted, Problems: s.Problems, MissingShards: s.MissingShards, WorkDir: ReportPath(s.WorkDir), Flows: []jsonFlow{}}
	for _, sh := range s.Shards {
		sh.Report = ReportPath(sh.Report)
		out.Shards = append(out.Shards, sh)
	}
	if s.ExitCode != nil {
		code := s.Exit()
		out.ExitCode = &code
	}
	for _, f := range s.Flows {
		out.Flows = append(out.Flows, s.jsonFlow(f))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// JUnit XML: one testsuite per run, one testcase per flow.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// Reruns and flaky runs, as Maven Surefire writes them (flaky.go).
	RerunFailures []junitRerun  `xml:"rerunFailure"`
	FlakyFailures []junitRerun  `xml:"flakyFailure"`
	Error         *junitFailure `xml:"error,omitempty"`
	Skipped       *struct{}     `xml:"skipped,omitempty"`
	SystemOut     *junitText    `xml:"system-out,omitempty"`
}

// junitText is CDATA, so each [[ATTACHMENT|path]] stays on a line of its
// own in the file, as Surefire writes system-out.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// seconds formats d in seconds with millisecond precision.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the suite as JUnit XML. A failed, blocked or
// unavailable flow is a <failure> whose message names the failed step; an
// invalid flow is an <error>. A testcase's classname is its flow file,
// slash-separated (ReportPath), as its attachments are.
func (s *SuiteReport) WriteJUnit(w io.Writer) error {
	js := junitSuite{Name: "bua", Time: seconds(s.Duration)}
	for _, f := range s.Flows {
		c := junitCase{Name: f.Name, Classname: ReportPath(f.File), Time: seconds(f.Duration)}
		js.Tests++
		switch f.Status {
		case StatusPassed:
		case StatusSkipped:
			js.Skipped++
			c.Skipped = &struct{}{}
		case StatusInvalid:
			js.Errors++
			c.Error = &junitFailure{Message: "invalid flow", Type: string(StatusInvalid), Body: reportForm(f.Diagnostics).String()}
		default:
			js.Failures++
			msg := string(f.Status)
			if f.FailedStep != "" {
				msg = fmt.Sprintf("step %q (line %d) %s: %s", f.FailedStep, f.FailedLine, f.Status, f.Reason)
			} else if f.Error != "" {
				msg += ": " + f.Error
			}
			body := f.Error
			if f.Hint != "" {
				body += "\nhint: " + f.Hint
			}
			for _, h := range f.HookErrors {
				body += "\nhook: " + h
			}
			c.Failure = &junitFailure{Message: f.masker.Mask(msg), Type: string(f.Status), Body: f.masker.Mask(body)}
		}
		c.RerunFailures, c.FlakyFailures = f.junitReruns()
		var out []string
		for _, a := range f.Advisories {
			out = append(out, "advisory: "+a)
		}
		for _, st := range f.Steps {
			if st.Handoff != nil {
				out = append(out, fmt.Sprintf("step %s %s", st.Path, st.Handoff))
			}
		}
		// The failed step's console errors and failed requests (already
		// masked), so the CI page says what the page did without a file.
		for _, st := range f.Steps {
			out = append(out, st.Evidence.junitLines()...)
		}
		for i := range out {
			out[i] = f.masker.Mask(out[i])
		}
		// The bundle's files, one per line in the convention Jenkins'
		// JUnit Attachments plugin and GitLab read, slash-separated
		// (ReportPath), which both take on every OS. Paths bua wrote are
		// never masked: a secret that is also part of a step's name would
		// otherwise point CI at a file that does not exist.
		for _, st := range f.Steps {
			for _, a := range st.Artifacts {
				out = append(out, "[[ATTACHMENT|"+ReportPath(a)+"]]")
			}
		}
		if len(out) > 0 {
			c.SystemOut = &junitText{strings.Join(out, "\n")}
		}
		js.Cases = append(js.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{js}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// SummaryHeader names SummaryRows' columns.
var SummaryHeader = []string{"flow / step", "status", "time", "note"}

// SummaryRows is the run's summary as table rows: a row per flow, then,
// for a flow that neither passed nor was skipped, an indented row per
// step, with status, duration and note (an error's code and message, or a
// step's note), secrets masked: a passing flow is one line, its steps
// already on the progress lines. A note is whole, every line of it (an
// assert's interpolated message, then the values it read): the table
// folds it onto its row. The CLI renders it through its output
// layer (pkg/iostreams).
func (s *SuiteReport) SummaryRows() [][]string {
	var rows [][]string
	label := s.FlowLabels()
	for _, f := range s.Flows {
		note := f.Reason
		if note == "" && len(f.Advisories) > 0 {
			note = fmt.Sprintf("%d advisory", len(f.Advisories))
		}
		if note == "" && f.Flaky {
			note = "flaky: " + f.flakyNote()
		}
		rows = append(rows, []string{label(f), flakyStatus(f.Status, f.Flaky), event.FormatDuration(f.Duration), f.masker.Mask(note)})
		if f.Status == StatusPassed || f.Status == StatusSkipped {
			continue
		}
		for _, st := range f.Steps {
			note := st.Note
			if st.Error != nil {
				note = string(st.Error.Code) + ": " + st.Error.Message
			}
			label := strings.Repeat(" ", st.Depth+1) + st.Path + " " + st.label()
			rows = append(rows, []string{label, flakyStatus(st.Status, st.Flaky), event.FormatDuration(st.Duration), f.masker.Mask(note)})
		}
	}
	return rows
}

// FlowLabels returns how the summary names a flow of s: its name, with its
// file after it (slash-separated, ReportPath) when another flow of s has
// that name too (a copied file): "Checkout (flows/checkout-copy.yaml)".
func (s *SuiteReport) FlowLabels() func(*FlowReport) string {
	files := map[string]map[string]bool{}
	for _, f := range s.Flows {
		if files[f.Name] == nil {
			files[f.Name] = map[string]bool{}
		}
		files[f.Name][f.File] = true
	}
	return func(f *FlowReport) string {
		if len(files[f.Name]) > 1 {
			return f.Name + " (" + ReportPath(f.File) + ")"
		}
		return f.Name
	}
}

// SummaryLine is the run's last line: "2 passed, 1 failed, 0 skipped in
// 3.2s", with the flaky flows among them: "3 passed (1 flaky), ...", or
// "1 failed (1 flaky)" when Runner.FailOnFlaky counted one as failed.
func (s *SuiteReport) SummaryLine() string {
	p, fl, sk := s.Counts()
	fp, ff := s.FlakyCounts()
	line := fmt.Sprintf("%d passed%s, %d failed%s, %d skipped in %s", p, flakyCount(fp), fl, flakyCount(ff), sk, event.FormatDuration(s.Duration))
	if s.Interrupted {
		line += ", interrupted"
	}
	if n := len(s.Problems); n > 0 {
		line += ", " + plural(n, "file") + " not written"
	}
	if n := len(s.MissingShards); n > 0 {
		word := "shard "
		if n > 1 {
			word = "shards "
		}
		line += ", " + word + strings.Join(s.MissingShards, ", ") + " missing"
	}
	return line
}
