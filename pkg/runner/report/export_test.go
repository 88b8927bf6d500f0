package report

// For reportpath_html_test.go (package report_test): the HTML page is
// written by htmlreport, which this package's own tests cannot import.
var (
	SlashesAsOnWindows = slashesAsOnWindows
	WindowsSuite       = windowsSuite
)
