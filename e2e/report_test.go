package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"flag"
	"image"
	_ "image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// updateDocs writes the report's picture into docs/ as well.
var updateDocs = flag.Bool("update-docs", false, "write docs/report.png from this run")

// secret is flows/selftest/checkout-evidence.yaml's password: the fixture
// page echoes it to the console, and no report may show it.
const secret = "correct-horse-battery"

// TestReport_FailingFlowEvidence runs the failing selftest flow in the real
// browser with --artifacts and JUnit, JSON and HTML reports, and checks all
// three: the evidence bundle of the failed step (screenshot, page, trace
// with the console error and the 404 the fixture makes, step log, the
// value the assert read), JUnit's [[ATTACHMENT|path]] lines, and the HTML
// report opened in a tab: the failed step, its screenshot loaded, the
// console error and the failed request, and nothing fetched from anywhere.
func TestReport_FailingFlowEvidence(t *testing.T) {
	htmlDir := t.TempDir()
	htmlPath := filepath.Join(htmlDir, "report.html")
	out, code, rep, dir := runFlow(t, filepath.Join("selftest", "checkout-evidence.yaml"), "--report", "html="+htmlPath)
	if code != 1 || rep.Flows[0].Status != "failed" {
		t.Fatalf("exit %d, status %s: want 1, failed\n%s", code, rep.Flows[0].Status, out)
	}

	// The bundle: artifacts/<flow file>/<step>/, listed on the failed
	// step; the file is ../flows/selftest/checkout-evidence.yaml from here.
	steps := rep.Flows[0].Steps
	failed := steps[len(steps)-1]
	bundle := filepath.Join(dir, "artifacts", "flows-selftest-checkout-evidence", "6-order-confirmed")
	var names []string
	for _, a := range failed.Artifacts {
		if filepath.Dir(a) != bundle {
			t.Errorf("artifact %s is outside %s", a, bundle)
		}
		names = append(names, filepath.Base(a))
	}
	if got, want := strings.Join(names, " "), "screenshot.jpg page.md elements.json obstacle.json trace.json steps.json values.json"; got != want {
		t.Fatalf("step %s artifacts = %s, want %s\n%s", failed.Path, got, want, out)
	}
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(bundle, name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s shows the secret password:\n%s", name, b)
		}
		return b
	}
	shot, format, err := image.DecodeConfig(bytes.NewReader(read("screenshot.jpg")))
	if err != nil || format != "jpeg" || shot.Width < 100 || shot.Height < 100 {
		t.Errorf("screenshot.jpg: %s %dx%d %v, want a JPEG of the page", format, shot.Width, shot.Height, err)
	}
	wantContains(t, "page.md", string(read("page.md")), "Payment failed: the payment service did not answer.")
	var elements struct {
		Source   string `json:"source"`
		Title    string `json:"title"`
		Elements []struct{ Role, Name string }
	}
	json.Unmarshal(read("elements.json"), &elements)
	if elements.Source != "at failure" || elements.Title != "Checkout: payment failed" || !hasElement(elements.Elements, "button", "Pay now") {
		t.Errorf("elements.json = %+v, want the page at failure with its Pay now button", elements)
	}
	// A short page with a password field is a possible login wall: the
	// extract's verdict is low auth_wall, which the flow continued past.
	var verdict struct{ Type, Confidence string }
	if err := json.Unmarshal(read("obstacle.json"), &verdict); err != nil || verdict.Type != "auth_wall" || verdict.Confidence != "low" {
		t.Errorf("obstacle.json = %+v (%v), want the page's low auth_wall verdict", verdict, err)
	}
	var trace struct {
		Note   string `json:"note"`
		Events []struct {
			T                      float64
			Kind, Level, Text, URL string
			Method                 string
			Status                 int
		} `json:"events"`
	}
	json.Unmarshal(read("trace.json"), &trace)
	var consoleErr, notFound, maskedEcho bool
	for _, e := range trace.Events {
		switch {
		case e.Kind == "console" && e.Level == "error" && strings.Contains(e.Text, "payment service: 404"):
			consoleErr = true
		case e.Kind == "request" && e.Status == 404 && e.Method == "GET" && strings.HasSuffix(e.URL, "/app/api/pay.json"):
			notFound = true
		case e.Kind == "console" && e.Text == "password entered: ***":
			maskedEcho = true
		}
	}
	if !consoleErr || !notFound || !maskedEcho {
		t.Errorf("trace.json: console error %v, 404 %v, masked password echo %v; want all three (note %q):\n%s", consoleErr, notFound, maskedEcho, trace.Note, read("trace.json"))
	}
	var log []struct {
		Path   string         `json:"path"`
		Kind   string         `json:"kind"`
		Params map[string]any `json:"params"`
	}
	json.Unmarshal(read("steps.json"), &log)
	if len(log) != 6 || log[2].Kind != "type" || log[2].Params["text"] != "***" || log[2].Params["selector"] != "#password" {
		t.Errorf("steps.json = %+v, want 6 steps with the typed password masked", log)
	}
	var values []struct {
		Expr   string `json:"expression"`
		Values []struct {
			Expr  string `json:"expr"`
			Value any    `json:"value"`
		} `json:"values"`
	}
	json.Unmarshal(read("values.json"), &values)
	if len(values) != 1 || len(values[0].Values) != 1 || values[0].Values[0].Expr != "page.title" || values[0].Values[0].Value != "Checkout: payment failed" {
		t.Errorf("values.json = %+v, want page.title and its value", values)
	}

	// JUnit: one [[ATTACHMENT|path]] line per bundle file.
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		SystemOut string `xml:"testsuite>testcase>system-out"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil {
		t.Fatal(err)
	}
	var attached []string
	for _, line := range strings.Split(junit.SystemOut, "\n") {
		if strings.HasPrefix(line, "[[ATTACHMENT|") {
			attached = append(attached, line)
		}
	}
	for i, a := range failed.Artifacts {
		if i >= len(attached) || attached[i] != "[[ATTACHMENT|"+a+"]]" {
			t.Errorf("junit attachment %d is not [[ATTACHMENT|%s]]:\n%s", i, a, junit.SystemOut)
		}
	}
	wantContains(t, "junit system-out", junit.SystemOut, "console error: payment service: 404 Not Found from api/pay.json, card declined")
	wantContains(t, "junit system-out", junit.SystemOut, "/app/api/pay.json 404")
	if bytes.Contains(data, []byte(secret)) {
		t.Errorf("junit shows the password")
	}

	// The HTML report, opened in a tab of the real browser from a local
	// server, as a CI artifact viewer would serve it.
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte(secret)) {
		t.Errorf("the HTML report shows the password")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(htmlDir)))
	defer srv.Close()
	tab := browserPage(t, srv.URL+"/report.html")
	waitFor(t, tab.eval, "the report loads", `document.readyState === "complete" && document.querySelector("img.screenshot").complete`)
	for _, c := range []struct{ what, expr string }{
		{"the failed flow is unfolded with its failed step", `[...document.querySelectorAll("details.flow.failed[open] tr.step.failed")].some((tr) => tr.textContent.includes("order confirmed"))`},
		{"the screenshot loaded", `document.querySelector("tr.evidence-row img.screenshot").naturalWidth > 0`},
		{"the console error is highlighted", `[...document.querySelectorAll("ol.console li.err")].some((li) => li.textContent.includes("payment service: 404") && getComputedStyle(li).backgroundColor !== "rgba(0, 0, 0, 0)")`},
		{"the failed request is listed", `[...document.querySelectorAll("table.requests tr")].some((tr) => tr.cells[1].textContent === "GET" && tr.cells[2].textContent.endsWith("/app/api/pay.json") && tr.cells[3].textContent === "404")`},
		{"the obstacle verdict is shown", `document.querySelector("tr.evidence-row").textContent.includes("auth_wall (low)")`},
		{"the value the assert read is shown", `[...document.querySelectorAll("table.values tr")].some((tr) => tr.textContent.includes("page.title") && tr.textContent.includes("Checkout: payment failed"))`},
		{"the password shows nowhere", `!document.body.innerText.includes(` + jsonString(secret) + `)`},
	} {
		if got := tab.eval(c.expr); got != true {
			t.Errorf("%s: %s is %v", c.what, c.expr, got)
		}
	}
	if got := tab.eval(`JSON.stringify(performance.getEntriesByType("resource").map((e) => e.name.slice(0, 80)))`); got != "[]" {
		t.Errorf("the report fetched %v: want nothing but itself", got)
	}
	picture := tab.png(1100, 900)
	if cfg, err := png.DecodeConfig(bytes.NewReader(picture)); err != nil || cfg.Width != 1100 {
		t.Fatalf("report picture: %v %+v", err, cfg)
	}
	if *updateDocs {
		if err := os.WriteFile(filepath.Join("..", "docs", "report.png"), picture, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote docs/report.png (%d bytes)", len(picture))
	}
}

func hasElement(els []struct{ Role, Name string }, role, name string) bool {
	for _, e := range els {
		if e.Role == role && e.Name == name {
			return true
		}
	}
	return false
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cdpPage is a tab of the shared browser driven over its DevTools socket,
// outside bua: the report is a page a person opens, not one bua drives.
type cdpPage struct {
	t       *testing.T
	c       *harness.CDP
	session string
}

// browserPage opens url in a new tab of the managed browser; the tab
// closes when the test ends.
func browserPage(t *testing.T, url string) *cdpPage {
	t.Helper()
	c, err := harness.DialCDP(devToolsURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := c.Call("", "Target.createTarget", map[string]any{"url": url})
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ TargetID string }
	json.Unmarshal(res, &created)
	t.Cleanup(func() { c.Call("", "Target.closeTarget", map[string]any{"targetId": created.TargetID}) })
	sess, err := c.Attach(created.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	return &cdpPage{t: t, c: c, session: sess}
}

// eval evaluates expr in the page (awaited, by value).
func (p *cdpPage) eval(expr string) any {
	p.t.Helper()
	res, err := p.c.Call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		p.t.Fatal(err)
	}
	var r struct {
		Result           struct{ Value any }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	json.Unmarshal(res, &r)
	if r.ExceptionDetails != nil {
		p.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	return r.Result.Value
}

// png lays the page out at width×height CSS px (scale 1) and captures it.
func (p *cdpPage) png(width, height int) []byte {
	p.t.Helper()
	if _, err := p.c.Call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}); err != nil {
		p.t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // one frame at the new size
	res, err := p.c.Call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		p.t.Fatal(err)
	}
	var shot struct{ Data string }
	json.Unmarshal(res, &shot)
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(data) == 0 {
		p.t.Fatalf("screenshot: %v (%d bytes)", err, len(data))
	}
	return data
}

// TestReport_SameNameFlows: `bua run a.yaml b.yaml`, two files with one
// name: (a copied flow) that both fail, each on a page of its own, in the
// real browser. Each keeps its evidence in a folder named after its file
// (artifacts/a, artifacts/b), where the second used to replace the
// first's; each flow's reports point at its own; the summary names each
// by its file.
func TestReport_SameNameFlows(t *testing.T) {
	dir := t.TempDir()
	pages := map[string]string{"a": "form.html", "b": "input.html"}
	for file, page := range pages {
		flow := "name: Copied flow\nsteps:\n  - navigate: " + siteURL(page) + "\n  - extract: {}\n    as: page\n" +
			"  - name: title check\n    assert: page.title == \"never\"\n"
		if err := os.WriteFile(filepath.Join(dir, file+".yaml"), []byte(flow), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := harness.Cmd{Bin: buaBin, Env: buaEnv, Dir: dir}.Run(ctx, "run", "a.yaml", "b.yaml",
		"--artifacts", "art", "--report", "json=report.json", "--report", "html=report.html")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1 (both fail)\n%s", r.Code, r.Output())
	}
	for _, want := range []string{"Copied flow (a.yaml)", "Copied flow (b.yaml)"} {
		wantContains(t, "the summary", r.Stdout, want)
	}
	var rep flowReport
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Flows) != 2 {
		t.Fatalf("report.json: %v, %d flows\n%s", err, len(rep.Flows), data)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for i, file := range []string{"a", "b"} {
		f := rep.Flows[i]
		failed := f.Steps[len(f.Steps)-1]
		bundle := filepath.Join("art", file, "3-title-check")
		if f.File != file+".yaml" || len(failed.Artifacts) != 7 {
			t.Fatalf("flow %d: file %s, %d artifacts %v: want %s.yaml's seven\n%s", i, f.File, len(failed.Artifacts), failed.Artifacts, file, r.Output())
		}
		for _, a := range failed.Artifacts {
			if filepath.Dir(a) != bundle {
				t.Errorf("%s.yaml: artifact %s is outside %s", file, a, bundle)
			}
			if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
				t.Errorf("%s.yaml: %v", file, err)
			}
			wantContains(t, "report.html", string(html), "<li>"+filepath.ToSlash(a)+"</li>")
		}
		// Its own page, not the other flow's: the second run no longer
		// replaces the first's files.
		var elements struct{ URL string }
		b, err := os.ReadFile(filepath.Join(dir, bundle, "elements.json"))
		if err != nil || json.Unmarshal(b, &elements) != nil || elements.URL != siteURL(pages[file]) {
			t.Errorf("%s: elements.json url %q (%v), want %s", bundle, elements.URL, err, siteURL(pages[file]))
		}
		var steps []struct{ File string }
		b, _ = os.ReadFile(filepath.Join(dir, bundle, "steps.json"))
		if json.Unmarshal(b, &steps) != nil || len(steps) != 3 || steps[0].File != file+".yaml" {
			t.Errorf("%s: steps.json %s, want %s.yaml's three steps", bundle, b, file)
		}
	}
}
