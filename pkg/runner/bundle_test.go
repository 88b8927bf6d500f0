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
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

var jpegBytes = []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2, 3}

// bundleFake answers like a real page that logged a console error and had
// a request fail, with the flow's secret in both; trace holds one event
// from before the flow started, which the bundle leaves out. The others
// are a minute after start, so they stay after the flow's own start
// however long a loaded machine takes to load the flow (at start+10 ms,
// the console error was left out of the evidence when it took longer).
func bundleFake(start time.Time, trace runnertest.Handler) *runnertest.Fake {
	page := runnertest.Page("textbox", "Password", "button", "Sign in")
	page.Title, page.URL, page.Markdown = "Home", "http://127.0.0.1/app", "# Home\n\nwelcome s3cret-pw"
	if trace == nil {
		ms := float64(start.UnixMilli())
		trace = runnertest.Result(protocol.TraceResult{NextSeq: 5, Dropped: 2, Events: []protocol.TraceEvent{
			{Seq: 1, T: ms - 60_000, Kind: protocol.TraceConsole, Level: "error", Text: "an earlier flow's error"},
			{Seq: 2, T: ms + 60_010, Kind: protocol.TraceConsole, Level: "error", Text: "boom: token s3cret-pw rejected"},
			{Seq: 3, T: ms + 60_020, Kind: protocol.TraceRequest, Method: "GET", URL: "http://127.0.0.1/api?key=s3cret-pw", Status: 404},
			{Seq: 4, T: ms + 60_030, Kind: protocol.TraceAction, Action: "extract", DurationMs: 12},
		}})
	}
	return runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(page)).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64," + b64(jpegBytes)})).
		On(protocol.ActionGetTrace, trace)
}

const bundleFlow = `
name: Checkout / pay
vars: { password: s3cret-pw, want: Dashboard }
secrets: [password]
steps:
  - type: { selector: "#pw", text: "${{ vars.password }}" }
  - extract: {}
    as: page
  - name: lands on the dashboard
    assert: page.title == vars.want && vars.password != ""
`

func readBundle(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	return string(b)
}

// TestBundle: a failed assert leaves, under artifacts/<flow file>/<step>/, the
// screenshot, the page at failure, the trace since the flow started, the
// step log and the values the assertion read, every secret masked; JSON
// lists the files and JUnit attaches them, slash-separated (ReportPath).
func TestBundle(t *testing.T) {
	dir := writeFlows(t, map[string]string{"pay.yaml": bundleFlow})
	t.Chdir(dir) // a run from the flows' folder: pay.yaml's evidence is in artifacts/pay/
	art := filepath.Join(dir, "artifacts")
	start := time.Now()
	r := &Runner{Requester: bundleFake(start, nil), Artifacts: art}
	suite := r.RunSuite(context.Background(), []string{filepath.Join(dir, "pay.yaml")})
	rec := suite.Flows[0]
	wantStatus(t, rec, report.StatusFailed)
	failed := rec.Steps[2]
	bundle := filepath.Join(art, "pay", "3-lands-on-the-dashboard")
	var names []string
	for _, a := range failed.Artifacts {
		if filepath.Dir(a) != bundle {
			t.Errorf("artifact %s is not in %s", a, bundle)
		}
		names = append(names, filepath.Base(a))
	}
	if got, want := strings.Join(names, " "), "screenshot.jpg page.md elements.json obstacle.json trace.json steps.json values.json"; got != want {
		t.Fatalf("artifacts = %s, want %s", got, want)
	}
	if img := readBundle(t, bundle, report.BundleScreenshot, nil); img != string(jpegBytes) {
		t.Errorf("screenshot = %q", img)
	}
	if md := readBundle(t, bundle, report.BundleMarkdown, nil); md != "# Home\n\nwelcome ***" {
		t.Errorf("page.md = %q, want the page at failure, masked", md)
	}
	var elements struct {
		Source   string `json:"source"`
		Title    string `json:"title"`
		Elements []protocol.Element
	}
	readBundle(t, bundle, report.BundleElements, &elements)
	if elements.Source != "at failure" || elements.Title != "Home" || len(elements.Elements) != 2 || elements.Elements[1].Name != "Sign in" {
		t.Errorf("elements.json = %+v", elements)
	}
	if ob := readBundle(t, bundle, report.BundleObstacle, nil); strings.TrimSpace(ob) != "null" {
		t.Errorf("obstacle.json = %s, want null (no obstacle seen)", ob)
	}
	var trace struct {
		SinceMs int64                 `json:"sinceMs"`
		Dropped int                   `json:"dropped"`
		Events  []protocol.TraceEvent `json:"events"`
	}
	readBundle(t, bundle, report.BundleTrace, &trace)
	if len(trace.Events) != 3 || trace.Events[0].Seq != 2 || trace.Dropped != 2 || trace.SinceMs != rec.Started.UnixMilli() {
		t.Errorf("trace.json = %+v, want the 3 events since the flow started", trace)
	}
	if ev := failed.Evidence; len(ev.Console()) != 1 || len(ev.FailedRequests()) != 1 || ev.FailedRequests()[0].Status != 404 {
		t.Errorf("evidence console %v, requests %v", ev.Console(), ev.FailedRequests())
	}
	var log []struct {
		Path   string            `json:"path"`
		Kind   string            `json:"kind"`
		Status report.Status     `json:"status"`
		Params map[string]any    `json:"params"`
		Error  *report.ErrorInfo `json:"error"`
	}
	readBundle(t, bundle, report.BundleSteps, &log)
	if len(log) != 3 || log[0].Params["text"] != report.Mask || log[0].Params["selector"] != "#pw" || log[2].Status != report.StatusFailed || log[2].Error == nil {
		t.Errorf("steps.json = %+v, want three steps, the typed secret masked, the last one failed", log)
	}
	var values []report.ExprReads
	readBundle(t, bundle, report.BundleValues, &values)
	got := map[string]any{}
	for _, v := range values[0].Values {
		got[v.Src] = v.Value
	}
	if len(values) != 1 || values[0].Src != `page.title == vars.want && vars.password != ""` ||
		got["page.title"] != "Home" || got["vars.want"] != "Dashboard" || got["vars.password"] != report.Mask || len(got) != 3 {
		t.Errorf("values.json = %+v", values)
	}
	for _, name := range names {
		if b, _ := os.ReadFile(filepath.Join(bundle, name)); bytes.Contains(b, []byte("s3cret-pw")) {
			t.Errorf("%s leaks the secret:\n%s", name, b)
		}
	}

	var junit, js bytes.Buffer
	if err := suite.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var cases struct {
		SystemOut string `xml:"testsuite>testcase>system-out"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &cases); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(cases.SystemOut, "\n")
	if len(lines) != 2+len(failed.Artifacts) || lines[0] != "console error: boom: token *** rejected" || lines[1] != "failed request: GET http://127.0.0.1/api?key=*** 404" {
		t.Errorf("junit system-out does not start with the console error and the failed request, masked:\n%s", cases.SystemOut)
	}
	for i, a := range failed.Artifacts {
		if i+2 >= len(lines) || lines[i+2] != "[[ATTACHMENT|"+report.ReportPath(a)+"]]" {
			t.Errorf("junit system-out line %d is not [[ATTACHMENT|%s]]:\n%s", i+2, report.ReportPath(a), cases.SystemOut)
		}
	}
	if err := suite.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Flows []struct {
			Steps []struct {
				Artifacts []string `json:"artifacts"`
			} `json:"steps"`
		} `json:"flows"`
	}
	json.Unmarshal(js.Bytes(), &parsed)
	if got := parsed.Flows[0].Steps[2].Artifacts; len(got) != 7 || got[0] != report.ReportPath(failed.Artifacts[0]) {
		t.Errorf("json artifacts = %v", got)
	}
}

// TestBundle_Capture covers what the runner does when part of the page
// cannot be read: the bundle says so and keeps what it has.
func TestBundle_Capture(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fake  func(*runnertest.Fake)
		check func(t *testing.T, ev *report.Evidence, rep *report.StepReport)
	}{
		{"NoTraceFeature", func(f *runnertest.Fake) {
			f.On(protocol.ActionGetTrace, runnertest.Fail(protocol.CodeInvalidAction, "get_trace needs the trace feature"))
		}, func(t *testing.T, ev *report.Evidence, rep *report.StepReport) {
			if !strings.Contains(ev.TraceNote, "does not support get_trace") || ev.Trace != nil {
				t.Errorf("trace note = %q, events %v", ev.TraceNote, ev.Trace)
			}
		}},
		{"ExtractFailsAtFailure", func(f *runnertest.Fake) {
			f.On(protocol.ActionExtract, runnertest.Sequence(runnertest.Result(runnertest.Page("link", "Before")), runnertest.Fail(protocol.CodeTimeout, "page hung")))
		}, func(t *testing.T, ev *report.Evidence, rep *report.StepReport) {
			if ev.ExtractSource != "last extract" || !strings.Contains(rep.Note, "extract at failure failed: timeout") {
				t.Errorf("extract source %q, note %q", ev.ExtractSource, rep.Note)
			}
		}},
		{"ScreenshotFails", func(f *runnertest.Fake) {
			f.On(protocol.ActionScreenshot, runnertest.Fail(protocol.CodeTabNotFound, "tab closed"))
		}, func(t *testing.T, ev *report.Evidence, rep *report.StepReport) {
			for _, a := range rep.Artifacts {
				if filepath.Base(a) == report.BundleScreenshot {
					t.Errorf("a screenshot is listed though none was taken")
				}
			}
			if ev.Screenshot != nil || !strings.Contains(rep.Note, "screenshot failed: tab_not_found") {
				t.Errorf("note = %q", rep.Note)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := bundleFake(time.Now(), nil)
			tc.fake(fake)
			dir := writeFlows(t, map[string]string{"pay.yaml": bundleFlow})
			r := &Runner{Requester: fake, Artifacts: filepath.Join(dir, "art")}
			rec := r.RunSuite(context.Background(), []string{filepath.Join(dir, "pay.yaml")}).Flows[0]
			wantStatus(t, rec, report.StatusFailed)
			rep := rec.Steps[2]
			if rep.Evidence == nil {
				t.Fatal("no evidence gathered")
			}
			tc.check(t, rep.Evidence, rep)
		})
	}
}

// TestBundle_SubFlowAndInMemory: an until in a sub-flow is evaluated in the
// sub-flow (its own as names); Runner.Evidence gathers without writing.
func TestBundle_SubFlowAndInMemory(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"main.yaml": "name: main\nsteps:\n  - run: sub.yaml\n",
		"sub.yaml":  "name: sub\nsteps:\n  - extract: {}\n    as: inner\n  - repeat:\n      until: inner.title == \"never\"\n      max: 2\n      steps:\n        - log: again\n",
	})
	// The fake's trace is stamped from its start, 10 ms apart, and the
	// evidence keeps what came after the sub-flow started: load the flows
	// once first, so the one-time compile of the validators' patterns is
	// not counted in between.
	if _, err := flow.Load(filepath.Join(dir, "sub.yaml")); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Requester: bundleFake(time.Now(), nil), Evidence: true}
	rec := r.RunSuite(context.Background(), []string{filepath.Join(dir, "main.yaml")}).Flows[0]
	wantStatus(t, rec, report.StatusFailed)
	var failed *report.StepReport
	for _, st := range rec.Steps {
		if st.Evidence != nil {
			failed = st
		}
	}
	if failed == nil || failed.Kind != "repeat" || failed.Path != "1.run.2" {
		t.Fatalf("evidence on %+v, want the repeat step 1.run.2", failed)
	}
	ev := failed.Evidence
	if len(ev.Exprs) != 1 || len(ev.Exprs[0].Values) != 1 || ev.Exprs[0].Values[0].Value != "Home" || ev.Screenshot == nil || len(ev.Trace) != 3 {
		t.Errorf("evidence = %+v", ev)
	}
	if len(failed.Artifacts) != 0 {
		t.Errorf("artifacts %v written without --artifacts", failed.Artifacts)
	}
}

// TestJUnit_Golden: the JUnit of a failed flow with its bundle attached
// and a passed one, on a fake clock, compared with testdata/junit.golden.xml
// (go test -update rewrites it; the temp dir's path is replaced by DIR).
func TestJUnit_Golden(t *testing.T) {
	dir := writeFlows(t, map[string]string{"pay.yaml": bundleFlow, "ok.yaml": "name: ok\nsteps:\n  - navigate: http://shop.test/\n"})
	base := time.Date(2025, 3, 14, 3, 0, 0, 0, time.UTC)
	tick := base
	now := func() time.Time { tick = tick.Add(125 * time.Millisecond); return tick }
	r := &Runner{Requester: bundleFake(base.Add(250*time.Millisecond), nil), Artifacts: filepath.Join(dir, "artifacts"), Now: now}
	golden, err := filepath.Abs(filepath.Join("testdata", "junit.golden.xml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // a run from the flows' folder: pay.yaml's evidence is in artifacts/pay/
	suite := r.RunSuite(context.Background(), []string{filepath.Join(dir, "pay.yaml"), filepath.Join(dir, "ok.yaml")})
	var b bytes.Buffer
	if err := suite.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	got := scrubDir(b.String(), dir, "DIR/")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("junit differs from %s (go test -update rewrites it); got:\n%s", golden, got)
	}
}

// TestBundle_FolderPerFile: two files with one flow name (a copied file)
// each keep their evidence in a folder named after the file, not the
// name: the second no longer replaces the first's files, each flow's
// artifacts point at its own, and the summary names the file of each.
// A flow whose name no other shares keeps its name alone.
func TestBundle_FolderPerFile(t *testing.T) {
	flow := func(want string) string {
		return "name: Checkout\nsteps:\n  - extract: {}\n    as: page\n  - assert: page.title == \"" + want + "\"\n"
	}
	dir := writeFlows(t, map[string]string{
		"flows/checkout.yaml":      flow("Paid"),
		"flows/checkout copy.yaml": flow("Refunded"),
		"flows/other.yaml":         "name: Other\nsteps:\n  - log: fine\n",
	})
	t.Chdir(dir) // bua run from the project's root
	files := []string{filepath.Join("flows", "checkout.yaml"), filepath.Join("flows", "checkout copy.yaml"), filepath.Join(dir, "flows", "other.yaml")}
	r := &Runner{Requester: bundleFake(time.Now(), nil), Artifacts: "art"}
	suite := r.RunSuite(context.Background(), files)
	for i, tc := range []struct{ folder, want string }{
		{"flows-checkout", "Paid"},
		{"flows-checkout-copy", "Refunded"},
	} {
		rec := suite.Flows[i]
		wantStatus(t, rec, report.StatusFailed)
		bundle := filepath.Join("art", tc.folder, "2-assert")
		arts := rec.Steps[1].Artifacts
		if len(arts) == 0 {
			t.Fatalf("%s: no artifacts", rec.File)
		}
		for _, a := range arts {
			if filepath.Dir(a) != bundle {
				t.Errorf("%s: artifact %s is not in %s", rec.File, a, bundle)
			}
		}
		var values []report.ExprReads
		readBundle(t, bundle, report.BundleValues, &values)
		if len(values) != 1 || values[0].Src != `page.title == "`+tc.want+`"` {
			t.Errorf("%s: values.json = %+v, want its own assert's", bundle, values)
		}
		var steps []struct{ File string }
		readBundle(t, bundle, report.BundleSteps, &steps)
		if len(steps) == 0 || steps[0].File != report.ReportPath(files[i]) {
			t.Errorf("%s: steps.json names %+v, want %s", bundle, steps, files[i])
		}
	}
	var labels []string
	for _, row := range suite.SummaryRows() {
		if !strings.HasPrefix(row[0], " ") {
			labels = append(labels, row[0])
		}
	}
	if got, want := strings.Join(labels, " | "), "Checkout (flows/checkout.yaml) | Checkout (flows/checkout copy.yaml) | Other"; got != want {
		t.Errorf("summary flows = %s, want %s", got, want)
	}
}

// TestEvidenceFolder: the folder is the file's path from the working
// directory, made one safe folder name.
func TestEvidenceFolder(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"checkout.yaml", "checkout"},
		{filepath.Join("flows", "shop", "Pay.yml"), "flows-shop-Pay"},
		{filepath.Join(wd, "flows", "pay.yaml"), "flows-pay"},
		{filepath.Join("..", "other", "pay.yaml"), "other-pay"},
		{"a b:c*.yaml", "a-b-c"},
		{"café.yaml", "café"},
		{"...yaml", "flow"},
	} {
		if got := evidenceFolder(tc.file); got != tc.want {
			t.Errorf("evidenceFolder(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}
