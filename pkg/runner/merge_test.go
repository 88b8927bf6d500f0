package runner

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// reportsDir holds three shard reports as CI jobs upload them (each
// shard-I/ a job's report-I.json and its art-I/ artifacts), written by
// this package from real runs on a fake browser (go test ./pkg/runner
// -run TestMerge_Golden -update rewrites them), and the goldens of their
// merge. They are also the reports of format version 1 that every later
// bua must still merge.
var reportsDir = filepath.Join("testdata", "reports")

// shardFlows is the suite the shards split: with --shard I/3 of the sorted
// files, shard 1 runs a_login and d_search, shard 2 b_cart and e_broken,
// shard 3 c_checkout and f_profile.
var shardFlows = map[string]string{
	"a_login.yaml": "name: Login\ntags: [smoke]\nsteps:\n  - navigate: http://shop.test/login\n  - click: \"#sign-in\"\n",
	// Passes on its rerun (--retries 1): the cache is cold the first time.
	"b_cart.yaml": "name: Cart\nsteps:\n  - evaluate: return cache\n  - assert: last == \"warm\"\n    message: the cache is ${{ last }}\n",
	// Fails every run, with evidence: a screenshot, the page, the console
	// error and the 500 its page made, the value the assert read.
	"c_checkout.yaml": "name: Checkout\nvars: { password: s3cret-pw }\nsecrets: [password]\nsteps:\n  - navigate: http://shop.test/cart\n" +
		"  - type: { selector: \"#pw\", text: \"${{ vars.password }}\" }\n  - extract: {}\n    as: page\n" +
		"  - name: order confirmed\n    assert: page.title == \"Order confirmed\"\n    message: the page says ${{ page.title }}\n",
	// A flaky step: its wait times out once, then passes on its retry.
	"d_search.yaml": "name: Search\nsteps:\n  - name: wait for results\n    wait_for: { selector: \"#results\", timeoutMs: 1000 }\n    retry: { attempts: 3, on: [timeout] }\n",
	"e_broken.yaml": "name: Broken\nsteps:\n  - clik: \"#x\"\n",
	// Nested steps (depth 1) that pass.
	"f_profile.yaml": "name: Profile\nsteps:\n  - if: \"true\"\n    then:\n      - log: nested\n      - navigate: http://shop.test/profile\n",
}

// mergeClock is a fake clock: every reading moves 125 ms on; peek reads
// it without moving it.
type mergeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *mergeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(125 * time.Millisecond)
	return c.t
}

func (c *mergeClock) peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// writeShardReports runs the three shards of shardFlows as three CI jobs
// would (each in the checkout, --shard I/3 --retries 1 --artifacts art-I
// --report json=report-I.json) and copies each job's upload into
// reportsDir/shard-I/.
func writeShardReports(t *testing.T) {
	out, err := filepath.Abs(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		os.RemoveAll(filepath.Join(out, fmt.Sprintf("shard-%d", i)))
	}
	checkout := t.TempDir()
	t.Chdir(checkout)
	os.Mkdir("flows", 0o755)
	var files []string
	for name, src := range shardFlows {
		writeFile(t, filepath.Join("flows", name), src)
		files = append(files, "flows/"+name)
	}
	for i := 1; i <= 3; i++ {
		// The jobs start 2 s apart; shard 3 ends last.
		clock := &mergeClock{t: time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC).Add(time.Duration(i-1) * 2 * time.Second)}
		trace := func(context.Context, protocol.Action) (any, *protocol.Error) {
			at := float64(clock.peek().UnixMilli())
			return protocol.TraceResult{NextSeq: 3, Events: []protocol.TraceEvent{
				{Seq: 1, T: at - 100, Kind: protocol.TraceConsole, Level: "error", Text: "payment failed for s3cret-pw"},
				{Seq: 2, T: at - 50, Kind: protocol.TraceRequest, Method: "POST", URL: "http://shop.test/api/pay", Status: 500},
			}}, nil
		}
		page := runnertest.Page("button", "Pay")
		page.Title, page.URL, page.Markdown = "Payment failed", "http://shop.test/pay", "# Payment failed"
		fake := runnertest.New().
			On(protocol.ActionExtract, runnertest.Result(page)).
			On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQSkZJRg=="})).
			On(protocol.ActionGetTrace, trace).
			On(protocol.ActionEvaluate, runnertest.Sequence(runnertest.Result("cold"), runnertest.Result("warm"))).
			On(protocol.ActionWaitFor, runnertest.Sequence(runnertest.Fail(protocol.CodeTimeout, "#results did not appear within 1000ms"), runnertest.Result(map[string]any{"ok": true})))
		art := fmt.Sprintf("art-%d", i)
		r := &Runner{Requester: fake, Now: clock.now, Retries: 1, Artifacts: art}
		s := r.RunSuite(context.Background(), report.Shard(files, i, 3))
		s.Bua, s.Host, s.Shard, s.WorkDir = "0.1.0", fmt.Sprintf("ci-%d", i), fmt.Sprintf("%d/3", i), "."
		s.ExitCode = testExit
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, fmt.Sprintf("report-%d.json", i)), b.String())
		if err := os.CopyFS(filepath.Join(dst, art), os.DirFS(art)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// testExit is the CLI's exit codes (cmd/bua statusExits), which this
// package does not import.
func testExit(st report.Status) int {
	return map[report.Status]int{report.StatusFailed: 1, report.StatusBlocked: 3, report.StatusUnavailable: 4, report.StatusInvalid: 2, report.StatusInterrupted: 130}[st]
}

// readShards reads reportsDir/shard-I/report-I.json for each i.
func readShards(t *testing.T, shards ...int) []*report.SuiteReport {
	t.Helper()
	var out []*report.SuiteReport
	for _, i := range shards {
		s, warnings, err := report.ReadJSONFile(filepath.Join(reportsDir, fmt.Sprintf("shard-%d", i), fmt.Sprintf("report-%d.json", i)))
		if err != nil || len(warnings) > 0 {
			t.Fatalf("shard %d: %v %q", i, err, warnings)
		}
		out = append(out, s)
	}
	return out
}

// TestMerge_Golden merges the three shard reports (in the order 3, 1, 2,
// as a shell glob need not sort them) into one JSON and JUnit report and
// compares them with reportsDir/merged.json and merged.junit.xml. Every
// flow is there, sorted by file, with its shard; totals are recomputed;
// the flaky rerun, the flaky step and the failed runs keep their
// attempts; the failed step's console error and artifacts, read back from
// the shard's upload, are in JUnit.
func TestMerge_Golden(t *testing.T) {
	if *update {
		t.Run("WriteShards", writeShardReports) // in a checkout of its own
	}
	m, warnings, err := report.Merge(readShards(t, 3, 1, 2), report.MergeOptions{})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Merge: %v %q", err, warnings)
	}
	m.ExitCode = testExit

	var order []string
	for _, f := range m.Flows {
		order = append(order, report.ReportPath(f.File)+"@"+f.Shard)
	}
	if got, want := strings.Join(order, " "), "flows/a_login.yaml@1/3 flows/b_cart.yaml@2/3 flows/c_checkout.yaml@3/3 flows/d_search.yaml@1/3 flows/e_broken.yaml@2/3 flows/f_profile.yaml@3/3"; got != want {
		t.Errorf("flows %s, want %s", got, want)
	}
	if got, want := m.SummaryLine(), "4 passed (2 flaky), 2 failed, 0 skipped in 7.6s"; got != want {
		t.Errorf("SummaryLine = %q, want %q", got, want)
	}
	if m.Status() != report.StatusInvalid || m.Exit() != 2 || len(m.Problems) != 0 || len(m.MissingShards) != 0 {
		t.Errorf("status %s exit %d problems %q missing %q, want invalid, 2 (e_broken) and none", m.Status(), m.Exit(), m.Problems, m.MissingShards)
	}
	if len(m.Shards) != 3 || m.Shards[0].Shard != "1/3" || m.Shards[2].Host != "ci-3" || m.Shards[2].Flows != 2 {
		t.Errorf("shards %+v, want the three inputs by shard", m.Shards)
	}
	cart, checkout := m.Flows[1], m.Flows[2]
	if !cart.Flaky || cart.Attempts != 2 || len(cart.FailedAttempts) != 1 || !m.Flows[3].Flaky || !m.Flows[3].Steps[0].Flaky {
		t.Errorf("flaky marks lost: cart %+v, search %+v", cart, m.Flows[3])
	}
	if checkout.Attempts != 2 || len(checkout.FailedAttempts) != 1 || checkout.Reason == "" {
		t.Errorf("checkout attempts %d, failed %d, reason %q", checkout.Attempts, len(checkout.FailedAttempts), checkout.Reason)
	}
	if m.Flows[5].Steps[1].Depth != 1 {
		t.Errorf("nested step depth %d, want 1", m.Flows[5].Steps[1].Depth)
	}

	var junit bytes.Buffer
	if err := m.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Cases    []struct {
				Name      string     `xml:"name,attr"`
				Flaky     []struct{} `xml:"flakyFailure"`
				Rerun     []struct{} `xml:"rerunFailure"`
				SystemOut string     `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, c := range parsed.Suites[0].Cases {
		cases = append(cases, fmt.Sprintf("%s(%d flaky, %d reruns)", c.Name, len(c.Flaky), len(c.Rerun)))
	}
	if got, want := strings.Join(cases, " "), "Login(0 flaky, 0 reruns) Cart(1 flaky, 0 reruns) Checkout(0 flaky, 1 reruns) Search(1 flaky, 0 reruns) e_broken(0 flaky, 0 reruns) Profile(0 flaky, 0 reruns)"; got != want {
		t.Errorf("junit cases %s, want %s", got, want)
	}
	if s := parsed.Suites[0]; s.Tests != 6 || s.Failures != 1 || s.Errors != 1 {
		t.Errorf("junit totals tests=%d failures=%d errors=%d, want 6, 1, 1", s.Tests, s.Failures, s.Errors)
	}
	out := parsed.Suites[0].Cases[2].SystemOut
	for _, want := range []string{"console error: payment failed for ***", "failed request: POST http://shop.test/api/pay 500",
		"[[ATTACHMENT|" + filepath.ToSlash(filepath.Join(reportsDir, "shard-3", "art-3", "attempt-2", "checkout", "4-order-confirmed", "screenshot.jpg")) + "]]"} {
		if !strings.Contains(out, want) {
			t.Errorf("checkout's system-out lacks %q:\n%s", want, out)
		}
	}

	var js bytes.Buffer
	if err := m.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{"merged.json": js.Bytes(), "merged.junit.xml": junit.Bytes()} {
		path := filepath.Join(reportsDir, name)
		if *update {
			writeFile(t, path, string(got))
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./pkg/runner -run TestMerge_Golden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden (go test ./pkg/runner -run TestMerge_Golden -update):\n%s", name, got)
		}
	}
}

// TestMerge_RoundTrip: one shard's report read back writes the same JSON
// and JUnit as the run wrote, and a merged report merged again (with the
// shard it was missing) is the merge of all three: nothing is lost on
// the way.
func TestMerge_RoundTrip(t *testing.T) {
	// The shards, and the folder a merged report is written to below, on
	// one volume, as a CI job's checkout and its output are: from one
	// Windows drive to another (a checkout on D:, the temp dir on C:)
	// there is no relative path, and so no workDir to record.
	checkout := t.TempDir()
	if err := os.CopyFS(filepath.Join(checkout, reportsDir), os.DirFS(reportsDir)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(checkout)
	for i, s := range readShards(t, 1, 2, 3) {
		var js bytes.Buffer
		s.ExitCode, s.WorkDir = testExit, "."
		if err := s.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(reportsDir, fmt.Sprintf("shard-%d", i+1), fmt.Sprintf("report-%d.json", i+1))
		want, _ := os.ReadFile(path)
		// Artifact paths now start at the report's folder, as the merge
		// sees them.
		got := strings.ReplaceAll(js.String(), filepath.ToSlash(filepath.Dir(path))+"/", "")
		if got != string(want) {
			t.Errorf("%s read and written again differs:\n%s", path, firstDiff(got, string(want)))
		}
	}

	first, _, err := report.Merge(readShards(t, 1, 2), report.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(first.MissingShards, " ") != "3/3" || !strings.HasSuffix(first.SummaryLine(), ", shard 3/3 missing") {
		t.Errorf("missing shards %q (%s), want 3/3", first.MissingShards, first.SummaryLine())
	}
	first.ExitCode = testExit
	if first.Exit() != 2 {
		t.Errorf("a merge that lacks a shard exits %d, want 2", first.Exit())
	}
	// Written elsewhere, as `bua report merge -o json=DIR/partial.json`
	// writes it: its workDir leads back here, where the artifacts are.
	dir := t.TempDir()
	wd, _ := os.Getwd()
	first.WorkDir, _ = filepath.Rel(dir, wd)
	var b bytes.Buffer
	if err := first.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	partial, _ := filepath.Rel(wd, filepath.Join(dir, "partial.json"))
	writeFile(t, partial, b.String())
	again, warnings, err := report.ReadJSONFile(partial)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %q", err, warnings)
	}
	if strings.Join(again.MissingShards, " ") != "3/3" {
		t.Errorf("read back, missing shards %q, want 3/3", again.MissingShards)
	}
	all, _, err := report.Merge(append([]*report.SuiteReport{again}, readShards(t, 3)...), report.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	direct, _, _ := report.Merge(readShards(t, 1, 2, 3), report.MergeOptions{})
	for _, w := range []func(*report.SuiteReport, *bytes.Buffer) error{
		func(s *report.SuiteReport, b *bytes.Buffer) error { return s.WriteJUnit(b) },
		func(s *report.SuiteReport, b *bytes.Buffer) error { return s.WriteJSON(b) },
	} {
		var x, y bytes.Buffer
		if err := w(all, &x); err != nil {
			t.Fatal(err)
		}
		if err := w(direct, &y); err != nil {
			t.Fatal(err)
		}
		if x.String() != y.String() {
			t.Errorf("merging a merged report again differs from one merge:\n%s", firstDiff(x.String(), y.String()))
		}
	}
	if len(all.Shards) != 3 || all.Shards[0].Shard != "1/3" || all.Shards[2].Shard != "3/3" || len(all.MissingShards) != 0 {
		t.Errorf("shards %+v missing %q, want the three inputs and none missing", all.Shards, all.MissingShards)
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

// TestMerge_Rules: what Merge does with inputs that do not make one
// suite: overlapping shards fail, naming both reports, unless
// AllowDuplicates; different bua versions warn; shard problems and
// interruptions carry over. The error and the warning are for the person
// at the terminal, and name the inputs and the flow file as the OS does
// (the reports as they were given); a problem carried over is the merged
// report's, and names its input slash-separated (ReportPath).
func TestMerge_Rules(t *testing.T) {
	reportOf := func(i int) string {
		return filepath.Join(reportsDir, fmt.Sprintf("shard-%d", i), fmt.Sprintf("report-%d.json", i))
	}
	t.Run("Duplicate", func(t *testing.T) {
		in := readShards(t, 1, 2, 1)
		_, _, err := report.Merge(in, report.MergeOptions{})
		want := fmt.Sprintf(`%s: flow "Login" (%s) is also in %s: the shards overlap`, reportOf(1), filepath.Join("flows", "a_login.yaml"), reportOf(1))
		var re *report.ReportError
		if !errors.As(err, &re) || err.Error() != want || !strings.Contains(re.Hint, "--allow-duplicates") {
			t.Fatalf("report.Merge = %v, want %q with a hint", err, want)
		}
	})
	t.Run("DuplicateAllowed", func(t *testing.T) {
		in := readShards(t, 1, 2)
		other := readShards(t, 1)[0]
		other.Source, other.Shard, other.Host = "staging.json", "", "staging-1"
		m, _, err := report.Merge(append(in, other), report.MergeOptions{AllowDuplicates: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range m.Flows {
			got = append(got, f.Name+"@"+f.Shard)
		}
		if want := "Login@1/3 Login@ Cart@2/3 Search@1/3 Search@ e_broken@2/3"; strings.Join(got, " ") != want {
			t.Errorf("flows %s, want %s", strings.Join(got, " "), want)
		}
	})
	t.Run("Versions", func(t *testing.T) {
		in := readShards(t, 1, 2, 3)
		in[2].Bua = "0.2.0"
		_, warnings, err := report.Merge(in, report.MergeOptions{})
		want := fmt.Sprintf("the shards ran different bua versions: 0.1.0 (%s, %s), 0.2.0 (%s)", reportOf(1), reportOf(2), reportOf(3))
		if err != nil || len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("Merge: %v, warnings %q, want one starting %q", err, warnings, want)
		}
	})
	t.Run("Splits", func(t *testing.T) {
		in := readShards(t, 1, 2, 3)
		in[2].Shard = "3/4"
		m, _, err := report.Merge(in, report.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(m.MissingShards, " "); got != "3/3 1/4 2/4 4/4" {
			t.Errorf("missing shards %s, want 3/3 1/4 2/4 4/4", got)
		}
	})
	t.Run("CarriedOver", func(t *testing.T) {
		in := readShards(t, 1, 2, 3)
		in[0].Problems = []string{"junit report out/junit.xml: no space left on device"}
		in[1].Interrupted = true
		m, _, err := report.Merge(in, report.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m.ExitCode = testExit
		if len(m.Problems) != 1 || m.Problems[0] != "testdata/reports/shard-1/report-1.json: junit report out/junit.xml: no space left on device" || !m.Interrupted || m.Exit() != 130 {
			t.Errorf("problems %q, interrupted %v, exit %d; want the shard's problem named, interrupted, 130", m.Problems, m.Interrupted, m.Exit())
		}
	})
}
