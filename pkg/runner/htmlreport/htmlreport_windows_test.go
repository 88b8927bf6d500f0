package htmlreport_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/runner"
	"github.com/bua-dev/bua/pkg/runner/htmlreport"
)

// TestWrite_WindowsPaths: on Windows, the page names a flow file and the
// evidence bundle's files, made with filepath.Join there, slash-separated.
func TestWrite_WindowsPaths(t *testing.T) {
	file := filepath.Join("flows", "shop", "pay.yaml")
	art := filepath.Join("art", "pay", "3-pay", "screenshot.jpg")
	st := &runner.StepReport{Path: "3", Kind: "click", File: file, Status: runner.StatusFailed, Artifacts: []string{art}, Evidence: &runner.Evidence{}}
	s := &runner.SuiteReport{Flows: []*runner.FlowReport{{Name: "pay", File: file, Status: runner.StatusFailed, Steps: []*runner.StepReport{st}}}}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<span class="file">flows/shop/pay.yaml</span>`, "<li>art/pay/3-pay/screenshot.jpg</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, `art\`) || strings.Contains(page, `flows\`) {
		t.Errorf("page has a path with \\")
	}
}
