package bridgetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

// orphanEnv marks a process StartOrphan or FakeChrome started from the
// test binary: its value is "leader" for the stand-in browser, which
// starts one helper and waits, "helper" for that helper, and "chrome" for
// FakeChrome's browser, which writes chromeStderrEnv to its stderr and
// exits with chromeExitEnv.
const (
	orphanEnv       = "BUA_BRIDGETEST_ORPHAN"
	chromeStderrEnv = "BUA_BRIDGETEST_CHROME_STDERR"
	chromeExitEnv   = "BUA_BRIDGETEST_CHROME_EXIT"
)

// orphanLife bounds a stand-in's life should its test die without
// cleaning up.
const orphanLife = 60 * time.Second

// init turns a test binary started by StartOrphan into the stand-in
// browser before its tests' flags are parsed (the stand-in's
// --user-data-dir would fail them): every test binary that can call
// StartOrphan imports this package, so its init runs there, on every OS,
// with nothing but the binary itself (no sh, no sleep).
func init() {
	switch os.Getenv(orphanEnv) {
	case "leader":
		helper := exec.Command(os.Args[0])
		helper.Env = append(os.Environ(), orphanEnv+"=helper")
		_ = helper.Start()
		time.Sleep(orphanLife)
		os.Exit(0)
	case "helper":
		time.Sleep(orphanLife)
		os.Exit(0)
	case "chrome":
		os.Stderr.WriteString(os.Getenv(chromeStderrEnv))
		code, _ := strconv.Atoi(os.Getenv(chromeExitEnv))
		os.Exit(code)
	}
}

// FakeChrome returns an executable that stands in for a browser which
// writes stderr (its log) and exits with code at once, on every OS: the
// test binary, told what to play through the environment, which it sets
// for t (so t may not run in parallel). The daemon's launcher starts it
// with the environment it has, as it would a browser.
func FakeChrome(t *testing.T, stderr string, code int) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(orphanEnv, "chrome")
	t.Setenv(chromeStderrEnv, stderr)
	t.Setenv(chromeExitEnv, strconv.Itoa(code))
	return exe
}

// StartOrphan stands in for a managed browser whose daemon was killed: a
// process group (on Windows, a process tree) led by a process whose
// command line names the home's profile as --user-data-dir and which has
// started a helper, recorded in dirs.BrowserRecord as the daemon records
// its browser. It returns the leader's pid; the group is killed when t
// ends.
func StartOrphan(t testing.TB, dirs home.Dirs) int {
	t.Helper()
	profile := filepath.Join(dirs.BrowserDir(), "profile")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--user-data-dir="+profile)
	cmd.Env = append(os.Environ(), orphanEnv+"=leader")
	startGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pid := cmd.Process.Pid
	group := browser.GroupOf(pid)
	t.Cleanup(func() { _ = group.Kill() })
	rec, err := browser.Identify(pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	// The helper has started once the group has two members.
	for end := time.Now().Add(5 * time.Second); len(browser.GroupMembers(pid)) < 2 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if err := browser.WriteRecord(dirs.BrowserRecord(), rec); err != nil {
		t.Fatal(err)
	}
	return pid
}
