package report

import (
	"path/filepath"

	"github.com/bua-dev/bua/pkg/flow"
)

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
