package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/runner/htmlreport"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestReportPaths_HTML: the HTML page names the flow file, the evidence
// bundle's files and a merged report's shards slash-separated, as the
// JSON report does, whatever OS ran the flow (reportpath_test.go).
func TestReportPaths_HTML(t *testing.T) {
	report.SlashesAsOnWindows(t)
	s := report.WindowsSuite()
	s.Flows[0].Steps[0].Evidence = &report.Evidence{} // the page lists the bundle with the evidence
	var b bytes.Buffer
	if err := htmlreport.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<span class="file">flows/shop/pay.yaml</span>`,
		"<li>art/attempt-2/pay/3-pay/screenshot.jpg</li>",
		"<li>art/attempt-2/pay/3-pay/steps.json</li>",
		"(shards/report-1.json)</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{`art\`, `shards\`} {
		if strings.Contains(page, bad) {
			t.Errorf("page has a path with \\: %s", bad)
		}
	}
}
