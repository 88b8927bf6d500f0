package userflow

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
)

var update = flag.Bool("update", false, "rewrite the golden flows under testdata/replay")

// replayDir holds recordings from puppeteer/replay (README.md there says
// which), each NAME.json beside the flow it converts to, NAME.yaml.
const replayDir = "../../testdata/replay"

func recordings(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(replayDir, "*.json"))
	if err != nil || len(paths) < 30 {
		t.Fatalf("found %d recordings under %s (%v): the vendored set has more", len(paths), replayDir, err)
	}
	return paths
}

func convertFile(t *testing.T, path string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	res, err := Convert(rec, Options{From: filepath.Base(path)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

// TestGolden converts each vendored recording and compares the flow with
// its golden (-update rewrites them); a second conversion must give the
// same bytes.
func TestGolden(t *testing.T) {
	for _, path := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			got := convertFile(t, path).YAML
			if again := convertFile(t, path).YAML; string(again) != string(got) {
				t.Error("a second conversion of the same recording wrote other bytes")
			}
			golden := filepath.Join(replayDir, name+".yaml")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs (go test ./pkg/userflow -update rewrites it):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

// TestGoldenLints loads every converted flow as `bua lint` does: no error,
// and a warning only in a flow with a reported problem. A problem's step
// is marked for a hand edit in the file, and the report counts it.
func TestGoldenLints(t *testing.T) {
	for _, path := range recordings(t) {
		res := convertFile(t, path)
		file := filepath.Join(t.TempDir(), "flow.yaml")
		if err := os.WriteFile(file, res.YAML, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := flow.Load(file)
		if err != nil {
			t.Errorf("%s: the converted flow does not load: %v\n%s", path, err, res.YAML)
			continue
		}
		if len(f.Warnings) > 0 && len(res.Report.Problems) == 0 {
			t.Errorf("%s: warnings in a flow with no reported problem:\n%s", path, f.Warnings.String())
		}
		edits := strings.Count(string(res.YAML), "bua: edit this:")
		if (edits > 0) != (len(res.Report.Problems) > 0) {
			t.Errorf("%s: %d steps marked for a hand edit, %d problems reported", path, edits, len(res.Report.Problems))
		}
	}
}
