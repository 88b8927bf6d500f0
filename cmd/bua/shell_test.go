package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The command lines bua suggests (shell_unix.go, shell_windows.go) are
// checked by running them in the OS's real shells, with a stand-in for
// bua on PATH: this test binary, copied as bua, which reports what it
// was started with (echoArgs) when echoFile is in its environment.

const (
	// echoFile names the file a started test binary writes what it was
	// started with to, as JSON (echoed), instead of running the tests.
	echoFile = "BUA_TEST_ECHO_FILE"
	// echoVars is the comma-separated environment variables it reports.
	echoVars = "BUA_TEST_ECHO_VARS"
)

// TestMain runs the tests, or, in a process started with echoFile set
// (the stand-in for bua), only echoArgs.
func TestMain(m *testing.M) {
	if file := os.Getenv(echoFile); file != "" {
		echoArgs(file)
		return
	}
	os.Exit(m.Run())
}

// echoed is what the stand-in for bua was started with: its arguments,
// and the variables of echoVars that were set.
type echoed struct {
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
}

// echoArgs writes the process's echoed to file; a file, not stdout, so
// that no shell's decoding of a program's output changes what it says.
func echoArgs(file string) {
	e := echoed{Args: os.Args[1:], Env: map[string]string{}}
	for _, name := range strings.Split(os.Getenv(echoVars), ",") {
		if v, ok := os.LookupEnv(name); ok && name != "" {
			e.Env[name] = v
		}
	}
	b, _ := json.Marshal(e)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		os.Exit(3)
	}
}

// fakeBua is a folder holding this test binary as bua (bua.exe on
// Windows), to put first on a shell's PATH.
func fakeBua(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name := "bua"
	if runtime.GOOS == "windows" {
		name = "bua.exe"
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// runInShell runs cmd, a shell given a command line that starts bua,
// with the stand-in in bin first on PATH and none of vars set, and
// returns what bua was started with.
func runInShell(t *testing.T, bin string, vars []string, cmd *exec.Cmd) echoed {
	t.Helper()
	out := filepath.Join(t.TempDir(), "echoed.json")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(vars, func(v string) bool { return strings.EqualFold(v, name) }) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		echoFile+"="+out, echoVars+"="+strings.Join(vars, ","))
	combined, err := cmd.CombinedOutput()
	b, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("%v: bua was not started (%v): %v\n%s", cmd.Args, rerr, err, combined)
	}
	var e echoed
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return e
}

// checkEchoed fails unless bua was started with want as its arguments
// and each of vars set to "...".
func checkEchoed(t *testing.T, shell, line string, got echoed, want []string, vars []string) {
	t.Helper()
	if !slices.Equal(got.Args, want) {
		t.Errorf("%s ran %s as bua %q, want %q", shell, line, got.Args, want)
	}
	for _, v := range vars {
		if got.Env[v] != "..." {
			t.Errorf("%s ran %s with %s=%q, want ...", shell, line, v, got.Env[v])
		}
	}
}

// quotingCases are words that some shell reads specially, and some no
// shell does, that every OS's shells must pass on as they are (each OS's
// test adds its own).
var quotingCases = []string{
	"plain.yaml", "flows/sign-in_2.yaml", "sign in.yaml", "it's.yaml", "a&b|c;d,e", "(x) {y} [z]",
	"*.yaml", "?", "#x", "~", "~/x", "x~1", "50%.yaml", "a=b", "@at", "a^b", "<in>out", "é ü.yaml",
	"http://a.test/login?next=/home&x=1",
}

// testShell is one of the OS's shells (shells): its name, the dialect of
// shellCommand.shell it reads ("" for a POSIX shell), how to start it on
// one command line, and why this run cannot (skip: set under Wine only).
type testShell struct {
	name, dialect string
	command       func(line string) *exec.Cmd
	skip          string
}

// TestRunCommands: each command line printReplayAdvice suggests to replay
// a recording (runCommands) starts `bua run FILE` in the shells it is
// written for, with FILE as it is and each environment variable the
// flow reads set (to "...", what the person replaces); every shell of
// the OS gets a line.
func TestRunCommands(t *testing.T) {
	bin := fakeBua(t)
	files := []string{"signin.yaml", filepath.Join("my flows", "it's $x (2).yaml"), filepath.Join(t.TempDir(), "sign in.yaml")}
	for _, sh := range shells(t) {
		t.Run(sh.name, func(t *testing.T) {
			if sh.skip != "" {
				t.Skip(sh.skip)
			}
			for _, vars := range [][]string{nil, {"BUA_PASSWORD"}, {"BUA_PASSWORD", "BUA_CODE"}} {
				for _, file := range files {
					ran := 0
					for _, c := range runCommands(vars, file) {
						if c.shell != "" && c.shell != sh.dialect {
							continue
						}
						ran++
						got := runInShell(t, bin, vars, sh.command(c.line))
						checkEchoed(t, sh.name, c.line, got, []string{"run", file}, vars)
					}
					if ran != 1 {
						t.Errorf("%s: %d of runCommands(%q, %q) are for it, want 1: %v", sh.name, ran, vars, file, runCommands(vars, file))
					}
				}
			}
		})
	}
}
