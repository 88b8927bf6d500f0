package runner

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

// reportForm is ds as a report writes them, each file slash-separated
// (ReportPath), in a new slice; nil for none.
func (ds Diagnostics) reportForm() Diagnostics {
	if ds == nil {
		return nil
	}
	out := make(Diagnostics, len(ds))
	for i, d := range ds {
		d.File = ReportPath(d.File)
		out[i] = d
	}
	return out
}

// nativeForm is ds read back from a report, each file in the OS's form
// (filepath.FromSlash), in place.
func (ds Diagnostics) nativeForm() {
	for i := range ds {
		ds[i].File = filepath.FromSlash(ds[i].File)
	}
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
