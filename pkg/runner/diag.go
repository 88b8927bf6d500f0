package runner

import (
	"fmt"
	"sort"
	"strings"
)

// Diagnostic is one problem found while loading a flow, hcl-style: where it
// is (File, 1-based Line and Col of the YAML node), what is wrong and what is
// expected (Msg), and for expressions expr's caret Snippet.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Msg     string `json:"message"`
	Snippet string `json:"snippet,omitempty"`
}

// String formats d as `file:line:col: msg`, followed by the snippet lines
// when there is one.
func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, d.Msg)
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
type LoadError struct {
	Diags Diagnostics
}

func (e *LoadError) Error() string {
	if len(e.Diags) == 1 {
		return "invalid flow: " + e.Diags[0].String()
	}
	return fmt.Sprintf("invalid flow: %d problems:\n%s", len(e.Diags), strings.TrimRight(e.Diags.String(), "\n"))
}
