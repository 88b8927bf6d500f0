package runner

import (
	"fmt"
	"sort"
	"strings"
)

// Diagnostic is one problem found while loading a flow, hcl-style: where it
// is (File, 1-based Line and Col of the YAML node), what is wrong and what is
// expected (Msg), and for expressions expr's caret Snippet.
//
// A Warning is a finding that does not stop the flow from loading (a
// repeat of more than lintMaxPasses): `bua lint` prints it and exits 0.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Msg     string `json:"message"`
	Snippet string `json:"snippet,omitempty"`
	Warning bool   `json:"warning,omitempty"`
}

// String formats d as `file:line:col: msg` (`file:line:col: warning: msg`
// for a warning), followed by the snippet lines when there is one.
func (d Diagnostic) String() string {
	msg := d.Msg
	if d.Warning {
		msg = "warning: " + msg
	}
	s := fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, msg)
	if d.Snippet != "" {
		s += strings.TrimRight(d.Snippet, "\n")
	}
	return s
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
