package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML: one testsuite per run, one testcase per flow.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// Reruns and flaky runs, as Maven Surefire writes them (flaky.go).
	RerunFailures []junitRerun  `xml:"rerunFailure"`
	FlakyFailures []junitRerun  `xml:"flakyFailure"`
	Error         *junitFailure `xml:"error,omitempty"`
	Skipped       *struct{}     `xml:"skipped,omitempty"`
	SystemOut     *junitText    `xml:"system-out,omitempty"`
}

// junitText is CDATA, so each [[ATTACHMENT|path]] stays on a line of its
// own in the file, as Surefire writes system-out.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// seconds formats d in seconds with millisecond precision.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the suite as JUnit XML. A failed, blocked or
// unavailable flow is a <failure> whose message names the failed step; an
// invalid flow is an <error>. A testcase's classname is its flow file,
// slash-separated (ReportPath), as its attachments are.
func (s *SuiteReport) WriteJUnit(w io.Writer) error {
	js := junitSuite{Name: "bua", Time: seconds(s.Duration)}
	for _, f := range s.Flows {
		c := junitCase{Name: f.Name, Classname: ReportPath(f.File), Time: seconds(f.Duration)}
		js.Tests++
		switch f.Status {
		case StatusPassed:
		case StatusSkipped:
			js.Skipped++
			c.Skipped = &struct{}{}
		case StatusInvalid:
			js.Errors++
			c.Error = &junitFailure{Message: "invalid flow", Type: string(StatusInvalid), Body: reportForm(f.Diagnostics).String()}
		default:
			js.Failures++
			msg := string(f.Status)
			if f.FailedStep != "" {
				msg = fmt.Sprintf("step %q (line %d) %s: %s", f.FailedStep, f.FailedLine, f.Status, f.Reason)
			} else if f.Error != "" {
				msg += ": " + f.Error
			}
			body := f.Error
			if f.Hint != "" {
				body += "\nhint: " + f.Hint
			}
			for _, h := range f.HookErrors {
				body += "\nhook: " + h
			}
			c.Failure = &junitFailure{Message: f.Masker.Mask(msg), Type: string(f.Status), Body: f.Masker.Mask(body)}
		}
		c.RerunFailures, c.FlakyFailures = f.junitReruns()
		var out []string
		for _, a := range f.Advisories {
			out = append(out, "advisory: "+a)
		}
		for _, st := range f.Steps {
			if st.Handoff != nil {
				out = append(out, fmt.Sprintf("step %s %s", st.Path, st.Handoff))
			}
		}
		// The failed step's console errors and failed requests (already
		// masked), so the CI page says what the page did without a file.
		for _, st := range f.Steps {
			out = append(out, st.Evidence.junitLines()...)
		}
		for i := range out {
			out[i] = f.Masker.Mask(out[i])
		}
		// The bundle's files, one per line in the convention Jenkins'
		// JUnit Attachments plugin and GitLab read, slash-separated
		// (ReportPath), which both take on every OS. Paths bua wrote are
		// never masked: a secret that is also part of a step's name would
		// otherwise point CI at a file that does not exist.
		for _, st := range f.Steps {
			for _, a := range st.Artifacts {
				out = append(out, "[[ATTACHMENT|"+ReportPath(a)+"]]")
			}
		}
		if len(out) > 0 {
			c.SystemOut = &junitText{strings.Join(out, "\n")}
		}
		js.Cases = append(js.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{js}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
