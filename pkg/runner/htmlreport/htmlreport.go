// Package htmlreport renders a suite's report (report.SuiteReport) as one
// self-contained HTML page: inline CSS, screenshots as data: URLs, no
// script and no external request, so it opens from a CI artifact with no
// server. It lists every flow and step with its status, timing and
// attempts, and beside the step that failed a flow, its evidence: the
// screenshot, the console lines (errors highlighted), the failed requests
// and the values the failing expression read. Secrets are masked by the
// runner (every string of report.Evidence, FlowReport.Mask for the rest).
package htmlreport

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

//go:embed report.html.tmpl
var pageTemplate string

// page is parsed on the first Write, not at start-up: every bua command
// links this package, and parsing the template cost each one about 0.2 ms
// (GODEBUG=inittrace=1).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(pageTemplate))
})

// Write renders suite as HTML to w.
func Write(w io.Writer, suite *report.SuiteReport) error {
	return page().Execute(w, newView(suite))
}

// view is the page's model: the suite's report flattened into the strings
// the template prints (html/template escapes each one).
type view struct {
	Started  string
	Duration string
	Summary  string
	Status   string
	Passed   int
	Failed   int
	Skipped  int
	// Shards describe a merged report's inputs, one line each (the shard,
	// its machine, bua version, outcome and file); none for a run.
	Shards []string
	Flows  []flowView
}

type flowView struct {
	// File, as every path the page shows (the artifacts, a shard's
	// report), is slash-separated (report.ReportPath): a merged page
	// names the files of shards run on different OSes alike.
	Name, File, Status, Duration string
	Shard                        string // the shard that ran it, in a merged report
	Error, Hint                  string
	// Flaky marks a flow that passed after a failed run or a retried step
	// (FlowReport.Flaky); the page shows a badge. EarlierRuns are the
	// failed runs before the last, under --retries.
	Flaky       bool
	EarlierRuns []string
	Open        bool // a flow that did not pass is shown unfolded
	Advisories  []string
	HookErrors  []string
	Diagnostics string
	Steps       []stepView
}

type stepView struct {
	Path, Label, Kind, Status, Duration string
	Indent                              int // nesting depth, in em
	Attempts                            int
	// Flaky marks a step that failed, then passed on a retry
	// (StepReport.Flaky).
	Flaky    bool
	Note     string
	Error    string
	Hint     string
	Params   string // resolved params as JSON, masked
	Evidence *evidenceView
}

type evidenceView struct {
	Screenshot    template.URL // a data:image/jpeg URL built here from the bytes
	URL, Title    string
	ExtractSource string
	Obstacle      string
	Console       []traceLine
	Requests      []traceLine
	TraceNote     string
	TraceDropped  int
	Values        []valueLine
	Artifacts     []string
	Notes         []string
}

type traceLine struct {
	At     string // since the flow started: "1.204s"
	Level  string // console level, or "exception"
	Error  bool   // highlighted: console.error, an exception, a 5xx
	Text   string
	Method string
	URL    string
	Status string // HTTP status, or the network error text
}

type valueLine struct{ Expr, Value string }

func newView(s *report.SuiteReport) view {
	p, f, sk := s.Counts()
	v := view{Started: s.Started.UTC().Format(time.RFC3339), Duration: dur(s.Duration), Summary: s.SummaryLine(),
		Status: string(s.Status()), Passed: p, Failed: f, Skipped: sk}
	for _, sh := range s.Shards {
		v.Shards = append(v.Shards, shardLine(sh))
	}
	for _, fr := range s.Flows {
		v.Flows = append(v.Flows, newFlowView(fr))
	}
	return v
}

// shardLine is one input of a merged report: "shard 2/4 on ci-2 (bua
// 0.1.0): 5 flows, failed, 1.2s (shards/report-2.json)".
func shardLine(sh report.ShardInfo) string {
	var b strings.Builder
	if sh.Shard != "" {
		b.WriteString("shard " + sh.Shard)
	} else {
		b.WriteString("a run")
	}
	if sh.Host != "" {
		b.WriteString(" on " + sh.Host)
	}
	if sh.Bua != "" {
		b.WriteString(" (bua " + sh.Bua + ")")
	}
	fmt.Fprintf(&b, ": %d flows, %s, %s", sh.Flows, sh.Status, dur(time.Duration(sh.DurationMs)*time.Millisecond))
	if sh.Report != "" {
		b.WriteString(" (" + report.ReportPath(sh.Report) + ")")
	}
	return b.String()
}

func newFlowView(f *report.FlowReport) flowView {
	fv := flowView{Name: f.Name, File: report.ReportPath(f.File), Shard: f.Shard, Status: string(f.Status), Duration: dur(f.Duration),
		Error: f.Mask(f.Error), Hint: f.Hint, Open: f.Status != report.StatusPassed && f.Status != report.StatusSkipped,
		Diagnostics: f.Diagnostics.String(), Flaky: f.Flaky}
	for i, a := range f.FailedAttempts {
		fv.EarlierRuns = append(fv.EarlierRuns, fmt.Sprintf("run %d of %d failed: %s", i+1, f.Attempts, f.Mask(a.Error)))
	}
	for _, a := range f.Advisories {
		fv.Advisories = append(fv.Advisories, f.Mask(a))
	}
	for _, h := range f.HookErrors {
		fv.HookErrors = append(fv.HookErrors, f.Mask(h))
	}
	for _, st := range f.Steps {
		sv := stepView{Path: st.Path, Label: label(st), Kind: st.Kind, Status: string(st.Status), Duration: dur(st.Duration),
			Indent: st.Depth, Attempts: st.Attempts, Note: f.Mask(st.Note), Flaky: st.Flaky}
		if st.Error != nil {
			sv.Error = string(st.Error.Code) + ": " + f.Mask(st.Error.Message)
			sv.Hint = st.Error.Hint
		}
		if len(st.Params) > 0 {
			b, _ := json.Marshal(f.MaskValue(st.Params))
			sv.Params = string(b)
		}
		if st.Handoff != nil {
			sv.Note = strings.TrimPrefix(sv.Note+"; "+st.Handoff.String(), "; ")
		}
		if st.Evidence != nil {
			sv.Evidence = newEvidenceView(f, st)
		}
		fv.Steps = append(fv.Steps, sv)
	}
	return fv
}

func newEvidenceView(f *report.FlowReport, st *report.StepReport) *evidenceView {
	ev := st.Evidence
	out := &evidenceView{TraceNote: ev.TraceNote, TraceDropped: ev.TraceDropped, ExtractSource: ev.ExtractSource, Notes: ev.Notes}
	for _, a := range st.Artifacts {
		out.Artifacts = append(out.Artifacts, report.ReportPath(a))
	}
	if len(ev.Screenshot) > 0 {
		// Built here from the image's bytes, never from page text, so it
		// is safe as a URL.
		out.Screenshot = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(ev.Screenshot))
	}
	if ev.Extract != nil {
		out.URL, _ = ev.Extract["url"].(string)
		out.Title, _ = ev.Extract["title"].(string)
		if ob, ok := ev.Extract["obstacle"].(map[string]any); ok {
			out.Obstacle = fmt.Sprintf("%v (%v): %v", ob["type"], ob["confidence"], ob["message"])
		}
	}
	start := float64(f.Started.UnixMilli())
	at := func(e protocol.TraceEvent) string { return fmt.Sprintf("%.3fs", (e.T-start)/1000) }
	for _, e := range ev.Console() {
		level := e.Level
		if e.Kind == protocol.TraceException {
			level = "exception"
		}
		text := e.Text
		if e.URL != "" && e.Kind == protocol.TraceException {
			text += " (" + e.URL + ")"
		}
		out.Console = append(out.Console, traceLine{At: at(e), Level: level, Error: level == "error" || level == "exception", Text: text})
	}
	for _, e := range ev.FailedRequests() {
		status := e.ErrorText
		if e.Status != 0 {
			status = fmt.Sprint(e.Status)
		}
		out.Requests = append(out.Requests, traceLine{At: at(e), Method: e.Method, URL: e.URL, Status: status, Error: e.Status == 0 || e.Status >= 500})
	}
	for _, x := range ev.Exprs {
		for _, val := range x.Values {
			line := valueLine{Expr: val.Src}
			if val.Error != "" {
				line.Value = "error: " + val.Error
			} else {
				b, _ := json.Marshal(val.Value)
				line.Value = string(b)
			}
			out.Values = append(out.Values, line)
		}
	}
	return out
}

func label(st *report.StepReport) string {
	if st.Name != "" {
		return st.Name
	}
	return st.Kind
}

// dur formats d as the summary table does: "850ms", "3.2s".
func dur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
