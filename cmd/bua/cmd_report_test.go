package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// shardCheckout runs the three shards of a three-flow suite as three CI
// jobs of docs/ci.md's workflow do (`bua run flows/ --shard I/3 --report
// json=report-I.json --artifacts art-I`, in a checkout) on a fake browser,
// then lays out each job's upload as download-artifact does, in
// shards/bua-shard-I/. It changes into the checkout and returns it.
func shardCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("flows", 0o755)
	writeFlow(t, "flows", "a_home.yaml", "name: Home\nsteps:\n  - navigate: http://shop.test/\n")
	writeFlow(t, "flows", "b_pay.yaml", "name: Pay\nsteps:\n  - extract: {}\n  - name: paid\n    assert: last.title == \"Paid\"\n    message: the title is ${{ last.title }}\n")
	writeFlow(t, "flows", "c_help.yaml", "name: Help\nsteps:\n  - navigate: http://shop.test/help\n")
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(protocol.ExtractResult{Title: "Payment failed", Markdown: "# Payment failed"})).
		On(protocol.ActionScreenshot, runnertest.Result(protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/4AAQ"}))
	fakeDial := dialFake(fake, nil)
	for i := 1; i <= 3; i++ {
		env, out, errb := testEnv()
		env.Dial = fakeDial
		code := run(context.Background(), []string{"bua", "run", "flows/", "--shard", fmt.Sprintf("%d/3", i),
			"--report", fmt.Sprintf("json=report-%d.json", i), "--artifacts", fmt.Sprintf("art-%d", i)}, env)
		if want := map[int]int{1: 0, 2: 1, 3: 0}[i]; code != want {
			t.Fatalf("shard %d/3: exit %d, want %d\n%s%s", i, code, want, out, errb)
		}
		up := filepath.Join("shards", fmt.Sprintf("bua-shard-%d", i))
		os.MkdirAll(up, 0o755)
		for _, name := range []string{fmt.Sprintf("report-%d.json", i), fmt.Sprintf("art-%d", i)} {
			if err := os.Rename(name, filepath.Join(up, name)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestReportMerge: three shard reports, downloaded into folders of their
// own, merge into one JUnit, JSON and HTML report with every flow and the
// failed step's evidence found beside its shard's report; the exit code
// is the suite's.
func TestReportMerge(t *testing.T) {
	shardCheckout(t)
	r := runCLI(t, nil, "", "report", "merge", "shards/*/report-*.json",
		"-o", "junit=merged/junit.xml", "-o", "json=merged/report.json", "-o", "html=merged/report.html")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a flow failed)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"merged 3 reports (shards 1/3, 2/3, 3/3)\n", "Pay\tfailed\t", "2 passed, 1 failed, 0 skipped in ", "(exit 1)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr: %s", r.stderr)
	}

	var junit struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	x, _ := os.ReadFile("merged/junit.xml")
	if err := xml.Unmarshal(x, &junit); err != nil {
		t.Fatalf("junit: %v\n%s", err, x)
	}
	var cases []string
	for _, c := range junit.Suite.Cases {
		cases = append(cases, c.Name+"="+c.Classname)
	}
	if got := strings.Join(cases, " "); got != "Home=flows/a_home.yaml Pay=flows/b_pay.yaml Help=flows/c_help.yaml" || junit.Suite.Tests != 3 || junit.Suite.Failures != 1 {
		t.Errorf("junit cases %s (tests %d, failures %d), want the three flows sorted and 1 failure", got, junit.Suite.Tests, junit.Suite.Failures)
	}
	// Each attachment is a path from here to a file of shard 2's upload,
	// slash-separated on every OS (report.ReportPath).
	attached := regexp.MustCompile(`\[\[ATTACHMENT\|([^\]]+)\]\]`).FindAllStringSubmatch(junit.Suite.Cases[1].SystemOut, -1)
	if len(attached) != 7 {
		t.Errorf("%d attachments, want the bundle's 7:\n%s", len(attached), junit.Suite.Cases[1].SystemOut)
	}
	for _, a := range attached {
		if !strings.HasPrefix(a[1], "shards/bua-shard-2/art-2/") {
			t.Errorf("attachment %s is not under shard 2's download", a[1])
		} else if _, err := os.Stat(filepath.FromSlash(a[1])); err != nil {
			t.Error(err)
		}
	}

	var rep struct {
		ReportVersion int    `json:"reportVersion"`
		Status        string `json:"status"`
		Bua           string `json:"bua"`
		ExitCode      int    `json:"exitCode"`
		WorkDir       string `json:"workDir"`
		Shards        []struct {
			Report, Shard, Bua string
			Flows              int
		} `json:"shards"`
		Flows []struct {
			Name, Shard string
		} `json:"flows"`
	}
	b, _ := os.ReadFile("merged/report.json")
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ReportVersion != 1 || rep.Status != "failed" || rep.ExitCode != 1 || rep.WorkDir != ".." || rep.Bua != version || len(rep.Shards) != 3 || len(rep.Flows) != 3 ||
		rep.Shards[1].Report != "shards/bua-shard-2/report-2.json" || rep.Shards[1].Bua != version || rep.Flows[1].Shard != "2/3" {
		t.Errorf("merged json: %+v", rep)
	}

	page, _ := os.ReadFile("merged/report.html")
	for _, want := range []string{`<details class="flow failed" open>`, `src="data:image/jpeg;base64,/9j/4AAQ"`, `<span class="shard">shard 2/3</span>`, "merged from 3 reports"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("html lacks %s", want)
		}
	}
	if n := strings.Count(string(page), `<details class="flow `); n != 3 {
		t.Errorf("html shows %d flows, want 3", n)
	}

	// The merged report merges again, from where it was written.
	r = runCLI(t, nil, "", "report", "merge", "--json", "merged/report.json")
	if r.code != 1 || r.stderr != "" || !strings.Contains(r.stdout, `"shard": "2/3"`) {
		t.Errorf("merging the merged report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestReportMerge_Inputs: what bua report merge says and how it exits for
// inputs that do not make one suite or are not reports at all. Each bad
// input is named, with a hint; nothing is written.
func TestReportMerge_Inputs(t *testing.T) {
	shardCheckout(t)
	os.WriteFile("junit.xml", []byte("<?xml version=\"1.0\"?>\n<testsuites></testsuites>\n"), 0o644)
	os.WriteFile("broken.json", []byte("{\n  \"reportVersion\": 1,\n  \"flows\": [}\n"), 0o644)
	old, _ := os.ReadFile("shards/bua-shard-3/report-3.json")
	os.WriteFile("old-bua.json", []byte(strings.Replace(string(old), `"bua": "`+version+`"`, `"bua": "0.0.9"`, 1)), 0o644)
	s1, s2, s3 := "shards/bua-shard-1/report-1.json", "shards/bua-shard-2/report-2.json", "shards/bua-shard-3/report-3.json"
	// Messages name files as the person does: the inputs as given, the
	// rest with the OS's separator, whatever the report holds.
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"NoInput", nil, 2, []string{"bua: no report given"}},
		{"Missing", []string{s1, "nope.json"}, 2, []string{"bua: nope.json: cannot read: " + notFoundReason(t, "nope.json") + "\nhint: check the path;"}},
		{"EveryBadInputNamed", []string{"junit.xml", s1, "broken.json"}, 2, []string{
			"bua: junit.xml:1:1: not valid JSON: invalid character '<' looking for beginning of value\nhint: give the JSON reports that `bua run --report json=FILE` writes (one per shard); a JUnit or HTML report cannot be merged\n",
			"bua: broken.json:3:13: not valid JSON: invalid character '}' looking for beginning of value\n"}},
		{"NoMatch", []string{"shards/*/nothing-*.json"}, 2, []string{`bua: no report matches "shards/*/nothing-*.json"`}},
		{"Folder", []string{"shards"}, 2, []string{"bua: shards is a folder: give the report files in it (" + filepath.Join("shards", "*.json") + ")"}},
		{"BadKind", []string{s1, "--report", "pdf=x.pdf"}, 2, []string{`bua: --report "pdf=x.pdf": want junit=FILE, json=FILE or html=FILE`}},
		{"Overlap", []string{s1, s2, s3, "old-bua.json"}, 2, []string{
			`bua: old-bua.json: flow "Help" (` + filepath.FromSlash("flows/c_help.yaml") + `) is also in ` + s3 + ": the shards overlap\nhint: give each shard's report once, and run every job with the same N and its own I (--shard I/N); --allow-duplicates keeps both runs\n"}},
		{"OverlapAllowed", []string{s1, s2, s3, "old-bua.json", "--allow-duplicates"}, 1, []string{
			"bua: warning: the shards ran different bua versions: " + version + " (" + s1 + ", " + s2 + ", " + s3 + "), 0.0.9 (old-bua.json); install one version in every job so that the flows run alike\n"}},
		{"SameFileTwice", []string{s1, s2, s3, "shards/*/report-3.json"}, 1, nil},
		{"ShardMissing", []string{s1, s3}, 2, []string{"bua: shard 2/3: no report among the inputs, so its flows are not in the merged report"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll("out")
			r := runCLI(t, nil, "", append([]string{"report", "merge", "--report", "json=out/merged.json"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if tc.stderr == nil && r.stderr != "" {
				t.Errorf("stderr: %s", r.stderr)
			}
			_, err := os.Stat("out/merged.json")
			if written := err == nil; written != (tc.code != 2 || tc.name == "ShardMissing") {
				t.Errorf("merged report written: %v", written)
			}
		})
	}
	r := runCLI(t, nil, "", "report", "merge", s1, s3)
	if !strings.Contains(r.stdout, "2 passed, 0 failed, 0 skipped in ") || !strings.Contains(r.stdout, ", shard 2/3 missing (exit 2)") {
		t.Errorf("summary of a merge that lacks a shard:\n%s", r.stdout)
	}
}

// TestCommandGroups: a command made of subcommands (report, browser,
// extension) answers an unknown subcommand as a usage error, exit 2 (not
// urfave/cli's help exit 3, which bua reserves for blocked), and alone
// prints its help.
func TestCommandGroups(t *testing.T) {
	groups := 0
	for _, cmd := range newApp(&Env{}, nil).Commands {
		if len(cmd.Subcommands) == 0 {
			continue
		}
		groups++
		if r := runCLI(t, nil, "", cmd.Name, "bogus"); r.code != 2 || r.stderr != `bua: unknown command "bogus": see `+"`bua "+cmd.Name+" --help`\n" {
			t.Errorf("bua %s bogus: exit %d, stderr %q", cmd.Name, r.code, r.stderr)
		}
		if r := runCLI(t, nil, "", cmd.Name); r.code != 0 || !strings.Contains(r.stdout, "COMMANDS:") {
			t.Errorf("bua %s: exit %d\n%s", cmd.Name, r.code, r.stdout)
		}
	}
	if groups < 3 {
		t.Errorf("%d commands with subcommands, want report, browser and extension at least", groups)
	}
}
