package flow

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary YAML to the flow loader: whatever arrives, Load
// returns a flow or a *LoadError whose every diagnostic has a position and
// a message, and never panics. Seeds: every example and invalid flow in the
// repository, plus testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"../../flows/*.yaml", "../../flows/*/*.yaml", "../../testdata/flows/invalid/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fl, err := Load(path)
		if err == nil {
			if fl == nil {
				t.Fatal("Load returned neither a flow nor an error")
			}
			return
		}
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("Load error %T %v: want a *LoadError", err, err)
		}
		if len(le.Diags) == 0 {
			t.Fatal("a LoadError with no diagnostics")
		}
		for _, d := range le.Diags {
			if d.Msg == "" || d.Line < 1 {
				t.Fatalf("diagnostic without a position or message: %+v", d)
			}
		}
	})
}
