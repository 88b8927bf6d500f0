package runner

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestLoad_Invalid is the lint golden suite: each
// testdata/flows/invalid/NNN_name.yaml must produce exactly the diagnostics
// in NNN_name.want (paths relative to that folder).
func TestLoad_Invalid(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "flows", "invalid")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("want at least 15 invalid flows, found %d", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			_, err := Load(file)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load(%s) = %v, want a *LoadError", file, err)
			}
			got := strings.ReplaceAll(le.Diags.String(), dir+string(filepath.Separator), "")
			want := strings.TrimSuffix(file, ".yaml") + ".want"
			if *update {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(b) {
				t.Errorf("diagnostics differ\n--- got\n%s--- want\n%s", got, b)
			}
		})
	}
}
