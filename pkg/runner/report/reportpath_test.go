package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
)

// slashesAsOnWindows makes ReportPath turn \ into / for the rest of t, as
// filepath.ToSlash does on Windows: a path written with \ then stands for
// one a run on Windows recorded, and a writer that leaves out ReportPath
// shows it on Linux too.
func slashesAsOnWindows(t *testing.T) {
	old := toSlash
	toSlash = func(p string) string { return strings.ReplaceAll(p, `\`, "/") }
	t.Cleanup(func() { toSlash = old })
}

// windowsSuite is a failed flow as a run on Windows records it, every
// path with \: the flow file, a step of a subflow, the failed step's
// bundle (filepath.Join there), a diagnostic, an earlier failed run with
// its own bundle, and a merged report's shard.
func windowsSuite() *SuiteReport {
	bundle := `art\attempt-2\pay\3-pay`
	st := &StepReport{Path: "3", Kind: "click", File: `flows\shop\parts\card.yaml`, Line: 4, Status: StatusFailed,
		Error:     &ErrorInfo{Code: "timeout", Message: "#pay did not appear"},
		Artifacts: []string{bundle + `\screenshot.jpg`, bundle + `\steps.json`}}
	earlier := &FlowReport{Name: "pay", File: `flows\shop\pay.yaml`, Status: StatusFailed, Error: "first run",
		Steps: []*StepReport{{Path: "3", Kind: "click", File: `flows\shop\pay.yaml`, Status: StatusFailed, Artifacts: []string{`art\pay\3-pay\page.md`}}}}
	f := &FlowReport{Name: "pay", File: `flows\shop\pay.yaml`, Status: StatusFailed, Error: "x", FailedStep: "3", Attempts: 2,
		Steps: []*StepReport{st}, FailedAttempts: []*FlowReport{earlier},
		Diagnostics: flow.Diagnostics{{File: `flows\shop\pay.yaml`, Line: 2, Col: 3, Msg: "a repeat of 2000 passes", Warning: true}}}
	return &SuiteReport{Flows: []*FlowReport{f}, WorkDir: `..\ci`,
		Shards: []ShardInfo{{Report: `shards\report-1.json`, Shard: "1/1", Status: StatusFailed, Flows: 1}}}
}

// TestReportPaths_JSON: every path the JSON report holds is slash-
// separated, whatever the OS wrote (the flow's and the steps' files, the
// artifacts, an earlier run's, the diagnostics', workDir, a shard's
// report), so the reports of shards on Windows and Linux merge; the run's
// own report is left in the OS's form.
func TestReportPaths_JSON(t *testing.T) {
	slashesAsOnWindows(t)
	s := windowsSuite()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		WorkDir string `json:"workDir"`
		Shards  []struct {
			Report string `json:"report"`
		} `json:"shards"`
		Flows []struct {
			File        string `json:"file"`
			Diagnostics []struct {
				File string `json:"file"`
			} `json:"diagnostics"`
			Steps []struct {
				File      string   `json:"file"`
				Artifacts []string `json:"artifacts"`
			} `json:"steps"`
			FailedAttempts []struct {
				File  string `json:"file"`
				Steps []struct {
					Artifacts []string `json:"artifacts"`
				} `json:"steps"`
			} `json:"failedAttempts"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got.Flows[0]
	for _, c := range []struct{ what, got, want string }{
		{"workDir", got.WorkDir, "../ci"},
		{"shards[0].report", got.Shards[0].Report, "shards/report-1.json"},
		{"file", f.File, "flows/shop/pay.yaml"},
		{"diagnostics[0].file", f.Diagnostics[0].File, "flows/shop/pay.yaml"},
		{"steps[0].file", f.Steps[0].File, "flows/shop/parts/card.yaml"},
		{"steps[0].artifacts", strings.Join(f.Steps[0].Artifacts, " "), "art/attempt-2/pay/3-pay/screenshot.jpg art/attempt-2/pay/3-pay/steps.json"},
		{"failedAttempts[0].file", f.FailedAttempts[0].File, "flows/shop/pay.yaml"},
		{"failedAttempts[0].steps[0].artifacts", strings.Join(f.FailedAttempts[0].Steps[0].Artifacts, " "), "art/pay/3-pay/page.md"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if fl := s.Flows[0]; fl.File != `flows\shop\pay.yaml` || fl.Steps[0].Artifacts[0] != `art\attempt-2\pay\3-pay\screenshot.jpg` || fl.Diagnostics[0].File != `flows\shop\pay.yaml` || s.Shards[0].Report != `shards\report-1.json` {
		t.Errorf("writing the report changed the run's own paths: %+v", fl)
	}
}

// TestReportPaths_JUnit: a testcase's classname and its attachments are
// slash-separated, which Jenkins and GitLab read on every OS.
func TestReportPaths_JUnit(t *testing.T) {
	slashesAsOnWindows(t)
	var b bytes.Buffer
	if err := windowsSuite().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Cases []struct {
			Classname string `xml:"classname,attr"`
			SystemOut string `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Cases[0]; c.Classname != "flows/shop/pay.yaml" {
		t.Errorf("classname %q, want flows/shop/pay.yaml", c.Classname)
	}
	want := "[[ATTACHMENT|art/attempt-2/pay/3-pay/screenshot.jpg]]\n[[ATTACHMENT|art/attempt-2/pay/3-pay/steps.json]]"
	if out := got.Cases[0].SystemOut; !strings.Contains(out, want) || strings.Contains(out, `\`) {
		t.Errorf("system-out %q, want the attachments %q", out, want)
	}
}

// TestReportPaths_ReadBack: a report's slash-separated paths are the
// OS's again once read (filepath.FromSlash), before the artifacts are
// opened, and written out again as they were: a merge on Windows of
// shards run on Linux finds their files, and writes the same report.
func TestReportPaths_ReadBack(t *testing.T) {
	var b bytes.Buffer
	s := windowsSuite()
	slashesAsOnWindows(t)
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(b.Bytes(), "json")
	if err != nil {
		t.Fatal(err)
	}
	f := back.Flows[0]
	native := filepath.FromSlash
	if f.File != native("flows/shop/pay.yaml") || f.Steps[0].File != native("flows/shop/parts/card.yaml") ||
		f.Steps[0].Artifacts[0] != native("art/attempt-2/pay/3-pay/screenshot.jpg") || f.Diagnostics[0].File != native("flows/shop/pay.yaml") ||
		f.FailedAttempts[0].Steps[0].Artifacts[0] != native("art/pay/3-pay/page.md") || back.Shards[0].Report != native("shards/report-1.json") {
		t.Errorf("read back: %+v, steps %+v, shards %+v: want the OS's paths", f, f.Steps[0], back.Shards)
	}
	var again bytes.Buffer
	if err := back.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != b.String() {
		t.Errorf("read and written again differs:\n%s", firstDiff(again.String(), b.String()))
	}
}

// TestReportPaths_ShardsAcrossOSes: flows sort by their slash-separated
// form, so a job on Windows (a\x.yaml) and one on Linux (a/x.yaml) split
// a suite alike; and a merge matches a flow by that form, so the two
// spellings of one file are the same flow.
func TestReportPaths_ShardsAcrossOSes(t *testing.T) {
	slashesAsOnWindows(t)
	linux := []string{"flows/a/x.yaml", "flows/a2.yaml", "flows/a-b.yaml"}
	windows := []string{`flows\a\x.yaml`, `flows\a2.yaml`, `flows\a-b.yaml`}
	for i := 1; i <= 2; i++ {
		var got []string
		for _, f := range Shard(windows, i, 2) {
			got = append(got, ReportPath(f))
		}
		if want := Shard(linux, i, 2); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("shard %d/2: Windows runs %q, Linux %q", i, got, want)
		}
	}
	a := &SuiteReport{Source: "a.json", Flows: []*FlowReport{{Name: "x", File: linux[0], Status: StatusPassed}}}
	b := &SuiteReport{Source: "b.json", Flows: []*FlowReport{{Name: "x", File: windows[0], Status: StatusPassed}}}
	if _, _, err := Merge([]*SuiteReport{a, b}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "the shards overlap") {
		t.Errorf("merge of one flow run on Linux and on Windows: %v, want the shards overlap", err)
	}
}

// TestReportPaths_Messages: the texts a report carries name paths
// slash-separated too, whatever the OS wrote: a step's file:line in the
// flow's error (a diagnostic's file: pkg/flow's TestReportPath_Diagnostics), a
// flaky step's attempt in JUnit, an invalid flow's diagnostics in JUnit,
// and a merged report's problem, prefixed with its input.
func TestReportPaths_Messages(t *testing.T) {
	slashesAsOnWindows(t)
	file := `flows\shop\pay.yaml`
	se := &StepError{Flow: "pay", Step: "click", File: file, Line: 3, Err: errors.New("nothing matches #pay")}
	if got, want := se.Error(), `flows/shop/pay.yaml:3: step "click": nothing matches #pay`; got != want {
		t.Errorf("StepError = %q, want %q", got, want)
	}

	flaky := &StepReport{Path: "1", Kind: "click", File: file, Line: 3, Status: StatusPassed, Attempts: 2, Flaky: true,
		FailedAttempts: []AttemptError{{Attempt: 1, ErrorInfo: ErrorInfo{Code: "timeout", Message: "slow"}}}}
	s := &SuiteReport{Flows: []*FlowReport{
		{Name: "pay", File: file, Status: StatusPassed, Flaky: true, Steps: []*StepReport{flaky}},
		{Name: "broken", File: `flows\broken.yaml`, Status: StatusInvalid, Diagnostics: flow.Diagnostics{{File: `flows\broken.yaml`, Line: 3, Col: 5, Msg: "unknown step key"}}},
	}}
	var b bytes.Buffer
	if err := s.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<stackTrace>flows/shop/pay.yaml:3: step &#34;click&#34; attempt 1: timeout: slow</stackTrace>`,
		`<error message="invalid flow" type="invalid">flows/broken.yaml:3:5: unknown step key&#xA;</error>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("junit lacks %s:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), `\`) {
		t.Errorf("junit has a \\:\n%s", b.String())
	}

	in := &SuiteReport{Source: `shards\report-1.json`, Problems: []string{"artifact art/pay/1-click/trace.json: no space left on device"}}
	m, _, err := Merge([]*SuiteReport{in}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(m.Problems, "\n"), "shards/report-1.json: artifact art/pay/1-click/trace.json: no space left on device"; got != want {
		t.Errorf("merged problems %q, want %q", got, want)
	}
}

// firstDiff shows where a and b first differ, a few lines around.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		if i >= len(al) || i >= len(bl) || al[i] != bl[i] {
			lo := max(0, i-2)
			return "got:\n" + strings.Join(al[lo:min(len(al), i+3)], "\n") + "\nwant:\n" + strings.Join(bl[lo:min(len(bl), i+3)], "\n")
		}
	}
	return ""
}
