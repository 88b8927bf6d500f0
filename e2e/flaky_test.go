package e2e

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flakyJUnit is the part of a JUnit report the flaky tests read: the
// testcase's failure and Surefire's <flakyFailure> elements.
type flakyJUnit struct {
	Suites []struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Flaky []struct {
				Message    string `xml:"message,attr"`
				Type       string `xml:"type,attr"`
				StackTrace string `xml:"stackTrace"`
				SystemOut  string `xml:"system-out"`
			} `xml:"flakyFailure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// flakyJSON is the part of the JSON report the flaky tests read.
type flakyJSON struct {
	ExitCode int `json:"exitCode"`
	Flows    []struct {
		Status         string   `json:"status"`
		Flaky          bool     `json:"flaky"`
		Attempts       int      `json:"attempts"`
		Tags           []string `json:"tags"`
		Error          string   `json:"error"`
		FailedAttempts []struct {
			Status     string `json:"status"`
			FailedStep string `json:"failedStep"`
			Error      string `json:"error"`
		} `json:"failedAttempts"`
	} `json:"flows"`
}

// TestFlows_Flaky runs the flaky fixture (flows/selftest/flaky.yaml: its
// page fails the first visit of a run and passes the second) in real
// Chromium with --retries 1: it passes on its rerun and is reported flaky
// in JSON, JUnit and the summary; under --fail-on-flaky the same run fails.
func TestFlows_Flaky(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		exit    int
		status  string
		summary string
		failure bool // the testcase has a <failure>
	}{
		{"Retries", []string{"--retries", "1"}, 0, "passed", "1 passed (1 flaky), 0 failed, 0 skipped", false},
		{"FailOnFlaky", []string{"--retries", "1", "--fail-on-flaky"}, 1, "failed", "0 passed, 1 failed (1 flaky), 0 skipped", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, _, dir := runFlow(t, filepath.Join("selftest", "flaky.yaml"), tc.args...)
			if code != tc.exit || !strings.Contains(out, tc.summary) {
				t.Fatalf("exit %d, want %d with summary %q\n%s", code, tc.exit, tc.summary, out)
			}
			if !strings.Contains(out, "rerunning Flaky fixture (attempt 2 of at most 2)") {
				t.Errorf("progress does not announce the rerun:\n%s", out)
			}

			var rep flakyJSON
			data, err := os.ReadFile(filepath.Join(dir, "report.json"))
			if err == nil {
				err = json.Unmarshal(data, &rep)
			}
			if err != nil || len(rep.Flows) != 1 {
				t.Fatalf("JSON report: %v\n%s", err, data)
			}
			f := rep.Flows[0]
			if rep.ExitCode != tc.exit || f.Status != tc.status || !f.Flaky || f.Attempts != 2 || strings.Join(f.Tags, ",") != "selftest,flaky" {
				t.Errorf("JSON flow = %+v (exit %d), want %s, flaky, 2 attempts, tags selftest,flaky", f, rep.ExitCode, tc.status)
			}
			if len(f.FailedAttempts) != 1 || f.FailedAttempts[0].Status != "failed" || f.FailedAttempts[0].FailedStep != "status check" ||
				!strings.Contains(f.FailedAttempts[0].Error, "not ready (visit 1)") {
				t.Errorf("JSON failedAttempts = %+v, want the first run's failed status check on visit 1", f.FailedAttempts)
			}
			if tc.failure && !strings.Contains(f.Error, "--fail-on-flaky") {
				t.Errorf("JSON error %q does not say --fail-on-flaky failed it", f.Error)
			}

			var ju flakyJUnit
			data, err = os.ReadFile(filepath.Join(dir, "junit.xml"))
			if err == nil {
				err = xml.Unmarshal(data, &ju)
			}
			if err != nil || len(ju.Suites) != 1 || len(ju.Suites[0].Cases) != 1 {
				t.Fatalf("JUnit: %v\n%s", err, data)
			}
			c := ju.Suites[0].Cases[0]
			if (c.Failure != nil) != tc.failure || (ju.Suites[0].Failures == 1) != tc.failure {
				t.Errorf("JUnit testcase failure = %+v (suite failures %d), want failure=%v\n%s", c.Failure, ju.Suites[0].Failures, tc.failure, data)
			}
			if len(c.Flaky) != 1 || c.Flaky[0].Type != "failed" || !strings.Contains(c.Flaky[0].Message, `attempt 1 of 2 failed: step "status check"`) ||
				!strings.Contains(c.Flaky[0].StackTrace, "not ready (visit 1)") || !strings.Contains(c.Flaky[0].SystemOut, "status check failed") {
				t.Errorf("JUnit flakyFailure = %+v, want one for the failed first run\n%s", c.Flaky, data)
			}
		})
	}
}

// TestFlows_FlakyStep: a step that its retry policy sent again and that
// then passed is flaky in real Chromium too: slow-retry.yaml's wait_for
// times out on a report that appears 2.5 s after load, and passes on a
// later attempt; so the flow passes, flaky, with a <flakyFailure> per
// timed-out attempt.
func TestFlows_FlakyStep(t *testing.T) {
	out, code, _, dir := runFlow(t, "slow-retry.yaml")
	if code != 0 || !strings.Contains(out, "1 passed (1 flaky), 0 failed") {
		t.Fatalf("exit %d, want 0 with one flaky flow\n%s", code, out)
	}
	var rep struct {
		Flows []struct {
			Flaky bool `json:"flaky"`
			Steps []struct {
				Kind           string `json:"kind"`
				Line           int    `json:"line"`
				Flaky          bool   `json:"flaky"`
				Attempts       int    `json:"attempts"`
				FailedAttempts []struct {
					Attempt int    `json:"attempt"`
					Code    string `json:"code"`
				} `json:"failedAttempts"`
			} `json:"steps"`
		} `json:"flows"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || len(rep.Flows) != 1 || len(rep.Flows[0].Steps) < 2 {
		t.Fatalf("JSON report: %v\n%s", err, data)
	}
	st := rep.Flows[0].Steps[1]
	if !rep.Flows[0].Flaky || st.Kind != "wait_for" || !st.Flaky || len(st.FailedAttempts) == 0 || len(st.FailedAttempts) != st.Attempts-1 {
		t.Fatalf("flow flaky %v, wait_for step %+v: want flaky with its timed-out attempts", rep.Flows[0].Flaky, st)
	}
	for i, a := range st.FailedAttempts {
		if a.Attempt != i+1 || a.Code != "timeout" {
			t.Errorf("failed attempt %d = %+v, want a timeout", i+1, a)
		}
	}
	var ju flakyJUnit
	data, err = os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err == nil {
		err = xml.Unmarshal(data, &ju)
	}
	if err != nil || len(ju.Suites) != 1 || len(ju.Suites[0].Cases) != 1 {
		t.Fatalf("JUnit: %v\n%s", err, data)
	}
	c := ju.Suites[0].Cases[0]
	if c.Failure != nil || len(c.Flaky) != len(st.FailedAttempts) || c.Flaky[0].Type != "timeout" || !strings.Contains(c.Flaky[0].Message, fmt.Sprintf(`step "wait_for" (line %d) attempt 1`, st.Line)) {
		t.Errorf("JUnit testcase: failure %+v, flakyFailures %+v\n%s", c.Failure, c.Flaky, data)
	}
}
