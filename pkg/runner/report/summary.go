package report

import (
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/runner/event"
)

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
			note = "flaky: " + f.FlakyNote()
		}
		rows = append(rows, []string{label(f), flakyStatus(f.Status, f.Flaky), event.FormatDuration(f.Duration), f.Masker.Mask(note)})
		if f.Status == StatusPassed || f.Status == StatusSkipped {
			continue
		}
		for _, st := range f.Steps {
			note := st.Note
			if st.Error != nil {
				note = string(st.Error.Code) + ": " + st.Error.Message
			}
			label := strings.Repeat(" ", st.Depth+1) + st.Path + " " + st.Label()
			rows = append(rows, []string{label, flakyStatus(st.Status, st.Flaky), event.FormatDuration(st.Duration), f.Masker.Mask(note)})
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
// "1 failed (1 flaky)" when runner.Runner.FailOnFlaky counted one as failed.
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
