package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommandSeams: every command's constructor takes a run function
// (newXCommand(env, runF)), as cli/cli's NewCmdX take theirs, so a test can
// read what a command line parses to without dialling a daemon
// (options_test.go's parseWith), and no command reaches the daemon but
// through its options (the dial is Env's: Env.Dial).
func TestCommandSeams(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ctor := regexp.MustCompile(`(?m)^func (new\w+Command)\(([^)]*)\)`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ctor.FindAllStringSubmatch(string(src), -1) {
			n++
			if !strings.Contains(m[2], " func(*") {
				t.Errorf("%s: %s(%s) takes no run function", f, m[1], m[2])
			}
		}
	}
	if n < len(registry) {
		t.Errorf("found %d command constructors, fewer than the %d registered commands", n, len(registry))
	}
}
