package flow

import (
	"strings"
	"testing"
)

// slashesAsOnWindows makes ReportPath turn \ into / for the rest of t, as
// filepath.ToSlash does on Windows: a path written with \ then stands for
// one a run on Windows recorded, and a diagnostic that leaves out
// ReportPath shows it on Linux too.
func slashesAsOnWindows(t *testing.T) {
	old := toSlash
	toSlash = func(p string) string { return strings.ReplaceAll(p, `\`, "/") }
	t.Cleanup(func() { toSlash = old })
}

// TestReportPath_Diagnostics: a diagnostic's text names its file
// slash-separated, whatever the OS wrote, with or without a position, and
// so does a LoadError's (pkg/runner's TestReportPaths_Messages holds the
// reports' texts to the same).
func TestReportPath_Diagnostics(t *testing.T) {
	slashesAsOnWindows(t)
	file := `flows\shop\pay.yaml`
	diag := Diagnostic{File: file, Line: 2, Col: 3, Msg: "unknown step key"}
	noPos := Diagnostic{File: file, Msg: "cannot read flow"}
	if got, want := diag.String()+"\n"+noPos.String(), "flows/shop/pay.yaml:2:3: unknown step key\nflows/shop/pay.yaml: cannot read flow"; got != want {
		t.Errorf("diagnostics = %q, want %q", got, want)
	}
	if got := (&LoadError{Diags: Diagnostics{diag}}).Error(); got != "invalid flow: flows/shop/pay.yaml:2:3: unknown step key" {
		t.Errorf("LoadError = %q", got)
	}
}
