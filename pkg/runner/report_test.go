package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestReport_SecretsMaskContentNotPaths: with a secret whose value is part
// of the failed step's name ("pass" in "password reset"), JUnit's
// attachments and the JSON report's artifacts are the files on disk, while
// the secret is still masked in every message.
func TestReport_SecretsMaskContentNotPaths(t *testing.T) {
	fake := runnertest.New().
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64," + b64([]byte{0xff, 0xd8, 0xff})})).
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeElementNotFound, "no #reset for pass"))
	dir := writeFlows(t, map[string]string{"main.yaml": `
name: password reset
vars: { pw: pass }
secrets: [pw]
steps:
  - type: { selector: "#pw", text: "${{ vars.pw }}" }
  - name: password reset
    click: "#reset"
`})
	r := &Runner{Requester: fake, Artifacts: filepath.Join(dir, "art")}
	suite := r.RunSuite(context.Background(), []string{filepath.Join(dir, "main.yaml")})
	var junit, js bytes.Buffer
	if err := suite.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if err := suite.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct { // the part of report.WriteJUnit's document read here
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				SystemOut *struct {
					Text string `xml:",cdata"`
				} `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Suites[0].Cases[0]
	if c.SystemOut == nil {
		t.Fatalf("junit has no system-out:\n%s", junit.String())
	}
	var attached []string
	for _, line := range strings.Split(c.SystemOut.Text, "\n") {
		if p, ok := strings.CutPrefix(line, "[[ATTACHMENT|"); ok {
			attached = append(attached, strings.TrimSuffix(p, "]]"))
		}
	}
	if len(attached) != 7 {
		t.Fatalf("junit attaches %d files, want the bundle's 7:\n%s", len(attached), c.SystemOut.Text)
	}
	for _, p := range attached {
		if !strings.Contains(p, "password-reset") {
			t.Errorf("attachment %s: want the bundle dir named after the step, unmasked", p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("junit attaches %s, which CI cannot open: %v", p, err)
		}
	}
	var rep struct {
		Flows []struct {
			Steps []struct {
				Artifacts []string `json:"artifacts"`
			} `json:"steps"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Flows[0].Steps[1].Artifacts; strings.Join(got, "\n") != strings.Join(attached, "\n") {
		t.Errorf("json artifacts = %v, want the files junit attaches", got)
	}
	// Content is still masked: the error message and the typed text.
	if !strings.Contains(c.Failure.Message, "no #reset for ***") || strings.Contains(js.String(), `"text": "pass"`) {
		t.Errorf("the secret is not masked in content:\n%s\n%s", c.Failure.Message, js.String())
	}
}

// TestRun_HintFromRunner: Runner.Hint, when set, gives every protocol
// error's hint (the CLI's, by code and reason); without it, the error
// contract's for the code.
func TestRun_HintFromRunner(t *testing.T) {
	refused := func(context.Context, protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInternalError, Message: "net::ERR_CONNECTION_REFUSED", Reason: "net::ERR_CONNECTION_REFUSED"}
	}
	dir := writeFlows(t, map[string]string{"main.yaml": "name: h\nsteps:\n  - navigate: http://127.0.0.1:9/\n"})
	f, err := flow.Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	byReason := func(e *protocol.Error) string { return "reason " + e.Reason }
	for _, tc := range []struct {
		name string
		hint func(*protocol.Error) string
		want string
	}{
		{"Runner", byReason, "reason net::ERR_CONNECTION_REFUSED"},
		{"Contract", nil, lookupNext(protocol.CodeInternalError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{Requester: runnertest.New().On(protocol.ActionNavigate, refused), Hint: tc.hint}
			rec := r.RunFlow(context.Background(), f)
			wantStatus(t, rec, report.StatusFailed)
			if rec.Hint != tc.want || rec.Steps[0].Error == nil || rec.Steps[0].Error.Hint != tc.want {
				t.Errorf("flow hint %q, step error %+v; want hint %q", rec.Hint, rec.Steps[0].Error, tc.want)
			}
		})
	}
}
