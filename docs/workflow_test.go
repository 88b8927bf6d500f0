package docs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/internal/devbuild"
	"github.com/bua-dev/bua/internal/wine"
)

// workflow is .github/workflows/ci.yml, the proof on real macOS and
// Windows of what .ci/run proves on Linux (docs/platforms.md).
const workflow = "../.github/workflows/ci.yml"

// TestWorkflow_Actionlint: the workflow passes the pinned actionlint
// (tools/go.mod, installed by scripts/tools), and a copy with a mistake
// does not: a linter that finds nothing proves nothing. shellcheck and
// pyflakes are off, as they are not on every machine.
func TestWorkflow_Actionlint(t *testing.T) {
	actionlint, err := devbuild.Tool("..", "actionlint")
	if err != nil && wine.Detected() {
		t.Skip("no tools under Wine: the Linux run lints the workflow")
	}
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "ci.yml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(src), "runs-on: ${{ matrix.os }}", "runs-on: ${{ matrix.oss }}", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	lint := func(file string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, actionlint, "-oneline", "-shellcheck=", "-pyflakes=", file).CombinedOutput()
		return string(out), err
	}
	if out, err := lint(workflow); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("actionlint %s: %v\n%s", workflow, err, out)
	}
	out, err := lint(bad)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "oss") {
		t.Errorf("actionlint on a workflow naming a matrix key it lacks: %v\n%s\nwant exit 1 naming oss", err, out)
	}
}

// TestWorkflow_SameScripts: the workflow runs on the three OSes bua
// ships for, and each runs the scripts .ci/run runs (through
// scripts/test): the unit tests and the smoke, not commands of its own
// that could drift from them.
func TestWorkflow_SameScripts(t *testing.T) {
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					OS []string `yaml:"os"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	src, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["test"]
	if !ok {
		t.Fatalf("no job named test in %s", workflow)
	}
	for _, runner := range []string{"ubuntu-latest", "macos-latest", "windows-latest"} {
		if !slices.Contains(job.Strategy.Matrix.OS, runner) {
			t.Errorf("the test job does not run on %s", runner)
		}
	}
	var runs []string
	for _, s := range job.Steps {
		runs = append(runs, strings.TrimSpace(s.Run))
	}
	test, err := os.ReadFile("../scripts/test")
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"scripts/unit", "scripts/smoke"} {
		if !slices.Contains(runs, script) {
			t.Errorf("the workflow does not run %s as a step of its own", script)
		}
		if !strings.Contains(string(test), "suite \"") || !strings.Contains(string(test), " "+script) {
			t.Errorf("scripts/test (what .ci/run runs) does not run %s", script)
		}
	}
}
