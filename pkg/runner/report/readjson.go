package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// ReportVersion is the version of the JSON report's format
// (`reportVersion`). Fields that add information leave it as it is: an
// older bua reading a newer report ignores them. It grows only when a
// field changes meaning, so that an older bua refuses the report instead
// of misreading it (ReadJSON).
const ReportVersion = 1

// ReportError is a JSON report that could not be read or merged: a
// missing file, one that is not JSON, not a bua report or of a newer
// format, or two shards that both ran a flow. Line and Col (from 1)
// locate a JSON syntax or type error; 0 when the problem is the whole
// file. The fault is the input's: Hint says what to do.
type ReportError struct {
	File      string
	Line, Col int
	Msg       string
	Hint      string
}

func (e *ReportError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// maxReportBytes caps the JSON report ReadJSONFile reads whole: a run's
// report keeps at most 1,000 steps a flow with large values elided, so a
// bigger file is something else given by mistake.
var maxReportBytes int64 = 512 << 20

// hintReportJSON is what to give `bua report merge` instead.
const hintReportJSON = "give the JSON reports that `bua run --report json=FILE` writes (one per shard)"

// ReadJSONFile reads the JSON report at path (ReadJSON) and what its
// steps' artifacts hold: each relative artifact path is resolved against
// the report's own directory joined with its workDir, and rewritten so
// (relative to the current directory, when path is), and the evidence
// bundle of a failed step (bundle.go's files) becomes the step's Evidence
// again, so the HTML report shows its screenshot, console and requests,
// and JUnit its console errors. An artifact that is missing is no error:
// the returned warnings name them, and the report says what the JSON
// says.
func ReadJSONFile(path string) (*SuiteReport, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxReportBytes {
		return nil, nil, &ReportError{File: path, Msg: fmt.Sprintf("%d MiB: larger than any bua report (at most %d MiB are read)", fi.Size()>>20, maxReportBytes>>20), Hint: hintReportJSON}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, nil, &ReportError{File: path, Msg: "cannot read: " + msg, Hint: "check the path; in CI, check that the shard's job uploaded its report and this job downloaded it"}
	}
	s, err := ReadJSON(data, path)
	if err != nil {
		return nil, nil, err
	}
	base := filepath.Join(filepath.Dir(path), filepath.FromSlash(s.WorkDir))
	if !filepath.IsAbs(base) {
		base = shortest(base)
	}
	var missing []string
	for _, f := range s.Flows {
		for _, run := range append([]*FlowReport{f}, f.FailedAttempts...) {
			for _, st := range run.Steps {
				missing = append(missing, st.loadArtifacts(base)...)
			}
		}
	}
	var warnings []string
	if n := len(missing); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %s not found, e.g. %s: the merged report lists them, but shows no evidence from them; upload each shard's --artifacts folder with its report, in the same layout (docs/ci.md)",
			path, plural(n, "artifact file"), missing[0]))
	}
	return s, warnings, nil
}

// ReadJSON decodes a JSON report that WriteJSON wrote into a SuiteReport:
// every flow, step, failed attempt and flaky mark as written (secrets stay
// masked as they were). file names the input in errors: a syntax or type
// error is a *ReportError at file:line:col; a JSON document that is not a
// bua report, one without reportVersion (written before bua could merge
// reports) or one of a newer version is a *ReportError naming the file.
// The steps' evidence is not in the JSON: ReadJSONFile reads it from the
// artifacts.
func ReadJSON(data []byte, file string) (*SuiteReport, error) {
	var probe struct {
		ReportVersion *int            `json:"reportVersion"`
		Flows         json.RawMessage `json:"flows"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, jsonError(data, file, err)
	}
	switch v := probe.ReportVersion; {
	case v == nil && probe.Flows != nil:
		return nil, &ReportError{File: file, Msg: "a JSON report without reportVersion: written by a bua from before `bua report merge`",
			Hint: "run the shard again with this bua version, or merge with the bua that wrote it"}
	case v == nil:
		return nil, &ReportError{File: file, Msg: "not a bua JSON report (it has no reportVersion and no flows)", Hint: hintReportJSON}
	case *v > ReportVersion:
		return nil, &ReportError{File: file, Msg: fmt.Sprintf("report format version %d is newer than this bua reads (up to %d)", *v, ReportVersion),
			Hint: "merge with the bua version that wrote the shards, or a newer one"}
	case *v < 1:
		return nil, &ReportError{File: file, Msg: fmt.Sprintf("reportVersion %d: want 1 to %d", *v, ReportVersion), Hint: hintReportJSON}
	}
	var js jsonSuite
	if err := json.Unmarshal(data, &js); err != nil {
		return nil, jsonError(data, file, err)
	}
	s := &SuiteReport{Started: js.Started, Duration: ms(js.DurationMs), Interrupted: js.Interrupted, Problems: js.Problems, MissingShards: js.MissingShards,
		Bua: js.Bua, Host: js.Host, Shard: js.Shard, WorkDir: js.WorkDir, Shards: js.Shards, Source: file}
	for i := range s.Shards {
		s.Shards[i].Report = filepath.FromSlash(s.Shards[i].Report)
	}
	for i := range js.Flows {
		f, err := js.Flows[i].flowReport(fmt.Sprintf("flows[%d]", i))
		if err != nil {
			return nil, &ReportError{File: file, Msg: err.Error(), Hint: hintReportJSON}
		}
		s.Flows = append(s.Flows, f)
	}
	return s, nil
}

// flowReport is jf as a FlowReport; at names it in errors (flows[2]).
func (jf *jsonFlow) flowReport(at string) (*FlowReport, error) {
	f := jf.FlowReport
	if f == nil {
		f = &FlowReport{}
	}
	// The report's paths are slash-separated (ReportPath); in memory they
	// are the OS's, as a run's are, so a merge matches and sorts the flows
	// of shards run on different OSes alike, and the writers turn them
	// back.
	f.Name, f.File, f.Status, f.Duration, f.Flaky = jf.Name, filepath.FromSlash(jf.File), jf.Status, ms(jf.DurationMs), jf.Flaky
	if f.File == "" {
		return nil, fmt.Errorf("%s has no file", at)
	}
	nativeForm(f.Diagnostics)
	if _, ok := statusRank[f.Status]; !ok {
		return nil, fmt.Errorf("%s (%s): unknown status %q", at, f.File, f.Status)
	}
	f.Steps = make([]*StepReport, 0, len(jf.Steps))
	for i, js := range jf.Steps {
		st := js.StepReport
		if st == nil {
			st = &StepReport{}
		}
		if _, ok := statusRank[st.Status]; !ok {
			return nil, fmt.Errorf("%s.steps[%d] (%s): unknown status %q", at, i, f.File, st.Status)
		}
		st.Duration = ms(js.DurationMs)
		st.File = filepath.FromSlash(st.File)
		for k, a := range st.Artifacts {
			st.Artifacts[k] = filepath.FromSlash(a)
		}
		f.Steps = append(f.Steps, st)
	}
	f.FailedAttempts = nil
	for i := range jf.FailedAttempts {
		a, err := jf.FailedAttempts[i].flowReport(fmt.Sprintf("%s.failedAttempts[%d]", at, i))
		if err != nil {
			return nil, err
		}
		f.FailedAttempts = append(f.FailedAttempts, a)
	}
	return f, nil
}

// shortest is the relative path rel as the current directory sees it,
// without a detour out of it and back ("../../x/y" from inside x/y is
// "."); rel itself when that cannot be worked out.
func shortest(rel string) string {
	wd, err := os.Getwd()
	if err != nil {
		return rel
	}
	if r, err := filepath.Rel(wd, filepath.Join(wd, rel)); err == nil {
		return r
	}
	return rel
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// jsonError is err, from decoding data, as a *ReportError at its
// file:line:col.
func jsonError(data []byte, file string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		at := se.Offset - 1 // the character that broke it...
		if se.Offset >= int64(len(data)) {
			at = int64(len(data)) // ...or the end, when the file stops short
		}
		line, col := lineCol(data, at)
		return &ReportError{File: file, Line: line, Col: col, Msg: "not valid JSON: " + se.Error(), Hint: hintReportJSON + "; a JUnit or HTML report cannot be merged"}
	case errors.As(err, &te) && te.Field == "":
		return &ReportError{File: file, Msg: fmt.Sprintf("not a bua JSON report: the document is a JSON %s, want an object", te.Value), Hint: hintReportJSON}
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset-1) // within the value: its end, or an object's first brace
		return &ReportError{File: file, Line: line, Col: col, Msg: fmt.Sprintf("%s is a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type)), Hint: hintReportJSON}
	}
	return &ReportError{File: file, Msg: err.Error(), Hint: hintReportJSON}
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a number"
}

// lineCol is the line and column (from 1, in bytes) of data[off].
func lineCol(data []byte, off int64) (int, int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := 1 + bytes.Count(before, []byte("\n"))
	return line, int(off) - bytes.LastIndexByte(before, '\n')
}

// loadArtifacts rewrites st's relative artifact paths to start at base
// (the run's working directory as seen from here) and reads the evidence
// bundle among them into st.Evidence. It returns the paths not found.
func (st *StepReport) loadArtifacts(base string) (missing []string) {
	if len(st.Artifacts) == 0 {
		return nil
	}
	ev := &Evidence{}
	found := false
	for i, a := range st.Artifacts {
		p := filepath.FromSlash(a)
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		st.Artifacts[i] = p
		data, err := os.ReadFile(p)
		if err != nil {
			missing = append(missing, p)
			continue
		}
		if ev.readBundleFile(filepath.Base(p), data) {
			found = true
		}
	}
	if found {
		st.Evidence = ev
	}
	return missing
}

// readBundleFile reads one file of an evidence bundle (bundle.go writes
// them) into ev, by its name; it reports whether the file was one.
func (ev *Evidence) readBundleFile(name string, data []byte) bool {
	extract := func() map[string]any {
		if ev.Extract == nil {
			ev.Extract = map[string]any{}
		}
		return ev.Extract
	}
	switch name {
	case BundleScreenshot:
		ev.Screenshot = data
	case BundleMarkdown:
		extract()["markdown"] = string(data)
	case BundleElements:
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			return false
		}
		ev.ExtractSource, _ = m["source"].(string)
		delete(m, "source")
		for k, v := range m {
			extract()[k] = v
		}
	case BundleObstacle:
		var v any
		if json.Unmarshal(data, &v) != nil {
			return false
		}
		extract()["obstacle"] = v
	case BundleTrace:
		var tr struct {
			Note    string                `json:"note"`
			Dropped int                   `json:"dropped"`
			Events  []protocol.TraceEvent `json:"events"`
		}
		if json.Unmarshal(data, &tr) != nil {
			return false
		}
		ev.TraceNote, ev.TraceDropped, ev.Trace = tr.Note, tr.Dropped, tr.Events
	case BundleValues:
		if json.Unmarshal(data, &ev.Exprs) != nil {
			return false
		}
	default:
		return false
	}
	return true
}
