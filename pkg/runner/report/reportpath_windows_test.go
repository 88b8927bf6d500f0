package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportPaths_Windows: on Windows itself, with paths as filepath.Join
// writes them there (no stand-in for filepath.ToSlash), the JSON and
// JUnit reports hold no \ in a path, and a report read back has the OS's
// paths again.
func TestReportPaths_Windows(t *testing.T) {
	file := filepath.Join("flows", "shop", "pay.yaml")
	art := filepath.Join("art", "attempt-2", "pay", "3-pay", "screenshot.jpg")
	if !strings.Contains(file, `\`) {
		t.Fatalf("filepath.Join wrote %s: not Windows?", file)
	}
	st := &StepReport{Path: "3", Kind: "click", File: file, Status: StatusFailed, Artifacts: []string{art}}
	s := &SuiteReport{Flows: []*FlowReport{{Name: "pay", File: file, Status: StatusFailed, Steps: []*StepReport{st}}}}
	var js, junit bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": js.String(), "junit": junit.String()} {
		if strings.Contains(out, `flows\`) || strings.Contains(out, `art\`) || !strings.Contains(out, "art/attempt-2/pay/3-pay/screenshot.jpg") {
			t.Errorf("%s report:\n%s\nwant every path slash-separated", name, out)
		}
	}
	back, err := ReadJSON(js.Bytes(), "json")
	if err != nil {
		t.Fatal(err)
	}
	if f := back.Flows[0]; f.File != file || f.Steps[0].Artifacts[0] != art {
		t.Errorf("read back: file %s, artifacts %q: want %s, %s", f.File, f.Steps[0].Artifacts, file, art)
	}
}
