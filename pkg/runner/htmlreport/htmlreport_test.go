package htmlreport_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner"
	"github.com/bua-dev/bua/pkg/runner/htmlreport"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden.html")

// base is the fake clock's start: every reading of it moves 125 ms on, so
// times and durations are the same on every run.
var base = time.Date(2025, 3, 14, 3, 0, 0, 0, time.UTC)

func clock() func() time.Time {
	var mu sync.Mutex
	t := base
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(125 * time.Millisecond)
		return t
	}
}

// suite runs three flows on a fake browser: one passes after a retried
// click, one fails an assert on a page that logged errors (one of them
// with markup and the flow's secret in it) and had requests fail, one is
// invalid.
func suite(t *testing.T) (*runner.SuiteReport, string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"checkout.yaml": `
name: Checkout
vars: { password: s3cret-pw }
secrets: [password]
steps:
  - navigate: http://shop.test/cart
  - type: { selector: "#pw", text: "${{ vars.password }}" }
  - extract: {}
    as: page
  - name: order confirmed
    assert: page.title == "Order confirmed"
    message: the page says ${{ page.title }}
`,
		"search.yaml": `
name: Search
steps:
  - navigate: http://shop.test/
  - click: "#search"
    retry: { attempts: 3, delay: 1ms, on: [timeout] }
`,
		"broken.yaml": "name: broken\nsteps:\n  - bogus: 1\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := float64(base.Add(250 * time.Millisecond).UnixMilli()) // the first flow's start: the clock's second reading
	page := runnertest.Page("button", "Pay", "link", "Back to cart")
	page.Title, page.URL, page.Markdown = "Payment failed", "http://shop.test/pay", "# Payment failed"
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(page)).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQSkZJRg=="})).
		On(protocol.ActionClick, runnertest.Sequence(runnertest.Fail(protocol.CodeTimeout, "covered"), runnertest.Result(map[string]any{"ok": true}))).
		On(protocol.ActionGetTrace, runnertest.Result(protocol.TraceResult{NextSeq: 7, Events: []protocol.TraceEvent{
			{Seq: 1, T: start + 40, Kind: protocol.TraceNavigate, URL: "http://shop.test/cart"},
			{Seq: 2, T: start + 90, Kind: protocol.TraceConsole, Level: "log", Text: "cart loaded"},
			{Seq: 3, T: start + 120, Kind: protocol.TraceConsole, Level: "error", Text: `payment <script>alert("x")</script> failed for s3cret-pw`},
			{Seq: 4, T: start + 130, Kind: protocol.TraceException, Text: "TypeError: total is undefined", URL: "http://shop.test/app.js"},
			{Seq: 5, T: start + 150, Kind: protocol.TraceRequest, Method: "POST", URL: "http://shop.test/api/pay", Status: 500},
			{Seq: 6, T: start + 160, Kind: protocol.TraceRequest, Method: "GET", URL: "http://shop.test/missing.png", Status: 404},
			{Seq: 7, T: start + 170, Kind: protocol.TraceRequest, Method: "GET", URL: "http://cdn.test/x.js", ErrorText: "net::ERR_NAME_NOT_RESOLVED"},
		}}))
	r := &runner.Runner{Requester: fake, Now: clock(), Evidence: true, Artifacts: filepath.Join(dir, "artifacts")}
	// Run from dir, as bua run is from a project's root: the evidence
	// folders are named after the flows' paths from there (artifacts/
	// checkout/...), not after the temp dir's.
	back, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(back)
	return r.RunSuite(context.Background(), []string{filepath.Join(dir, "checkout.yaml"), filepath.Join(dir, "search.yaml"), filepath.Join(dir, "broken.yaml")}), dir
}

// scrubDir replaces dir, and the / after it, with DIR/ in a page written
// in it: the page's paths are slash-separated (runner.ReportPath), in the
// messages it shows too, so only that form is scrubbed: the golden holds
// the same text on every OS, and a path left in the OS's form shows on
// Windows as a difference.
func scrubDir(s, dir string) string {
	return strings.ReplaceAll(s, filepath.ToSlash(dir)+"/", "DIR/")
}

// TestWrite_Golden: the page for a failed, a passed and an invalid flow,
// compared with testdata/report.golden.html (go test -update rewrites it;
// the temp dir's path is replaced by DIR).
func TestWrite_Golden(t *testing.T) {
	s, dir := suite(t)
	var b bytes.Buffer
	if err := htmlreport.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	got := scrubDir(b.String(), dir)
	golden := filepath.Join("testdata", "report.golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test -update rewrites it); got:\n%s", golden, got)
	}
}

// TestWrite_SelfContained: the page loads nothing from elsewhere, needs no
// script, escapes what the page under test logged and shows no secret.
func TestWrite_SelfContained(t *testing.T) {
	s, _ := suite(t)
	var b bytes.Buffer
	if err := htmlreport.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<script`),
		regexp.MustCompile(`(?i)@import|url\(|<iframe|<object|<embed`),
		regexp.MustCompile(`s3cret-pw`),
	} {
		if loc := bad.FindStringIndex(html); loc != nil {
			t.Errorf("report has %q: %s", bad, html[max(0, loc[0]-80):min(len(html), loc[1]+80)])
		}
	}
	// Every URL the page holds is a data: URL (the screenshot, and an empty
	// icon so the browser does not ask the server for /favicon.ico).
	urls := regexp.MustCompile(`(?i)\b(?:src|href|action|poster|srcset)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(html, -1)
	if len(urls) != 2 {
		t.Errorf("report has %d URLs, want 2 (the icon and the screenshot): %q", len(urls), urls)
	}
	for _, u := range urls {
		if !strings.HasPrefix(u[1], "data:") {
			t.Errorf("report loads %s: want data: URLs only", u[0])
		}
	}
	for _, want := range []string{
		`payment &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; failed for ***`, // escaped and masked
		`<img class="screenshot" src="data:image/jpeg;base64,/9j/4AAQSkZJRg=="`,
		`<tr class="err"><td>0.150s</td><td>POST</td><td>http://shop.test/api/pay</td><td>500</td></tr>`,
		`<td>GET</td><td>http://shop.test/missing.png</td><td>404</td>`,
		`net::ERR_NAME_NOT_RESOLVED`,
		`<li class="error err"><span class="at">0.120s</span>`,
		`<li class="log"><span class="at">0.090s</span> log: cart loaded</li>`,
		`<code>page.title</code></td><td><code>&#34;Payment failed&#34;</code>`,
		`<td class="num">2</td>`, // the retried click's attempts
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if n := strings.Count(html, `<details class="flow failed" open>`); n != 1 {
		t.Errorf("%d failed flows shown unfolded, want 1", n)
	}
	if !strings.Contains(html, `<details class="flow passed">`) {
		t.Error("the passed flow is not shown folded")
	}
}

// TestWrite_FromJSON: a run's JSON report read back (runner.ReadJSONFile,
// as `bua report merge` reads a shard's) gives the same page as the run
// itself: every flow, step and flaky mark from the JSON, and the failed
// step's screenshot, console, requests and values from its evidence
// bundle.
func TestWrite_FromJSON(t *testing.T) {
	s, dir := suite(t)
	var want bytes.Buffer
	if err := htmlreport.Write(&want, s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.json")
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	read, warnings, err := runner.ReadJSONFile(path)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("ReadJSONFile: %v %q", err, warnings)
	}
	var got bytes.Buffer
	if err := htmlreport.Write(&got, read); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("the page from the JSON report differs from the run's:\n%s", firstDiff(got.String(), want.String()))
	}
	if !strings.Contains(got.String(), `<img class="screenshot" src="data:image/jpeg;base64,/9j/4AAQSkZJRg=="`) {
		t.Error("the page from the JSON report has no screenshot")
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

// TestWrite_Merged: the page of three shard reports merged (the runner's
// testdata/reports, as three CI jobs uploaded them) lists every flow in
// file order with its shard, the shards in its header, and the failed
// step's screenshot read from its shard's artifacts; compared with
// testdata/merged.golden.html (go test -update rewrites it).
func TestWrite_Merged(t *testing.T) {
	var inputs []*runner.SuiteReport
	for i := 1; i <= 3; i++ {
		s, warnings, err := runner.ReadJSONFile(filepath.Join("..", "testdata", "reports", fmt.Sprintf("shard-%d", i), fmt.Sprintf("report-%d.json", i)))
		if err != nil || len(warnings) > 0 {
			t.Fatalf("shard %d: %v %q", i, err, warnings)
		}
		inputs = append(inputs, s)
	}
	m, _, err := runner.Merge(inputs, runner.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	var flows []string
	for _, m := range regexp.MustCompile(`<span class="name">([^<]*)</span> <span class="file">[^<]*</span> <span class="shard">shard (\d/3)</span>`).FindAllStringSubmatch(html, -1) {
		flows = append(flows, m[1]+"@"+m[2])
	}
	if got, want := strings.Join(flows, " "), "Login@1/3 Cart@2/3 Checkout@3/3 Search@1/3 e_broken@2/3 Profile@3/3"; got != want {
		t.Errorf("flows %s, want %s", got, want)
	}
	for _, want := range []string{
		"<li>shard 1/3 on ci-1 (bua 0.1.0): 2 flows, passed, 1.4s (../testdata/reports/shard-1/report-1.json)</li>",
		`<img class="screenshot" src="data:image/jpeg;base64,/9j/4AAQSkZJRg=="`,
		`<li class="error err"><span class="at">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	golden := filepath.Join("testdata", "merged.golden.html")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if html != string(want) {
		t.Errorf("page differs from %s (go test -update rewrites it):\n%s", golden, firstDiff(html, string(want)))
	}
}
