package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// TestReport_MergeShards runs flows/selftest as three CI jobs would, in
// the real browser: `bua run --shard I/3 --retries 1 --report
// json=report-I.json --artifacts art-I`, each in a folder of its own. The
// reports and artifacts then move to one folder, as download-artifact
// lays them out (the run folders are deleted), and `bua report merge`
// makes one JUnit, JSON and HTML report of them. The merged JUnit has
// every flow, flaky marks kept; the HTML, opened in a tab, shows every
// flow and the screenshots of both failed steps, read from the moved
// artifacts.
func TestReport_MergeShards(t *testing.T) {
	root := t.TempDir()
	flows, err := filepath.Abs(filepath.Join("..", "flows", "selftest"))
	if err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(root, "shards")
	if err := os.MkdirAll(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	// Three selftest files, sorted: checkout-evidence, expected-failure,
	// flaky (the folder holds sub-flows too, which run only from a caller).
	var files []string
	for _, name := range []string{"checkout-evidence.yaml", "expected-failure.yaml", "flaky.yaml"} {
		files = append(files, filepath.Join(flows, name))
	}
	for i, want := range []int{1, 1, 0} {
		n := i + 1
		dir := filepath.Join(root, fmt.Sprintf("run-%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		r := harness.Cmd{Bin: buaBin, Env: buaEnv, Dir: dir}.Run(ctx, append(append([]string{"run"}, files...), "--shard", fmt.Sprintf("%d/3", n), "--retries", "1",
			"--report", fmt.Sprintf("json=report-%d.json", n), "--artifacts", fmt.Sprintf("art-%d", n))...)
		cancel()
		if r.Code != want {
			t.Fatalf("shard %d/3: exit %d, want %d\n%s", n, r.Code, want, r.Output())
		}
		for _, name := range []string{fmt.Sprintf("report-%d.json", n), fmt.Sprintf("art-%d", n)} {
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(shards, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := harness.Cmd{Bin: buaBin, Env: buaEnv, Dir: root}.Run(ctx, "report", "merge", "shards/report-*.json",
		"--report", "junit=merged/junit.xml", "--report", "json=merged/report.json", "--report", "html=merged/report.html")
	if r.Code != 1 || r.Stderr != "" {
		t.Fatalf("bua report merge: exit %d, want 1 (two flows fail)\n%s", r.Code, r.Output())
	}
	wantContains(t, "merge output", r.Stdout, "merged 3 reports (shards 1/3, 2/3, 3/3)")
	wantContains(t, "merge output", r.Stdout, "1 passed (1 flaky), 2 failed, 0 skipped in ")

	var junit struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name      string     `xml:"name,attr"`
				Failure   *struct{}  `xml:"failure"`
				Flaky     []struct{} `xml:"flakyFailure"`
				Reruns    []struct{} `xml:"rerunFailure"`
				SystemOut string     `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	x, err := os.ReadFile(filepath.Join(root, "merged", "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(x, &junit); err != nil {
		t.Fatalf("merged junit: %v\n%s", err, x)
	}
	var cases []string
	for _, c := range junit.Suite.Cases {
		cases = append(cases, fmt.Sprintf("%s(failed %v, %d flaky, %d reruns)", c.Name, c.Failure != nil, len(c.Flaky), len(c.Reruns)))
	}
	if got, want := strings.Join(cases, " "), "Checkout evidence(failed true, 0 flaky, 1 reruns) Expected failure(failed true, 0 flaky, 1 reruns) Flaky fixture(failed false, 1 flaky, 0 reruns)"; got != want || junit.Suite.Tests != 3 || junit.Suite.Failures != 2 {
		t.Errorf("merged junit cases %s (tests %d, failures %d), want %s", got, junit.Suite.Tests, junit.Suite.Failures, want)
	}
	attached := regexp.MustCompile(`\[\[ATTACHMENT\|([^\]]+)\]\]`).FindAllStringSubmatch(junit.Suite.Cases[0].SystemOut, -1)
	if len(attached) != 7 {
		t.Errorf("checkout evidence has %d attachments, want its bundle's 7:\n%s", len(attached), junit.Suite.Cases[0].SystemOut)
	}
	for _, a := range attached {
		if !strings.HasPrefix(a[1], filepath.Join("shards", "art-1")+string(filepath.Separator)) {
			t.Errorf("attachment %s: want a path under shards/art-1, from where the merge ran", a[1])
		} else if _, err := os.Stat(filepath.Join(root, a[1])); err != nil {
			t.Error(err)
		}
	}

	var rep struct {
		Status string `json:"status"`
		Shards []struct {
			Shard, Host string
			Flows       int
		} `json:"shards"`
		Flows []struct {
			Name, Shard string
			Flaky       bool
		} `json:"flows"`
	}
	b, _ := os.ReadFile(filepath.Join(root, "merged", "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if rep.Status != "failed" || len(rep.Shards) != 3 || rep.Shards[2].Host != host || rep.Shards[2].Flows != 1 || len(rep.Flows) != 3 || rep.Flows[2].Shard != "3/3" || !rep.Flows[2].Flaky {
		t.Errorf("merged json: %+v", rep)
	}

	page, err := os.ReadFile(filepath.Join(root, "merged", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<details class="flow `); n != 3 {
		t.Errorf("the merged page shows %d flows, want 3", n)
	}
	if strings.Contains(string(page), secret) {
		t.Error("the merged page shows checkout-evidence's password")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(root, "merged"))))
	defer srv.Close()
	tab := browserPage(t, srv.URL+"/report.html")
	waitFor(t, tab.eval, "the merged report loads", `location.pathname === "/report.html" && document.readyState === "complete" && [...document.images].every((i) => i.complete)`)
	shown := tab.eval(`JSON.stringify([...document.querySelectorAll("details.flow > summary")].map((s) => s.querySelector(".name").textContent + "@" + s.querySelector(".shard")?.textContent))`)
	if want := `["Checkout evidence@shard 1/3","Expected failure@shard 2/3","Flaky fixture@shard 3/3"]`; shown != want {
		t.Errorf("the page shows the flows %v, want %s", shown, want)
	}
	for _, c := range []struct{ what, expr string }{
		{"both failed steps' screenshots loaded", `[...document.querySelectorAll("details.flow.failed[open] img.screenshot")].filter((i) => i.naturalWidth > 100).length === 2`},
		{"the flaky flow is marked", `document.querySelector("details.flow.passed .badge.flaky") !== null`},
		{"the console error read from shard 1's trace", `[...document.querySelectorAll("ol.console li.err")].some((li) => li.textContent.includes("payment service: 404"))`},
		{"the three shards in the header", `document.querySelectorAll("header ul.shards li").length === 3`},
	} {
		if got := tab.eval(c.expr); got != true {
			t.Errorf("%s: %s is %v", c.what, c.expr, got)
		}
	}
}
