package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// flowReport is the part of `bua run --report json=FILE` these tests read.
type flowReport struct {
	ExitCode int `json:"exitCode"`
	Flows    []struct {
		Name     string `json:"name"`
		File     string `json:"file"`
		Status   string `json:"status"`
		Error    string `json:"error"`
		Obstacle *struct {
			Type string `json:"type"`
		} `json:"obstacle"`
		Steps []struct {
			Path      string         `json:"path"`
			Kind      string         `json:"kind"`
			Status    string         `json:"status"`
			Note      string         `json:"note"`
			Params    map[string]any `json:"params"`
			Artifacts []string       `json:"artifacts"`
			Error     *struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"steps"`
	} `json:"flows"`
}

// runFlow runs `bua run` on one example flow with JSON and JUnit reports
// and artifacts in a temp dir, and returns the output, exit code and the
// parsed JSON report.
func runFlow(t *testing.T, flow string, args ...string) (string, int, flowReport, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	jsonPath := filepath.Join(dir, "report.json")
	all := append([]string{"run", filepath.Join("..", "flows", flow),
		"--report", "json=" + jsonPath, "--report", "junit=" + filepath.Join(dir, "junit.xml"),
		"--artifacts", filepath.Join(dir, "artifacts")}, args...)
	out, code := bua(ctx, all...)
	var rep flowReport
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("bua run %s: no JSON report (%v); exit %d:\n%s", flow, err, code, out)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("bad JSON report: %v\n%s", err, data)
	}
	return out, code, rep, dir
}

// TestFlows runs every example under flows/ through the real binary in the
// real managed Chromium and checks exit codes and reports.
func TestFlows(t *testing.T) {
	for _, tc := range []struct {
		name, flow string
		exit       int
		status     string
	}{
		{"Login", "login.yaml", 0, "passed"},
		{"FormFill", "form-fill.yaml", 0, "passed"},
		{"SPA", "spa.yaml", 0, "passed"},
		{"SlowRetry", "slow-retry.yaml", 0, "passed"},
		{"StaleRecovery", "stale-recovery.yaml", 0, "passed"},
		{"DomainBlocked", "domain-blocked.yaml", 3, "blocked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, rep, _ := runFlow(t, tc.flow)
			if code != tc.exit || rep.ExitCode != tc.exit || len(rep.Flows) != 1 || rep.Flows[0].Status != tc.status {
				t.Fatalf("bua run %s: exit %d (report %d), want %d and status %s\n%s", tc.flow, code, rep.ExitCode, tc.exit, tc.status, out)
			}
		})
	}
}

func TestFlows_LoginBranchesOnAuthWall(t *testing.T) {
	out, code, rep, _ := runFlow(t, "login.yaml", "--var", "user=grace@example.com")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var ranSubFlow bool
	for _, st := range rep.Flows[0].Steps {
		if st.Path == "3.then.1.run.3" && st.Kind == "type" {
			ranSubFlow = true
		}
		if st.Kind == "type" && st.Params["text"] == "demo-password" {
			t.Errorf("step %s shows the secret password: %v", st.Path, st.Params)
		}
	}
	if !ranSubFlow {
		t.Errorf("the auth_wall branch did not run common/login.yaml:\n%s", out)
	}
	if strings.Contains(out, "demo-password") {
		t.Errorf("output leaks the password:\n%s", out)
	}
}

func TestFlows_StaleRecoveryAfterNavigation(t *testing.T) {
	out, code, rep, _ := runFlow(t, "stale-recovery.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	click := rep.Flows[0].Steps[3]
	if click.Kind != "click" || !strings.Contains(click.Note, "element_stale: re-extracted page") {
		t.Errorf("click step = %+v, want a real element_stale recovered by re-extracting page\n%s", click, out)
	}
}

func TestFlows_DomainBlockedIsTerminal(t *testing.T) {
	out, code, rep, _ := runFlow(t, "domain-blocked.yaml")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, out)
	}
	steps := rep.Flows[0].Steps
	if steps[0].Error == nil || steps[0].Error.Code != "domain_blocked" {
		t.Errorf("first step = %+v, want domain_blocked", steps[0])
	}
	for _, st := range steps {
		if st.Path == "2" {
			t.Errorf("the flow went on after domain_blocked despite continue_on_error")
		}
	}
}

func TestFlows_ExpectedFailureJUnit(t *testing.T) {
	out, code, rep, dir := runFlow(t, filepath.Join("selftest", "expected-failure.yaml"))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("junit: %v\n%s", err, data)
	}
	if len(suites.Suites) != 1 || suites.Suites[0].Tests != 1 || suites.Suites[0].Failures != 1 {
		t.Fatalf("junit = %s", data)
	}
	c := suites.Suites[0].Cases[0]
	if c.Name != "Expected failure" || c.Failure == nil || !strings.Contains(c.Failure.Message, `step "title check"`) ||
		!strings.Contains(c.Failure.Message, "the title is Demo app") {
		t.Errorf("testcase = %+v, want the failed step and assert message named", c)
	}
	var arts []string
	for _, st := range rep.Flows[0].Steps {
		arts = append(arts, st.Artifacts...)
	}
	if len(arts) != 7 {
		t.Fatalf("artifacts = %v, want the evidence bundle (screenshot first)", arts)
	}
	for _, a := range arts {
		fi, err := os.Stat(a)
		if err != nil || fi.Size() == 0 {
			t.Errorf("artifact %s: %v", a, err)
		}
	}
	if img, _ := os.ReadFile(arts[0]); len(img) < 3 || img[0] != 0xff || img[1] != 0xd8 {
		t.Errorf("screenshot %s is not a JPEG", arts[0])
	}
}

// TestFlows_SubFlowInheritsPolicies: in real Chromium, a sign-in sub-flow
// with no obstacles policy of its own (flows/selftest/sign-in.yaml) goes
// through the login page, an auth wall, when its caller continues on high
// verdicts; run alone, the same sub-flow stops on that page.
func TestFlows_SubFlowInheritsPolicies(t *testing.T) {
	out, code, rep, _ := runFlow(t, filepath.Join("selftest", "sign-in-inherits.yaml"))
	if code != 0 || len(rep.Flows) != 1 || rep.Flows[0].Status != "passed" {
		t.Fatalf("exit %d, want 0: the sub-flow did not keep its caller's obstacles policy\n%s", code, out)
	}
	var typed int
	for _, st := range rep.Flows[0].Steps {
		if strings.HasPrefix(st.Path, "1.run.") && st.Kind == "type" && st.Status == "passed" {
			typed++
		}
	}
	if typed != 2 {
		t.Errorf("the sub-flow typed %d fields past the login wall, want 2\n%s", typed, out)
	}
	out, code, rep, _ = runFlow(t, filepath.Join("selftest", "sign-in.yaml"), "--serve", filepath.Join("..", "testdata", "sites"))
	if code != 3 || rep.Flows[0].Obstacle == nil || rep.Flows[0].Obstacle.Type != "auth_wall" {
		t.Errorf("sign-in.yaml alone: exit %d, want 3, blocked by the auth wall (the default policy)\n%s", code, out)
	}
}

// TestFlows_SecretsMaskContentNotPaths: in real Chromium, a failing flow
// whose secret ("pass") is part of its step's name attaches the evidence
// bundle's real files in JUnit (Jenkins and GitLab open them), while the
// secret stays masked in every message, in the report and in the bundle.
func TestFlows_SecretsMaskContentNotPaths(t *testing.T) {
	out, code, rep, dir := runFlow(t, filepath.Join("selftest", "secret-in-step-name.yaml"))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 1 {
		t.Fatalf("junit: %v\n%s", err, data)
	}
	c := suites.Suites[0].Cases[0]
	var attached []string
	for _, line := range strings.Split(c.SystemOut, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "[[ATTACHMENT|"); ok {
			attached = append(attached, strings.TrimSuffix(p, "]]"))
		}
	}
	if len(attached) != 7 {
		t.Fatalf("junit attaches %d files, want the bundle's 7:\n%s", len(attached), data)
	}
	for _, a := range attached {
		// The flow's folder is named after its file (two flows may share a name), the step's
		// after the step: "pass" in "4-password-reset" stays as written.
		if !strings.Contains(a, "secret-in-step-name"+string(filepath.Separator)+"4-password-reset") {
			t.Errorf("attachment %s: want the bundle dir as written, …secret-in-step-name/4-password-reset", a)
		}
		if fi, err := os.Stat(a); err != nil || fi.Size() == 0 {
			t.Errorf("junit attaches %s, which CI cannot open: %v", a, err)
		}
	}
	var arts []string
	for _, st := range rep.Flows[0].Steps {
		arts = append(arts, st.Artifacts...)
	}
	if strings.Join(arts, "\n") != strings.Join(attached, "\n") {
		t.Errorf("json artifacts %v, want the files junit attaches %v", arts, attached)
	}
	if c.Failure == nil || !strings.Contains(c.Failure.Message, "not the reset page for ***") {
		t.Errorf("junit failure = %+v, want the secret masked in its message", c.Failure)
	}
	steps, _ := os.ReadFile(filepath.Join(filepath.Dir(attached[0]), "steps.json"))
	if !strings.Contains(string(steps), `"text": "***"`) || strings.Contains(string(steps), `"text": "pass"`) {
		t.Errorf("the bundle's step log does not mask the typed secret:\n%s", steps)
	}
}
