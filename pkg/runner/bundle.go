package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bua-dev/bua/internal/safewrite"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// bundleDir is where the bundle of step rep of this flow goes:
// Artifacts/<flow file's folder (evidenceFolder)>/<path and label slug>,
// e.g. artifacts/flows-selftest-expected-failure/3-title-check.
func (s *State) bundleDir(rep *report.StepReport) string {
	return filepath.Join(s.r.Artifacts, evidenceFolder(s.rec.File), slug(rep.Path+"-"+rep.Label()))
}

// evidenceFolder is the folder, under Artifacts, of the evidence of the
// flow in file: the file's path relative to the working directory, its
// extension dropped, each run of characters other than letters, digits
// and _ made one - (flows/Checkout.yaml: flows-Checkout;
// ../other/pay.yaml: other-pay). It is keyed by the file, not by the
// flow's name: two files with one name (a copied flow) keep their
// evidence apart, where the second used to replace the first's.
func evidenceFolder(file string) string {
	if filepath.IsAbs(file) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, file); err == nil {
				file = rel
			}
		}
	}
	file = strings.TrimSuffix(file, filepath.Ext(file))
	folder := strings.Trim(nonFolder().ReplaceAllString(file, "-"), "-")
	if folder == "" {
		return "flow"
	}
	return folder
}

// nonFolder matches what evidenceFolder turns into a dash: anything but
// letters, digits and _ (so /, \, ., .., spaces and the characters
// Windows forbids), which leaves a name safe as a folder on every OS.
var nonFolder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\p{L}\p{N}_]+`) })

// writeBundle writes failed's evidence into its bundle dir and lists each
// file in failed.Artifacts (the JSON report lists them, JUnit attaches
// them). Paths are Artifacts joined with the file's place, so a relative
// --artifacts gives relative paths (as GitLab wants them) and an absolute
// one absolute paths (as Jenkins does); they are the OS's, and every
// report writes them slash-separated (ReportPath).
//
// It returns every write that failed, each naming its path (slash-
// separated, ReportPath: the report's problems and the step's note say
// them) and the OS error; a file that could not be written whole is not
// left behind.
func (s *State) writeBundle(failed *report.StepReport) []error {
	ev := failed.Evidence
	dir := s.bundleDir(failed)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return []error{fmt.Errorf("%s: %s", report.ReportPath(dir), safewrite.Cause(dir, err))}
	}
	write := func(name string, data []byte) error {
		path := filepath.Join(dir, name)
		if err := safewrite.Bytes(path, 0o644, data); err != nil {
			return fmt.Errorf("%s: %s", report.ReportPath(path), safewrite.Cause(path, err))
		}
		failed.Artifacts = append(failed.Artifacts, path)
		return nil
	}
	writeJSON := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("%s: %w", report.ReportPath(filepath.Join(dir, name)), err)
		}
		return write(name, append(b, '\n'))
	}
	var errs []error
	try := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if ev.Screenshot != nil {
		try(write(report.BundleScreenshot, ev.Screenshot))
	} else {
		os.Remove(filepath.Join(dir, report.BundleScreenshot)) // not a stale one from an earlier run
	}
	if ev.Extract != nil {
		md, _ := ev.Extract["markdown"].(string)
		try(write(report.BundleMarkdown, []byte(md)))
		try(writeJSON(report.BundleElements, map[string]any{
			"source": ev.ExtractSource, "url": ev.Extract["url"], "title": ev.Extract["title"],
			"elementsTotal": ev.Extract["elementsTotal"], "elements": ev.Extract["elements"],
		}))
		try(writeJSON(report.BundleObstacle, ev.Extract["obstacle"]))
	}
	trace := struct {
		SinceMs int64  `json:"sinceMs"`
		Note    string `json:"note,omitempty"`
		Dropped int    `json:"dropped"`
		Events  any    `json:"events"`
	}{SinceMs: s.rec.Started.UnixMilli(), Note: ev.TraceNote, Dropped: ev.TraceDropped, Events: ev.Trace}
	if ev.Trace == nil {
		trace.Events = []any{}
	}
	try(writeJSON(report.BundleTrace, trace))
	try(writeJSON(report.BundleSteps, s.rec.StepLog(failed)))
	exprs := ev.Exprs
	if exprs == nil {
		exprs = []report.ExprReads{}
	}
	try(writeJSON(report.BundleValues, exprs))
	return errs
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// slug is s lower-cased with every run of other characters a single dash.
func slug(s string) string {
	return strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(s), "-"), "-")
}
