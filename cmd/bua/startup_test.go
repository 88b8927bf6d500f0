//go:build !windows

// A scan of the source, the same on every OS: it runs where the go
// command is, which the Windows tests under Wine lack (scripts/test-windows).

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// eagerRegexp is a package-level regexp compiled when the program starts.
var eagerRegexp = regexp.MustCompile(`(?m)^var \w+ = regexp\.MustCompile\(`)

// TestNoEagerRegexps keeps bua's start short: every command, a one-shot
// `bua eval` too, runs every linked package's initialisation first, and a
// package-level regexp.MustCompile compiles there whether the command uses
// it or not (pkg/runner's and pkg/userflow's took 0.3 ms of a 10 ms eval:
// BENCHMARKS.md §Where an action's time goes). A package-level regexp is
// sync.OnceValue(func() *regexp.Regexp { … }), compiled at its first use.
func TestNoEagerRegexps(t *testing.T) {
	// The module's packages linked into bua, from the go command.
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dirs := strings.Fields(string(out))
	if len(dirs) < 10 {
		t.Fatalf("go list named %d of the module's packages: %q", len(dirs), dirs)
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, loc := range eagerRegexp.FindAllIndex(src, -1) {
				line := 1 + strings.Count(string(src[:loc[0]]), "\n")
				t.Errorf("%s:%d: a package-level regexp compiled at start: wrap it in sync.OnceValue", path, line)
			}
		}
	}
}
