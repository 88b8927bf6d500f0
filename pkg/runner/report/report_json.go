package report

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// elideOver is the size above which a result string is replaced by its size.
const elideOver = 2048

var dataURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^data:image/(\w+);base64,`) })

// Elide returns v with large strings replaced by "<KIND N bytes>": a
// screenshot's dataUrl by its decoded JPEG size, other long strings by
// their length.
func Elide(v any) any {
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
			out[k] = Elide(e)
		}
		return out
	case []any:
		if len(x) > 50 {
			return fmt.Sprintf("<%d items>", len(x))
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Elide(e)
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

// maskedStep is st as the JSON report and the bundle's step log show it:
// params, result, error and note masked, large result fields elided, its
// file and artifacts slash-separated (ReportPath).
func (f *FlowReport) maskedStep(st *StepReport) jsonStep {
	c := *st
	c.File, c.Artifacts = ReportPath(st.File), reportPaths(st.Artifacts)
	c.Params, _ = f.Masker.MaskValue(st.Params).(map[string]any)
	c.Result = f.Masker.MaskValue(Elide(st.Result))
	if st.Error != nil {
		e := *st.Error
		e.Message = f.Masker.Mask(e.Message)
		c.Error = &e
	}
	c.Note = f.Masker.Mask(c.Note)
	return jsonStep{StepReport: &c, DurationMs: st.Duration.Milliseconds()}
}

// Mask returns s with the flow's secrets replaced by Mask, for a report
// written outside this package (the HTML report).
func (f *FlowReport) Mask(s string) string { return f.Masker.Mask(s) }

// MaskValue returns a copy of a JSON-shaped v with the flow's secrets
// masked in every string.
func (f *FlowReport) MaskValue(v any) any { return f.Masker.MaskValue(v) }

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
		js.FailedAttempts = maskAttempts(f.Masker, st.FailedAttempts)
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

// StepLog is the evidence bundle's step log (BundleSteps): f's steps up to
// and including failed, each as the JSON report shows it, masked.
func (f *FlowReport) StepLog(failed *StepReport) any {
	var log []jsonStep
	for _, st := range f.Steps {
		log = append(log, f.maskedStep(st))
		if st == failed {
			break
		}
	}
	return log
}
