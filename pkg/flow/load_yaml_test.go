package flow

import (
	"errors"
	"testing"
)

// TestYAMLDiagnostic_NoMarks: without the parser's marks (a yaml.v3 that
// renamed them), a syntax error keeps the line its message names and
// makes up no column.
func TestYAMLDiagnostic_NoMarks(t *testing.T) {
	d := yamlDiagnostic("f.yaml", []byte("a: 1\nb: [\n"), nil, errors.New("yaml: line 2: did not find expected node content"))
	if got, want := d.String(), "f.yaml:2: malformed YAML: did not find expected node content"; got != want {
		t.Errorf("diagnostic = %q, want %q", got, want)
	}
}
