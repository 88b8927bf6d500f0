package htmlreport_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/runner/htmlreport"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestWrite_WindowsPaths: on Windows, the page names a flow file and the
// evidence bundle's files, made with filepath.Join there, slash-separated.
func TestWrite_WindowsPaths(t *testing.T) {
	file := filepath.Join("flows", "shop", "pay.yaml")
	art := filepath.Join("art", "pay", "3-pay", "screenshot.jpg")
	st := &report.StepReport{Path: "3", Kind: "click", File: file, Status: report.StatusFailed, Artifacts: []string{art}, Evidence: &report.Evidence{}}
	s := &report.SuiteReport{Flows: []*report.FlowReport{{Name: "pay", File: file, Status: report.StatusFailed, Steps: []*report.StepReport{st}}}}
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
