package parallel

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// report is the part of bua run's JSON report the tests read.
type report struct {
	Status string
	Flows  []struct {
		Name       string
		Status     string
		Worker     *int
		Started    time.Time
		DurationMs int64
		Steps      []struct {
			Status string
			Result struct {
				Value any
			}
			Error *struct {
				Code, Message string
			}
		}
	}
}

// runSuite writes flows (file name -> YAML) into a folder, runs them with
// bua run --parallel 3 and the args, and returns the run, its JSON report
// and its JUnit file.
func runSuite(t *testing.T, flows map[string]string, args ...string) (harness.Result, report, string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range flows {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	jsonFile, junit := filepath.Join(out, "report.json"), filepath.Join(out, "junit.xml")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"run", "--parallel", "3", "--var", "base=" + base,
		"--report", "json=" + jsonFile, "--report", "junit=" + junit, "--report", "html=" + filepath.Join(out, "report.html")}, args...)
	r := bua.Run(ctx, append(all, dir)...)
	var rep report
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatalf("no JSON report (exit %d): %v\n%s", r.Code, err, r.Output())
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return r, rep, junit
}

// TestParallel_OverlapIsolation: six flows on three workers. Each batch of
// three meets at a barrier that only opens once all three are there, so
// they ran at once; each worker sees only its own cookies (one profile
// each), and its second flow still sees the cookie its first set (the
// browser is reused across flows, not one per flow). BUA_WORKER_INDEX is
// distinct across the three at the barrier and is the report's worker.
// The reports list the flows sorted, though given reversed, and the JUnit
// file has a case for each.
func TestParallel_OverlapIsolation(t *testing.T) {
	flows := map[string]string{}
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6"}
	for i, n := range names {
		batch := "one"
		if i >= 3 {
			batch = "two"
		}
		flows[n+".yaml"] = fmt.Sprintf(`name: %s
vars: { base: "" }
steps:
  - navigate: ${{ vars.base }}/barrier?key=%s-%s&n=3
  - evaluate: "return '${{ env.BUA_WORKER_INDEX }}'"
  - evaluate: "return document.cookie"
  - evaluate: "document.cookie = 'w${{ env.BUA_WORKER_INDEX }}=%s; path=/'; return document.cookie"
`, n, t.Name(), batch, n)
	}
	r, rep, junit := runSuite(t, flows)
	if r.Code != 0 {
		t.Fatalf("bua run --parallel 3 exited %d:\n%s", r.Code, r.Output())
	}
	var got []string
	for _, f := range rep.Flows {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, names) {
		t.Fatalf("report lists %v, want %v (sorted)", got, names)
	}
	for b := 0; b < 2; b++ {
		batch := rep.Flows[3*b : 3*b+3]
		seen := map[string]bool{}
		for _, f := range batch {
			idx, _ := f.Steps[1].Result.Value.(string)
			if f.Worker == nil || strconv.Itoa(*f.Worker) != idx {
				t.Errorf("%s: env.BUA_WORKER_INDEX %q, report's worker %v", f.Name, idx, f.Worker)
			}
			seen[idx] = true
		}
		if len(seen) != 3 {
			t.Errorf("batch %d ran on workers %v: want three distinct indexes", b+1, seen)
		}
		// Overlap in the report's times too: each started before the
		// others of its batch ended.
		for _, f := range batch {
			for _, g := range batch {
				if !f.Started.Before(g.Started.Add(time.Duration(g.DurationMs) * time.Millisecond)) {
					t.Errorf("%s started after %s ended: the batch did not overlap", f.Name, g.Name)
				}
			}
		}
	}
	for i, f := range rep.Flows {
		w := strconv.Itoa(*f.Worker)
		before, _ := f.Steps[2].Result.Value.(string)
		after, _ := f.Steps[3].Result.Value.(string)
		for _, c := range append(cookies(before), cookies(after)...) {
			if c != "w"+w {
				t.Errorf("%s on worker %s sees cookie %s: another worker's", f.Name, w, c)
			}
		}
		if !slices.Contains(cookies(after), "w"+w) {
			t.Errorf("%s on worker %s: its cookie is not set: %q", f.Name, w, after)
		}
		if i >= 3 && !strings.Contains(before, "w"+w+"=") {
			t.Errorf("%s on worker %s does not see the cookie the worker's first flow set (%q): the browser was not reused", f.Name, w, before)
		}
	}
	// One summary: each flow's result as it finished, then the table.
	for _, n := range names {
		if !strings.Contains(r.Stdout, "ok "+n+" passed") {
			t.Errorf("output lacks %s's result line:\n%s", n, r.Stdout)
		}
	}
	if !strings.Contains(r.Stdout, "6 passed, 0 failed") {
		t.Errorf("output lacks the summary:\n%s", r.Stdout)
	}
	var suites struct {
		Cases []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite>testcase"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("junit: %v", err)
	}
	var cases []string
	for _, c := range suites.Cases {
		cases = append(cases, c.Name)
	}
	sort.Strings(cases)
	if !slices.Equal(cases, names) {
		t.Errorf("JUnit cases %v, want every flow %v", cases, names)
	}
}

// cookies are the names in a document.cookie string.
func cookies(s string) []string {
	var out []string
	for _, kv := range strings.Split(s, ";") {
		if name, _, _ := strings.Cut(strings.TrimSpace(kv), "="); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// TestParallel_WorkerBrowserDies: the browser of the worker running
// a_victim is killed (SIGKILL to its process group) while its navigate
// waits: that flow fails with bridge_unavailable, the other flows pass,
// and a flow the same worker takes afterwards passes on the new browser
// the daemon launches for it. The suite's exit is 4 (a flow unavailable).
func TestParallel_WorkerBrowserDies(t *testing.T) {
	flows := map[string]string{
		"a_victim.yaml": "name: a_victim\nvars: { base: \"\" }\nsteps:\n  - navigate: ${{ vars.base }}/hold?worker=${{ env.BUA_WORKER_INDEX }}\n",
	}
	for _, n := range []string{"b", "c", "d", "e", "f"} {
		flows[n+".yaml"] = "name: " + n + "\nvars: { base: \"\" }\nsteps:\n  - navigate: ${{ vars.base }}/page?delay=1500ms\n  - evaluate: \"return document.title\"\n"
	}
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case w := <-holds:
			killWorkerBrowser(t, w)
		case <-ended: // the run ended first: a failure below says why
		}
	}()
	r, rep, _ := runSuite(t, flows, "--timeout", "2m")
	if r.Code != 4 {
		t.Errorf("exit %d, want 4 (a flow unavailable):\n%s", r.Code, r.Output())
	}
	victim := rep.Flows[0]
	if victim.Name != "a_victim" || victim.Status != "unavailable" || len(victim.Steps) == 0 || victim.Steps[0].Error == nil || victim.Steps[0].Error.Code != "bridge_unavailable" {
		t.Fatalf("a_victim: %+v, want unavailable with bridge_unavailable", victim)
	}
	end := victim.Started.Add(time.Duration(victim.DurationMs) * time.Millisecond)
	after := false
	for _, f := range rep.Flows[1:] {
		if f.Status != "passed" {
			t.Errorf("%s: %s, want passed: the other flows go on", f.Name, f.Status)
		}
		if *f.Worker == *victim.Worker && f.Started.After(end) && f.Status == "passed" {
			after = true
		}
	}
	if !after {
		t.Errorf("no flow ran on worker %d after its browser died: it got no new browser\n%s", *victim.Worker, r.Output())
	}
}

// killWorkerBrowser SIGKILLs the process group of worker w's managed
// browser (managed for 0, managed-N for N), as a crash would.
func killWorkerBrowser(t *testing.T, w string) {
	name := "managed"
	if w != "0" {
		name += "-" + w
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := bua.Run(ctx, "status", "--json")
	var st struct {
		ManagedBrowsers []struct {
			Name string
			PID  int
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Errorf("bua status --json: %v\n%s", err, r.Output())
		return
	}
	for _, b := range st.ManagedBrowsers {
		if b.Name == name && b.PID > 0 {
			if err := browser.GroupOf(b.PID).Kill(); err != nil {
				t.Errorf("kill %s (pid %d): %v", name, b.PID, err)
			}
			return
		}
	}
	t.Errorf("no running %s in bua status: %s", name, r.Stdout)
}

// TestParallel_Interrupt: Ctrl-C (SIGINT) while three workers each wait
// on a page stops them all: exit 130, and the reports are written, the
// three running flows interrupted and the one never started skipped.
func TestParallel_Interrupt(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for _, n := range []string{"a", "b", "c", "d"} {
		src := "name: " + n + "\nvars: { base: \"\" }\nsteps:\n  - navigate: ${{ vars.base }}/hold?worker=${{ env.BUA_WORKER_INDEX }}\n"
		if err := os.WriteFile(filepath.Join(dir, n+".yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jsonFile := filepath.Join(out, "report.json")
	cmd := exec.Command(buaBin, "run", "--workers", "3", "--var", "base="+base, "--report", "json="+jsonFile, "--report", "junit="+filepath.Join(out, "junit.xml"), dir)
	cmd.Env = bua.Env
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case <-holds:
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("three flows never waited at once:\n%s", output.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130:\n%s", err, output.String())
	}
	var rep report
	data, rerr := os.ReadFile(jsonFile)
	if rerr != nil {
		t.Fatalf("no report after Ctrl-C: %v\n%s", rerr, output.String())
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Flows {
		got = append(got, f.Name+" "+f.Status)
	}
	if want := []string{"a interrupted", "b interrupted", "c interrupted", "d skipped"}; !slices.Equal(got, want) {
		t.Errorf("report after Ctrl-C: %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(out, "junit.xml")); err != nil {
		t.Errorf("no JUnit after Ctrl-C: %v", err)
	}
}
