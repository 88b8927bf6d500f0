package flow

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bua-dev/bua/internal/nearest"
)

// Diagnostic is one problem found while loading a flow, hcl-style: where it
// is (File, 1-based Line and Col of the YAML node; both 0 when the problem
// has no place in the file, as for a file that cannot be read), what is
// wrong and what is expected (Msg), for expressions expr's caret Snippet,
// and a Hint when the next step is not plain from the message.
//
// A Warning is a finding that does not stop the flow from loading (a
// repeat of more than lintMaxPasses): `bua lint` prints it and exits 0.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Msg     string `json:"message"`
	Snippet string `json:"snippet,omitempty"`
	Warning bool   `json:"warning,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// String formats d as `file:line:col: msg` (`file:line: msg` without a
// column, `file: msg` without a position; `warning: msg` for a warning), followed by the snippet lines
// and a `hint:` line when there are. The file is slash-separated
// (ReportPath), as the paths in Msg and Hint are: the text is a report's
// (an invalid flow's error and diagnostics in JSON, JUnit and HTML) as
// well as bua lint's.
func (d Diagnostic) String() string {
	msg := d.Msg
	if d.Warning {
		msg = "warning: " + msg
	}
	file := ReportPath(d.File)
	s := fmt.Sprintf("%s:%d:%d: %s", file, d.Line, d.Col, msg)
	switch {
	case d.Line == 0:
		s = file + ": " + msg
	case d.Col == 0:
		s = fmt.Sprintf("%s:%d: %s", file, d.Line, msg)
	}
	if d.Snippet != "" {
		s += strings.TrimRight(d.Snippet, "\n")
	}
	if d.Hint != "" {
		s += "\nhint: " + d.Hint
	}
	return s
}

// unreadable is the diagnostic of a flow file named on the command line
// that cannot be read. Nothing of it was read, so it names no line; a
// missing file's hint names the flow file of that folder its name is
// nearest to, when one is close.
func unreadable(path string, err error) Diagnostic {
	d := Diagnostic{File: path, Msg: fmt.Sprintf("cannot read flow: %v", unwrapPathError(err))}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Hint = "check the path: bua run and bua lint take flow files, globs and folders, relative to the current directory"
		if near := nearestFlow(path); near != "" {
			d.Hint = "did you mean " + ReportPath(near) + "?"
		}
	case errors.Is(err, fs.ErrPermission):
		d.Hint = "bua may not read it: check the file's permissions"
	}
	return d
}

// nearestFlow is the .yaml or .yml file in path's folder whose name is
// nearest to path's, or "".
func nearestFlow(path string) string {
	dir, base := filepath.Split(path)
	var names []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	if w := nearest.Word(base, names, max(2, len(base)/4)); w != "" {
		return filepath.Join(dir, w)
	}
	return ""
}

// Diagnostics is every problem of one load, in file then position order.
type Diagnostics []Diagnostic

func (ds Diagnostics) sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// String is one diagnostic per line (snippets add lines).
func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// LoadError is an invalid flow: every diagnostic of the load. Its flow's
// status is StatusInvalid, and nothing has run when it is returned.
// Warnings are the load's warnings, apart: they do not make it fail.
type LoadError struct {
	Diags    Diagnostics
	Warnings Diagnostics
}

// All is the load's errors and warnings together, in file then position
// order: what `bua lint` prints.
func (e *LoadError) All() Diagnostics {
	all := append(append(Diagnostics{}, e.Diags...), e.Warnings...)
	all.sort()
	return all
}

func (e *LoadError) Error() string {
	if len(e.Diags) == 1 {
		return "invalid flow: " + e.Diags[0].String()
	}
	return fmt.Sprintf("invalid flow: %d problems:\n%s", len(e.Diags), strings.TrimRight(e.Diags.String(), "\n"))
}

// ReportPath is path as every report bua writes gives it (the JSON and
// JUnit reports, the HTML page, the evidence bundle's step log) and as
// goldens hold it: slash-separated on every OS (filepath.ToSlash), so the
// reports of shards run on Windows and on Linux merge (report.Merge
// matches flows by file), CI tools read one form, and a golden written on
// one OS matches on the other. Flows keep paths in the OS's own form; a
// reader turns a report's back with filepath.FromSlash before it touches
// the file system (report.ReadJSON).
//
// The texts a report carries name paths this way too: a flow's error and
// its hooks' (a step's file:line, report.StepError), its diagnostics
// (file:line:col and the paths in their messages, Diagnostic), the
// evidence files it could not write, so that a report holds one form and
// a golden holds the same text on every OS. The terminal shows those
// texts as they are (Windows takes / in a path). Messages that never
// reach a report keep the OS's form, for the person at that machine, who
// may paste them into a shell: report.Merge's and report.ReadJSONFile's
// errors and warnings, which name the inputs as they were given.
func ReportPath(path string) string { return toSlash(path) }

// toSlash is filepath.ToSlash; a test swaps it for one that turns \ into
// / (slashesAsOnWindows), so that a diagnostic that leaves out ReportPath
// fails on Linux too, where filepath.ToSlash changes nothing.
var toSlash = filepath.ToSlash
