package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// result is one in-process run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// checkPrivate fails unless path is a file private to the user as bua
// checks its own (home.CheckPrivate: owner and access rules on Windows,
// owner and mode on Unix) and, where files have modes, at 0600; why says
// what it holds.
func checkPrivate(t *testing.T, path, why string) {
	t.Helper()
	if err := home.CheckPrivate(path); err != nil {
		t.Errorf("%s is not private (%s): %v", path, why, err)
	}
	if runtime.GOOS == "windows" {
		return // no modes: the access rules above are what keeps it private
	}
	if fi, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %04o, want 0600 (%s)", path, fi.Mode().Perm(), why)
	}
}

// notFoundReason is what the OS says of path, a file that does not exist
// ("no such file or directory"; Windows: "The system cannot find the file
// specified."), as bua's messages give it after the path.
func notFoundReason(t *testing.T, path string) string {
	t.Helper()
	_, err := os.ReadFile(path)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Fatalf("%s: %v, want it missing", path, err)
	}
	return pe.Err.Error()
}

// runCLI runs bua with args against the harness's daemon, with buffers for
// I/O; stdin feeds "-" arguments.
func runCLI(t *testing.T, h *bridgetest.Harness, stdin string, args ...string) result {
	t.Helper()
	return runCLIEnv(t, h, nil, stdin, args...)
}

// runCLITerm is runCLI with stdout standing in for a terminal width
// columns wide (width 0: piped).
func runCLITerm(t *testing.T, h *bridgetest.Harness, width int, args ...string) result {
	t.Helper()
	return runCLIWith(t, h, nil, width, "", args...)
}

// runCLIEnv is runCLI with extra environment variables, which reach the
// command through Env.Getenv only, never the test process's environment.
func runCLIEnv(t *testing.T, h *bridgetest.Harness, extra map[string]string, stdin string, args ...string) result {
	t.Helper()
	return runCLIWith(t, h, extra, 0, stdin, args...)
}

func runCLIWith(t *testing.T, h *bridgetest.Harness, extra map[string]string, width int, stdin string, args ...string) result {
	t.Helper()
	return runCLIDial(t, h, extra, width, nil, stdin, args...)
}

// runCLIDial is runCLIWith whose flow runs dial with dial (dialFake).
func runCLIDial(t *testing.T, h *bridgetest.Harness, extra map[string]string, width int, dial func(context.Context, bridge.ClientOptions) (bridge.Link, *protocol.Error), stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{}
	for k, v := range extra {
		vars[k] = v
	}
	switch {
	case h != nil:
		vars["BUA_HOME"] = h.Dirs.Config
	case vars["BUA_HOME"] == "":
		vars["BUA_HOME"] = t.TempDir()
	}
	env := &Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv:        func(k string) string { return vars[k] },
		Now:           func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) },
		TerminalWidth: width,
		Dial:          dial,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code := run(ctx, append([]string{"bua"}, args...), env)
	return result{code, out.String(), errb.String()}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/bua -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (run with -update if intended):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func startFake(t *testing.T) (*bridgetest.Harness, *bridgetest.Extension) {
	h := bridgetest.StartDaemon(t, bridge.Config{ConnectGrace: 100 * time.Millisecond})
	return h, h.Connect(t)
}
