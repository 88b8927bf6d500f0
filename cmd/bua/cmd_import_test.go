package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const replayTestdata = "../../testdata/replay/"

// TestImportWritesFlow: bua import writes the flow file and says on stderr
// how many steps replay as recorded, each problem and each note; exit 0
// with problems, 1 with --strict (the flow still written).
func TestImportWritesFlow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "flow.yaml")
	r := runCLI(t, nil, "", "import", replayTestdata+"runner_wait_for_expression.json", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"bua import: wrote " + out + ": 2 of 3 steps replay as recorded\n",
		"  not as recorded: step 2 (click): custom-element >> button is a path through shadow roots",
		"  note: click offsets (step 2): bua clicks the element's centre",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(replayTestdata + "runner_wait_for_expression.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The golden has no command line in its header; the file has.
	cmdLine := "#   bua import " + replayTestdata + "runner_wait_for_expression.json -o " + out + "\n"
	if got := strings.Replace(string(data), cmdLine, "", 1); got != string(want) {
		t.Errorf("the file differs from the golden:\n%s", data)
	}
	checkPrivate(t, out, "a flow, written by flowwriter.Flow.WriteFile")

	os.WriteFile(out, []byte("an older flow\n"), 0o644)
	r = runCLI(t, nil, "", "import", "--strict", replayTestdata+"runner_wait_for_expression.json", "-o", out)
	if r.code != 1 {
		t.Errorf("--strict with a problem: exit %d, want 1:\n%s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "custom-element") {
		t.Errorf("--strict did not write the flow:\n%s", data)
	}
	r = runCLI(t, nil, "", "import", "--strict", replayTestdata+"spec.json", "-o", out)
	if r.code != 0 {
		t.Errorf("--strict with notes only: exit %d, want 0:\n%s", r.code, r.stderr)
	}
}

// TestImportStdoutAndJSON: without -o the flow goes to stdout; --json
// prints the report (and needs -o); --quiet says nothing when every step
// converted.
func TestImportStdoutAndJSON(t *testing.T) {
	r := runCLI(t, nil, "", "import", replayTestdata+"runner_click_buttons.json")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# Converted with bua import from runner_click_buttons.json.\n") || !strings.Contains(r.stdout, "button: forward") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "bua import: wrote standard output: 6 of 6 steps replay as recorded") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if r := runCLI(t, nil, "", "import", "--quiet", "--name", "Mouse buttons", replayTestdata+"runner_click_buttons.json"); r.stderr != "" || !strings.Contains(r.stdout, "\nname: Mouse buttons\n") {
		t.Errorf("--quiet --name: stderr %q, stdout:\n%s", r.stderr, r.stdout)
	}
	if r := runCLI(t, nil, "", "import", "--json", replayTestdata+"spec.json"); r.code != 2 || !strings.Contains(r.stderr, "give the flow a file with -o") {
		t.Errorf("--json without -o: exit %d:\n%s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "f.yaml")
	r = runCLI(t, nil, "", "import", "--json", replayTestdata+"schemautils_google.json", "-o", out)
	var rep importReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v:\n%s", r.code, err, r.stdout)
	}
	if rep.Steps != 7 || rep.Mapped != 7 || len(rep.Problems) != 0 || len(rep.Notes) != 3 || rep.Output != out {
		t.Errorf("report = %+v", rep)
	}
	r = runCLI(t, nil, "", "import", "--json", replayTestdata+"runner_custom_step.json", "-o", out)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Problems) != 3 || rep.Problems[0].Step != 1 || rep.Problems[0].Type != "customStep" {
		t.Errorf("report = %+v (%v)", rep, err)
	}
}

// TestImportBadInput: a file that is not a user flow exits 2 naming the
// file, line and column, and writes nothing; a missing file says so.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"title\": \"x\",\n  \"steps\": [\n    {\"type\": \"click\" \"selectors\": []}\n  ]\n}\n"), 0o644)
	out := filepath.Join(dir, "flow.yaml")
	r := runCLI(t, nil, "", "import", bad, "-o", out)
	if r.code != 2 || !strings.Contains(r.stderr, bad+":4:22: not JSON: invalid character") || !strings.Contains(r.stderr, "export the flow again") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a flow was written for a bad recording: %v", err)
	}
	r = runCLI(t, nil, "", "import", filepath.Join(dir, "missing.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "cannot read the recording") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, `{"title": "from stdin", "steps": [{"type": "navigate", "url": "https://example.com/"}]}`, "import", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "name: from stdin") {
		t.Errorf("stdin: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "", "import"); r.code != 2 || !strings.Contains(r.stderr, "import takes one FILE.json") {
		t.Errorf("no file: exit %d:\n%s", r.code, r.stderr)
	}
}

// TestImportDocsExample runs docs/record.md's example as the doc shows it
// (`bua import signin.json -o signin.yaml` in the recording's folder): the
// flow and the report must be the doc's, word for word.
func TestImportDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/record.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Importing a Chrome DevTools Recorder flow\n")
	if !ok {
		t.Fatal("docs/record.md has no import section")
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(section, "```"+lang+"\n")
		body, after, ok2 := strings.Cut(rest, "```\n")
		if !ok || !ok2 {
			t.Fatalf("the import section has no %s block", lang)
		}
		section = after
		return body
	}
	recording, flow, report := block("json"), block("yaml"), block("text")
	t.Chdir(t.TempDir())
	if err := os.WriteFile("signin.json", []byte(recording), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "import", "signin.json", "-o", "signin.yaml")
	if r.code != 0 || r.stderr != report {
		t.Errorf("exit %d; stderr differs from the doc's:\n--- got\n%s--- doc\n%s", r.code, r.stderr, report)
	}
	if got, _ := os.ReadFile("signin.yaml"); string(got) != flow {
		t.Errorf("the flow differs from the doc's:\n--- got\n%s--- doc\n%s", got, flow)
	}
}
